/**
 * The XML body reads a call whose closing tag is already in the text in one piece
 * (readWholeCall). It must give exactly what the streaming body gives: a one-push parse takes
 * that path, a parse one character at a time never does, so comparing the two checks it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { xmlProtocol } from '../../../../src/index.ts';
import { xmlToolShape } from '../../../../src/protocols/xml/tool-shape.ts';
import { readWholeCall } from '../../../../src/protocols/xml/whole-call.ts';
import {
  contentOf,
  splitAt,
  streamEvents,
  streamingViolations,
  TOOLS,
  weatherTool,
  writeFileTool,
} from '../../helpers.ts';

const xml = xmlProtocol();

function readWhole(text: string) {
  const tool = TOOLS.find((candidate) => text.startsWith(`<${candidate.name}`))!;
  return readWholeCall(text, tool.name.length + 1, text.length, tool, xmlToolShape(tool));
}

describe('readWholeCall', () => {
  it('reads the common shape: input, its JSON text in order of appearance, and the end', () => {
    const text =
      '<get_weather>\n  <unit>celsius</unit>\n  <city> Paris </city>\n  <days>3</days>\n</get_weather> after';
    const call = readWhole(text);
    expect(call).toEqual({
      end: text.indexOf(' after'),
      input: { unit: 'celsius', city: 'Paris', days: 3 },
      json: '{"unit":"celsius","city":"Paris","days":3}',
    });
  });

  it('reads string values with markup, entities, CDATA and indented code as the streaming body does', () => {
    const content = '\n  if (a < b && c) {\n    x = "<div>&amp;</div>";\n  }\n';
    const text = `<write_file><path>src/a.ts</path><content>${content}</content></write_file>`;
    expect(readWhole(text)?.input).toEqual({
      path: 'src/a.ts',
      content: '  if (a < b && c) {\n    x = "<div>&</div>";\n  }',
    });
    const cdata =
      '<write_file><path>p</path><content><![CDATA[ <b>x</b> ]]></content></write_file>';
    expect(readWhole(cdata)?.input).toEqual({ path: 'p', content: ' <b>x</b> ' });
    const mixed =
      '<write_file><path>p</path><content> a <![CDATA[<]]> b &lt; </content></write_file>';
    expect(readWhole(mixed)?.input).toEqual({ path: 'p', content: 'a < b <' });
  });

  it('gives up, before anything is emitted, on what the streaming body must weigh', () => {
    const cases = [
      // not closed yet, or cut inside a value
      '<get_weather><city>Paris</city>',
      '<get_weather><city>Par',
      '<write_file><path>p</path><content><![CDATA[x</content></write_file>',
      // attributes, self-closing tags, JSON arguments, text written directly in the tool tag
      '<get_weather city="Paris"></get_weather>',
      '<get_weather><city/></get_weather>',
      '<get_weather>{"city": "Paris"}</get_weather>',
      '<attempt_completion>Done.</attempt_completion>',
      // a parameter given twice, an undeclared one, `<parameter name="…">`
      '<get_weather><city>a</city><city>b</city></get_weather>',
      '<get_weather><town>a</town></get_weather>',
      '<get_weather><parameter name="city">a</parameter></get_weather>',
      // a closing tag followed by text (content), or by a tag that is not a parameter
      '<write_file><path>p</path><content>x</content> more</content></write_file>',
      '<write_file><path>p</path><content>x</content><b></write_file>',
      // the value's own or the tool's tags inside a value
      '<write_file><path>p</path><content><content>x</content></content></write_file>',
      '<search><query>foo</search>',
      // structure in a held value, an array written as repeated tags
      '<search><query>q</query><options><depth>2</depth></options></search>',
      '<search><query>q</query><tags>a</tags><tags>b</tags></search>',
    ];
    for (const text of cases) expect(readWhole(text), text).toBeUndefined();
  });
});

/** Pieces of values: text, markup a value may hold, and the tags the parser must weigh. */
const VALUE_PIECES = [
  'Paris',
  'a b',
  ' ',
  '  ',
  '\n',
  '\t',
  '3',
  '-1.5',
  'true',
  'celsius',
  '"',
  '\\',
  'é',
  '😀',
  '\ud800',
  '\udc00',
  'a < b',
  '<',
  '<3',
  '<div>',
  '</div>',
  '<b/>',
  '&',
  '&amp;',
  '&lt;',
  '&#32;',
  '&#x1F600;',
  '&bogus;',
  '<![CDATA[',
  ']]>',
  '<![CDATA[x < y]]>',
  '<!-- c -->',
  '</city>',
  '<city>',
  '</content>',
  '<content>',
  '</get_weather>',
  '</write_file>',
  '<get_weather>',
  '<item>',
  '</item>',
  '{"a": 1}',
];

