import { describe, expect, it } from 'vitest';
import { type ToolDefinition, xmlProtocol } from '../../../src/index.ts';
import {
  callsOf,
  chunksOf,
  completionTool,
  contentOf,
  searchTool,
  splitAt,
  streamEvents,
  streamingViolations,
  TOOLS,
  textOf,
  weatherTool,
  writeFileTool,
} from '../helpers.ts';

const xml = xmlProtocol();
const tools = TOOLS;

describe('xml protocol: calls', () => {
  it('reads a call, coerces values by the schema, and keeps the text around it', () => {
    const text =
      'Let me check.\n<get_weather>\n  <city>Seoul</city>\n  <days>3</days>\n</get_weather>\nDone.';
    expect(contentOf(streamEvents(xml, [text], { tools }))).toEqual([
      { type: 'text', text: 'Let me check.\n' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Seoul","days":3}' },
      { type: 'text', text: '\nDone.' },
    ]);
  });

  it('opens calls only for declared tools; other tags are text', () => {
    const text = '<b>bold</b> <ins>x</ins> <unknown_tool><a>1</a></unknown_tool>';
    expect(callsOf(xml, text, tools)).toEqual([]);
    expect(textOf(xml, text, tools)).toBe(text);
  });

  it('follows a tool list that is reused, or changed in place, between parses', () => {
    const list: ToolDefinition[] = [weatherTool];
    const text = '<write_file><path>a</path><content>b</content></write_file>';
    expect(callsOf(xml, text, list)).toEqual([]);
    expect(callsOf(xml, text, list)).toEqual([]);
    list.push(writeFileTool);
    expect(callsOf(xml, text, list)).toEqual([
      { toolName: 'write_file', input: { path: 'a', content: 'b' } },
    ]);
    list[1] = searchTool;
    expect(callsOf(xml, text, list)).toEqual([]);
  });

  it('does not take a tool name that is a prefix of another tag for the tool', () => {
    expect(callsOf(xml, '<searchFiles><query>x</query></searchFiles>', tools)).toEqual([]);
  });

  it('reads prose that merely mentions a tool tag as text', () => {
    const text = 'Use <search the code> to find it, or the <get_weather> tool.';
    expect(callsOf(xml, text, tools)).toEqual([]);
    expect(textOf(xml, text, tools)).toBe(text);
  });

  it('reads nested elements as objects, repeated tags and <item> lists as arrays', () => {
    const text =
      '<search><query>q</query><tags>a</tags><tags>b</tags><options><depth>2</depth><exact>true</exact></options></search>' +
      '<search><query>r</query><tags><item>x</item><item>y</item></tags></search>';
    expect(callsOf(xml, text, tools)).toEqual([
      {
        toolName: 'search',
        input: { query: 'q', tags: ['a', 'b'], options: { depth: 2, exact: true } },
      },
      { toolName: 'search', input: { query: 'r', tags: ['x', 'y'] } },
    ]);
  });

  it('accepts self-closing tags', () => {
    expect(callsOf(xml, '<search><query>q</query><path/></search>', tools)).toEqual([
      { toolName: 'search', input: { query: 'q', path: '' } },
    ]);
    const [call] = callsOf(xml, '<get_weather/>', tools);
    expect(call?.input).toEqual({});
    expect(call?.problems).toEqual([
      expect.objectContaining({ keyword: 'required', path: '/city' }),
    ]);
  });

  it('decodes the five entities in one pass and accepts CDATA', () => {
    const text =
      '<search><query>a &lt; b &amp;&amp; c &gt; d &quot;e&quot; &apos;f&apos; &amp;lt;</query>' +
      '<path><![CDATA[<raw> & ]]]]><![CDATA[> kept]]></path></search>';
    expect(callsOf(xml, text, tools)[0]?.input).toEqual({
      query: 'a < b && c > d "e" \'f\' &lt;',
      path: '<raw> & ]]> kept',
    });
  });

  it('keeps other tags inside a value as text', () => {
    const text =
      '<write_file><path>i.html</path><content><div class="a">Hi</div></content></write_file>';
    expect(callsOf(xml, text, tools)[0]?.input).toEqual({
      path: 'i.html',
      content: '<div class="a">Hi</div>',
    });
  });

  it('keeps a value whole when it mentions its own closing tag', () => {
    const text =
      '<write_file>\n<path>doc.md</path>\n<content>Write </content> to close.\nAnd <content>nested</content> too.</content>\n</write_file>';
    expect(callsOf(xml, text, tools)[0]?.input).toEqual({
      path: 'doc.md',
      content: 'Write </content> to close.\nAnd <content>nested</content> too.',
    });
  });

  it("keeps a value whole when it mentions the tool's closing tag", () => {
    const text =
      '<write_file><path>x</path><content>Example: </write_file> in docs.</content></write_file>';
    expect(callsOf(xml, text, tools)[0]?.input).toEqual({
      path: 'x',
      content: 'Example: </write_file> in docs.',
    });
  });

  it('trims layout white space but keeps the indentation of multi-line values', () => {
    const text =
      '<write_file>\n  <path>\n    a.py\n  </path>\n  <content>\n    def f():\n        return 1\n  </content>\n</write_file>';
    expect(callsOf(xml, text, tools)[0]?.input).toEqual({
      path: 'a.py',
      content: '    def f():\n        return 1',
    });
  });

  it('reads attempt_completion with a <result> child, or with its text directly', () => {
    expect(
      callsOf(xml, '<attempt_completion><result>All done.</result></attempt_completion>', tools),
    ).toEqual([{ toolName: 'attempt_completion', input: { result: 'All done.' } }]);
    expect(
      callsOf(xml, '<attempt_completion>\nAll done &amp; dusted.\n</attempt_completion>', tools),
    ).toEqual([{ toolName: 'attempt_completion', input: { result: 'All done & dusted.' } }]);
  });

  it('attaches every validation problem to a call that fails its schema', () => {
    const [call] = callsOf(
      xml,
      '<get_weather>\n<days>many</days>\n<unit>kelvin</unit>\n<color>red</color>\n</get_weather>',
      tools,
    );
    expect(call?.toolName).toBe('get_weather');
    const messages = ((call?.problems ?? []) as { message: string }[]).map(
      (problem) => problem.message,
    );
    expect(messages).toEqual(
      expect.arrayContaining([
        'missing required parameter "city"',
        expect.stringContaining('parameter "days" must be integer'),
        expect.stringContaining('parameter "unit" must be one of "celsius", "fahrenheit"'),
        'unexpected parameter "color" (not in the schema)',
      ]),
    );
  });

  it('corrects an enum value written in another case', () => {
    expect(
      callsOf(xml, '<get_weather><city>Oslo</city><unit>Celsius</unit></get_weather>', tools)[0]
        ?.input,
    ).toEqual({
      city: 'Oslo',
      unit: 'celsius',
    });
  });

  it('reads parameter tags followed by any white space a regular expression knows', () => {
    const text =
      '<get_weather source="x"><city\u00a0lang="en">Oslo</city\u3000><days\t/></get_weather>';
    const [call] = callsOf(xml, text, tools);
    expect(call?.toolName).toBe('get_weather');
    expect(call?.input).toEqual({ city: 'Oslo', days: '' });
    // A name glued to other characters is not a tag: the value keeps it as text.
    expect(
      callsOf(xml, '<get_weather><city>a <city/x> b</city></get_weather>', tools)[0]?.input,
    ).toEqual({ city: 'a <city/x> b' });
  });

  it('validates a call whose string values are too long to keep, from its streamed JSON', () => {
    const limited: ToolDefinition = {
      name: 'write_file',
      inputSchema: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string', maxLength: 100 } },
        required: ['path', 'content'],
      },
    };
    const long = 'x'.repeat(70_000);
    const text = `<write_file><path>a.txt</path><content>${long}</content></write_file>`;
    for (const chunks of [[text], chunksOf(text, 4096)]) {
      const events = streamEvents(xml, chunks, { tools: [limited] });
      const call = events.find((event) => event.type === 'tool-call');
      expect(call && 'input' in call ? JSON.parse(call.input) : undefined).toEqual({
        path: 'a.txt',
        content: long,
      });
      expect(call && 'problems' in call ? call.problems : undefined).toEqual([
        expect.objectContaining({ path: '/content', keyword: 'maxLength' }),
      ]);
    }
    // Cut off before its closing tag, the long call is completed from its streamed JSON too.
    const cut = streamEvents(xml, [text.slice(0, text.indexOf('</content>'))], {
      tools: [limited],
    });
    expect(cut.find((event) => event.type === 'error')).toMatchObject({
      error: { code: 'incomplete-call', message: expect.stringContaining('content') },
    });
    // The same call with short values is validated from the values it kept.
    const [short] = callsOf(
      xml,
      `<write_file><path>a.txt</path><content>${'y'.repeat(101)}</content></write_file>`,
      [limited],
    );
    expect(short?.problems).toEqual([expect.objectContaining({ keyword: 'maxLength' })]);
  });

  it('reports a parameter given twice', () => {
    const [call] = callsOf(xml, '<get_weather><city>A</city><city>B</city></get_weather>', tools);
    expect(call?.input).toEqual({ city: 'A' });
    expect(call?.problems).toEqual([
      expect.objectContaining({ keyword: 'duplicate', path: '/city' }),
    ]);
  });
});

describe('xml protocol: what models write instead of parameter tags', () => {
  /** The same content at every split point, with the streaming contract kept. */
  function atEverySplit(text: string): unknown[] {
    const whole = contentOf(streamEvents(xml, [text], { tools }));
    for (let cut = 1; cut < text.length; cut++) {
      const events = streamEvents(xml, splitAt(text, [cut]), { tools });
      expect(contentOf(events)).toEqual(whole);
      expect(streamingViolations(events)).toEqual([]);
    }
    expect(contentOf(streamEvents(xml, chunksOf(text, 1), { tools }))).toEqual(whole);
    return whole;
  }

  it('reads a JSON object written in the tool tag as the arguments, coerced by the schema', () => {
    const text = 'Checking.\n<get_weather>\n{"city": "Paris", "days": "2"}\n</get_weather>\nDone.';
    expect(atEverySplit(text)).toEqual([
      { type: 'text', text: 'Checking.\n' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Paris","days":2}' },
      { type: 'text', text: '\nDone.' },
    ]);
  });

  it('finds the end of JSON arguments by their brackets, not by braces or tags in strings', () => {
    const content = 'if (a) { x = "}"; }\n</write_file>\n]';
    const text = `<write_file>${JSON.stringify({ path: 'a.ts', content })}</write_file>`;
    expect(atEverySplit(text)).toEqual([
      {
        type: 'tool-call',
        toolName: 'write_file',
        input: JSON.stringify({ path: 'a.ts', content }),
      },
    ]);
  });

  it('repairs JSON arguments a model wrote loosely, and reports them when cut off', () => {
    expect(callsOf(xml, "<get_weather>{city: 'Oslo', days: 3,}</get_weather>", tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Oslo', days: 3 } },
    ]);
    expect(callsOf(xml, '<get_weather>{"city": "Oslo"', tools)).toEqual([]);
    expect(
      xml
        .parseGeneratedText('<get_weather>{"city": "Oslo"', { tools })
        .find((part) => part.type === 'error'),
    ).toMatchObject({ error: { code: 'incomplete-call' } });
  });

  it('reports JSON arguments that cannot be read as a malformed call, with the raw text', () => {
    const text = '<get_weather>{"city" "Paris" :: }</get_weather> ok';
    expect(contentOf(streamEvents(xml, [text], { tools }))).toEqual([
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'malformed-call',
          raw: '<get_weather>{"city" "Paris" :: }</get_weather>',
          toolName: 'get_weather',
        }),
      },
      { type: 'text', text: '<get_weather>{"city" "Paris" :: }</get_weather> ok' },
    ]);
  });

  it('keeps a __proto__ member of JSON arguments an own property', () => {
    const [call] = callsOf(
      xml,
      '<get_weather>{"city": "Rome", "__proto__": {"polluted": true}}</get_weather>',
      tools,
    );
    expect(Object.hasOwn(call?.input as object, '__proto__')).toBe(true);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('reads attributes named like parameters as their values; other attributes are markup', () => {
    expect(atEverySplit('<get_weather city="Paris &amp; Co" days=\'2\'/> ok')).toEqual([
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Paris & Co","days":2}' },
      { type: 'text', text: ' ok' },
    ]);
    expect(callsOf(xml, '<search id="7"><query>x</query></search>', tools)).toEqual([
      { toolName: 'search', input: { query: 'x' } },
    ]);
  });

  it('reads <parameter name="…"> tags as the parameters they name', () => {
    const text =
      '<get_weather>\n<parameter name="city">Paris</parameter><parameter name=\'days\'>3</parameter>\n</get_weather> ok';
    expect(atEverySplit(text)).toEqual([
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Paris","days":3}' },
      { type: 'text', text: ' ok' },
    ]);
    // A tool that declares a parameter called "parameter" keeps it.
    const tool: ToolDefinition = {
      name: 'set',
      inputSchema: { type: 'object', properties: { parameter: { type: 'string' } } },
    };
    expect(callsOf(xml, '<set><parameter name="x">1</parameter></set>', [tool])).toEqual([
      { toolName: 'set', input: { parameter: '1' } },
    ]);
  });

  it('reports a parameter given as an attribute and again as a tag', () => {
    const [call] = callsOf(
      xml,
      '<get_weather city="A"><city>B</city><days>1</days></get_weather>',
      tools,
    );
    expect(call?.input).toEqual({ city: 'A', days: 1 });
    expect(call?.problems).toEqual([
      expect.objectContaining({ keyword: 'duplicate', path: '/city' }),
    ]);
  });
});