const PARAMETERS = ['city', 'days', 'unit', 'path', 'content', 'query', 'tags', 'options', 'x'];

const openingTag = (name: string) =>
  fc.constantFrom(`<${name}>`, `<${name}>`, `<${name} >`, `<${name} a="1">`, `<${name}/>`);
const closingTag = (name: string) =>
  fc.constantFrom(`</${name}>`, `</${name}>`, `</${name} >`, '', `</${name}`);

const parameter = fc
  .constantFrom(...PARAMETERS)
  .chain((name) =>
    fc
      .tuple(
        openingTag(name),
        fc.array(fc.constantFrom(...VALUE_PIECES), { maxLength: 6 }),
        closingTag(name),
        fc.constantFrom('', '\n', '\n  ', ' ', 'stray'),
      )
      .map(([open, value, close, after]) => `${open}${value.join('')}${close}${after}`),
  );

const call = fc
  .tuple(
    fc.constantFrom(weatherTool.name, writeFileTool.name, 'search', 'attempt_completion'),
    fc.constantFrom('>', '>\n', ' >', '>\n  '),
    fc.array(parameter, { maxLength: 4 }),
    fc.constantFrom('close', 'close', 'spaced', 'none'),
  )
  .map(([tool, open, parameters, close]) => {
    const end = close === 'close' ? `</${tool}>` : close === 'spaced' ? `</${tool} >` : '';
    return `<${tool}${open}${parameters.join('')}${end}`;
  });

const document = fc
  .tuple(fc.constantFrom('', 'Sure.\n\n'), fc.array(call, { minLength: 1, maxLength: 3 }))
  .map(([before, calls]) => `${before}${calls.join('\nThen\n')} done.`);

/** Pieces of values the whole-call reader takes: text, layout, references, CDATA, stray `<`. */
const PLAIN_PIECES = [
  'Paris',
  'a b',
  'x',
  ' ',
  '  ',
  '\n',
  '\n  ',
  '\t',
  '\r\n',
  '3',
  'celsius',
  '"',
  '\\',
  'é',
  '😀',
  '\ud800',
  '\u0001',
  'a < b',
  '<div>',
  '&amp;',
  '&lt;',
  '&#32;',
  '&#10;',
  '&',
  '&bogus;',
  '<![CDATA[ x\n]]>',
];

/** Calls written as models usually write them: declared parameters, each once, closed. */
const wellFormedCall = fc.constantFrom(...TOOLS).chain((tool) =>
  fc
    .tuple(
      fc.shuffledSubarray(Object.keys((tool.inputSchema as { properties: object }).properties)),
      fc.array(fc.array(fc.constantFrom(...PLAIN_PIECES), { maxLength: 8 }), {
        minLength: 5,
        maxLength: 5,
      }),
      fc.constantFrom('\n', '', '\n  '),
    )
    .map(([names, values, layout]) => {
      const parameters = names.map(
        (name, index) => `${layout}<${name}>${values[index]!.join('')}</${name}>`,
      );
      return `<${tool.name}>${parameters.join('')}\n</${tool.name}>`;
    }),
);

describe('whole-call reading keeps the streaming result', () => {
  it('reads well-formed calls with any plain values the same in one push and one character at a time', () => {
    fc.assert(
      fc.property(fc.array(wellFormedCall, { minLength: 1, maxLength: 3 }), (calls) => {
        const text = `Sure.\n${calls.join('\n')}\nDone.`;
        const whole = streamEvents(xml, [text], { tools: TOOLS });
        expect(contentOf(streamEvents(xml, [...text], { tools: TOOLS }))).toEqual(contentOf(whole));
        for (const event of whole) {
          if (event.type === 'tool-call') expect(() => JSON.parse(event.input)).not.toThrow();
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('parses every generated call the same in one push, one character at a time and split anywhere', () => {
    fc.assert(
      fc.property(document, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const whole = streamEvents(xml, [text], { tools: TOOLS });
        expect(contentOf(streamEvents(xml, [...text], { tools: TOOLS }))).toEqual(contentOf(whole));
        const split = streamEvents(xml, splitAt(text, cuts), { tools: TOOLS });
        expect(contentOf(split)).toEqual(contentOf(whole));
        expect(streamingViolations(whole)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it('reads a call in one piece exactly when its input equals the streaming input', () => {
    fc.assert(
      fc.property(call, (text) => {
        const whole = readWhole(`${text}\n`);
        if (whole === undefined) return;
        const streamed = streamEvents(xml, [...text], { tools: TOOLS }).filter(
          (event) => event.type === 'tool-call',
        );
        expect(streamed).toHaveLength(1);
        expect(streamed[0]).toMatchObject({ input: whole.json });
        expect(JSON.parse(whole.json)).toEqual(whole.input);
      }),
      { numRuns: 1000 },
    );
  });
});