describe('xml protocol: reasoning', () => {
  it('splits <thinking> and <think> out as reasoning; tool tags inside are not calls', () => {
    const text =
      '<thinking>I could <get_weather><city>X</city></get_weather></thinking>A<think>hmm</think>B';
    expect(contentOf(streamEvents(xml, [text], { tools }))).toEqual([
      { type: 'reasoning', text: 'I could <get_weather><city>X</city></get_weather>' },
      { type: 'text', text: 'A' },
      { type: 'reasoning', text: 'hmm' },
      { type: 'text', text: 'B' },
    ]);
  });

  it('treats everything after an unclosed reasoning block as reasoning, then emits its calls', () => {
    const text = '<think>still thinking <get_weather><city>X</city></get_weather>';
    expect(contentOf(streamEvents(xml, chunksOf(text, 3), { tools }))).toEqual([
      { type: 'reasoning', text: 'still thinking <get_weather><city>X</city></get_weather>' },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"X"}' },
    ]);
  });

  it('starts inside reasoning when the prompt template opened it', () => {
    const text = "I'm\nthinking</think><get_weather><city>Rome</city></get_weather>";
    expect(contentOf(streamEvents(xml, [text], { tools, startInReasoning: true }))).toEqual([
      { type: 'reasoning', text: "I'm\nthinking" },
      { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Rome"}' },
    ]);
  });
});

describe('xml protocol: broken and cut-off output', () => {
  it('completes a call cut off at the end when only its closing tag is missing', () => {
    expect(callsOf(xml, '<get_weather>\n<city>Paris</city>\n', tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Paris' } },
    ]);
    // Cut inside a value: the value may be incomplete, so the call is reported, not run.
    expect(callsOf(xml, '<search>\n<query>function definition', tools)).toEqual([]);
  });

  it('completes a call whose last parameter was never closed', () => {
    expect(callsOf(xml, '<search><query>unclosed tag</search>', tools)).toEqual([
      { toolName: 'search', input: { query: 'unclosed tag' } },
    ]);
  });

  it("ends the call at the tool's closing tag when the parameter was never closed and more follows", () => {
    const text =
      'Let me look.\n<search>\n<query>foo bar</search>\nI will wait for the result.\n' +
      '<get_weather><city>Paris\n</get_weather><search><query>x</query></search> Done.';
    for (const chunks of [[text], chunksOf(text, 1), chunksOf(text, 7)]) {
      expect(contentOf(streamEvents(xml, chunks, { tools }))).toEqual([
        { type: 'text', text: 'Let me look.\n' },
        { type: 'tool-call', toolName: 'search', input: '{"query":"foo bar"}' },
        { type: 'text', text: '\nI will wait for the result.\n' },
        { type: 'tool-call', toolName: 'get_weather', input: '{"city":"Paris"}' },
        { type: 'tool-call', toolName: 'search', input: '{"query":"x"}' },
        { type: 'text', text: ' Done.' },
      ]);
    }
  });

  it("keeps the tool's closing tag as content when text follows it on the same line", () => {
    const text = '<get_weather><city>Paris</get_weather> is how it ends</city></get_weather>\nok';
    expect(callsOf(xml, text, tools)).toEqual([
      { toolName: 'get_weather', input: { city: 'Paris</get_weather> is how it ends' } },
    ]);
  });

  it('keeps a whole call shown in a value as content, its closing tag balanced by its opener', () => {
    const shown = '<write_file>\n<path>a</path>\n</write_file>\nThen run it.';
    const text = `<write_file>\n<path>doc.md</path>\n<content>${shown}\n</content>\n</write_file>`;
    for (const chunks of [[text], chunksOf(text, 3)]) {
      expect(contentOf(streamEvents(xml, chunks, { tools }))).toEqual([
        {
          type: 'tool-call',
          toolName: 'write_file',
          input: JSON.stringify({ path: 'doc.md', content: shown }),
        },
      ]);
    }
  });

  it('reports a call cut off before it validates, with its raw text, also as text', () => {
    const text = 'Sure <write_file><path>a.txt</path>';
    const content = contentOf(streamEvents(xml, [text], { tools }));
    expect(content).toEqual([
      { type: 'text', text: 'Sure ' },
      {
        type: 'error',
        error: expect.objectContaining({
          code: 'incomplete-call',
          raw: '<write_file><path>a.txt</path>',
          toolName: 'write_file',
          offset: 5,
          message: expect.stringContaining('missing required parameter "content"'),
        }),
      },
      { type: 'text', text: '<write_file><path>a.txt</path>' },
    ]);
  });

  it('does not repeat the raw text as text when the caller opts out', () => {
    const content = contentOf(
      streamEvents(xml, ['<write_file><path>a</path>'], { tools, emitRawTextOnError: false }),
    );
    expect(content.map((part) => (part as { type: string }).type)).toEqual(['error']);
  });

  it('abandons a call past maxCallChars and reads the rest as text', () => {
    const text = `<write_file><path>a</path><content>${'x'.repeat(100)}</content></write_file>after`;
    const events = streamEvents(xml, chunksOf(text, 7), { tools, maxCallChars: 60 });
    const content = contentOf(events);
    expect(content[0]).toEqual({
      type: 'error',
      error: expect.objectContaining({ code: 'call-too-large', raw: text.slice(0, 60) }),
    });
    expect(content.filter((part) => (part as { type: string }).type === 'tool-call')).toEqual([]);
    const allText = content
      .filter((part) => (part as { type: string }).type === 'text')
      .map((part) => (part as { text: string }).text)
      .join('');
    expect(allText).toBe(text);
    expect(streamingViolations(events)).toEqual([]);
  });
});

describe('xml protocol: streaming', () => {
  it('streams a string value as it arrives and holds numbers until they end', () => {
    const parser = xml.createStreamParser({ tools });
    const deltas: string[] = [];
    const collect = (chunk: string) => {
      for (const event of parser.push(chunk))
        if (event.type === 'tool-input-delta') deltas.push(event.delta);
    };
    collect('<write_file><path>a.txt</path><content>Hello');
    expect(deltas.join('')).toBe('{"path":"a.txt","content":"Hello');
    collect(', world</content></write_file>');
    expect(deltas.join('')).toBe('{"path":"a.txt","content":"Hello, world"}');

    const weather = xml.createStreamParser({ tools });
    const weatherDeltas: string[] = [];
    for (const event of weather.push('<get_weather><days>1')) {
      if (event.type === 'tool-input-delta') weatherDeltas.push(event.delta);
    }
    expect(weatherDeltas.join('')).not.toContain('1');
  });

  it('gives one input delta per call for each chunk, however the value is cut into pieces', () => {
    const text =
      '<get_weather>\n  <city>S&#227;o Paulo</city>\n  <days>3</days>\n  <unit>celsius</unit>\n</get_weather>';
    const whole = streamEvents(xml, [text], { tools });
    const deltas = whole.filter((event) => event.type === 'tool-input-delta');
    expect(deltas).toEqual([
      expect.objectContaining({ delta: '{"city":"São Paulo","days":3,"unit":"celsius"}' }),
    ]);
    // Cut in two: at most one delta per push, still adding up to the input.
    const [first, second] = [text.slice(0, 40), text.slice(40)];
    const parser = xml.createStreamParser({ tools });
    const perPush = [parser.push(first), parser.push(second), parser.end()].map(
      (events) => events.filter((event) => event.type === 'tool-input-delta').length,
    );
    expect(perPush.every((count) => count <= 1)).toBe(true);
  });

  it('releases text as soon as it cannot start a tag', () => {
    const parser = xml.createStreamParser({ tools });
    const first = parser.push('a < b and <get');
    expect(
      first
        .filter((event) => event.type === 'text-delta')
        .map((event) => (event as { delta: string }).delta)
        .join(''),
    ).toBe('a < b and ');
    const second = parser.push('ter>');
    expect(
      second
        .filter((event) => event.type === 'text-delta')
        .map((event) => (event as { delta: string }).delta)
        .join(''),
    ).toBe('<getter>');
  });

  it('emits start, deltas adding up to the input, end, then the call, at any chunk size', () => {
    const text =
      '<search><query>q &amp; r</query><tags>a</tags><tags>b</tags></search><get_weather><city>X</city></get_weather>';
    for (const size of [1, 2, 3, 5, 11, 1000]) {
      const events = streamEvents(xml, chunksOf(text, size), { tools });
      expect(streamingViolations(events)).toEqual([]);
      expect(contentOf(events)).toEqual(contentOf(streamEvents(xml, [text], { tools })));
    }
  });
});

describe('xml protocol: formatting', () => {
  it('formats a call that parses back to the same call', () => {
    const input = { path: 'a b.txt', content: '  <x> & ]]> </content>\n' };
    const text = xml.formatToolCall({ toolName: 'write_file', input });
    expect(callsOf(xml, text, tools)).toEqual([{ toolName: 'write_file', input }]);
  });

  it('formats results escaped, so a result can never be read back as a call', () => {
    const text = xml.formatToolResponse([
      { toolName: 'search', output: '<get_weather><city>X</city></get_weather>' },
      { toolName: 'get_weather', output: 'no such city', isError: true },
    ]);
    expect(text).toContain('<tool_result tool_name="search">');
    // (The message may be written as a JSON string: see result-text.ts.)
    expect(text).toMatch(/Error: "?no such city"?/);
    expect(callsOf(xml, text, tools)).toEqual([]);
  });

  it('describes every tool, its parameters and schema, with one example call', () => {
    const prompt = xml.formatTools([weatherTool, writeFileTool, searchTool, completionTool]);
    expect(prompt).toContain('### get_weather');
    expect(prompt).toContain('Current weather for a city');
    expect(prompt).toContain('- city (string, required)');
    expect(prompt).toContain('- unit ("celsius" | "fahrenheit", optional)');
    expect(prompt).toContain(JSON.stringify(weatherTool.inputSchema));
    expect(prompt).toContain('<get_weather>\n  <city>example</city>\n</get_weather>');
  });

  it('extracts the exact substrings read as calls', () => {
    const text = 'a <get_weather><city>X</city></get_weather> b <nope/>';
    expect(xml.extractToolCallSegments(text, { tools })).toEqual([
      '<get_weather><city>X</city></get_weather>',
    ]);
  });
});
