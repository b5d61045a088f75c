/**
 * docs/format-spec.md cannot rot: its JSON example is read by `readFormatSpec` and
 * `defineFormat` and parses the sample output printed under it (whole, at every chunk size, and
 * through `toolwire parse --format-file`); the writes its code shows are what the writers write;
 * GLM's spec is the built-in's; each table of fields names exactly the fields `readFormatSpec`
 * takes; each placeholder is filled in the templates the doc says and only there; the limits
 * are the ones enforced.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../src/cli/parse-command.ts';
import type { ParsedContent, ToolDefinition } from '../../src/core/index.ts';
import {
  autoProtocol,
  defineFormat,
  FORMATS,
  type FormatSpec,
  FormatSpecError,
  readFormatSpec,
  specOf,
} from '../../src/index.ts';
import { glmSpec } from '../../src/protocols/glm/index.ts';
import { ROOT } from './loaded-packages.ts';

const read = (path: string) => readFileSync(new URL(path, ROOT), 'utf8');
const DOC = read('docs/format-spec.md');
const TOOLS = JSON.parse(read('examples/tools.json')) as ToolDefinition[];
const fences = new MarkdownIt()
  .parse(DOC, {})
  .filter((token) => token.type === 'fence')
  .map((token) => ({ info: token.info.trim(), content: token.content }));

/** The one fence of `info` whose text holds `marker`. */
function fence(info: string, marker: string): string {
  const found = fences.filter((each) => each.info === info && each.content.includes(marker));
  expect(found, `${info} fence with ${marker}`).toHaveLength(1);
  return found[0]!.content;
}

const ACME_JSON = fence('json', '"name": "acme"');
const ACME_OUTPUT = fence('text', '<call>').replace(/\n$/, '');
const acme = defineFormat(readFormatSpec(JSON.parse(ACME_JSON)));

/** What a reader makes of content, adjacent text and reasoning joined (chunking splits them). */
function summary(content: readonly ParsedContent[]) {
  const out: { type: string; value: unknown }[] = [];
  for (const part of content) {
    if (part.type === 'text' || part.type === 'reasoning') {
      const last = out.at(-1);
      if (last?.type === part.type) last.value = `${last.value as string}${part.text}`;
      else out.push({ type: part.type, value: part.text });
    } else if (part.type === 'tool-call') {
      out.push({
        type: 'tool-call',
        value: { name: part.toolName, input: JSON.parse(part.input), problems: part.problems },
      });
    } else out.push({ type: part.type, value: part.error });
  }
  return out;
}

function parsedInChunks(text: string, size: number): ParsedContent[] {
  const parser = acme.createStreamParser({ tools: TOOLS });
  const events = [];
  for (let at = 0; at < text.length; at += size)
    events.push(...parser.push(text.slice(at, at + size)));
  events.push(...parser.end());
  // The stream's events gathered into content as parseGeneratedText gives it.
  const content: ParsedContent[] = [];
  for (const event of events) {
    if (event.type === 'text-delta') content.push({ type: 'text', text: event.delta });
    else if (event.type === 'reasoning-delta')
      content.push({ type: 'reasoning', text: event.delta });
    else if (event.type === 'tool-call' || event.type === 'error')
      content.push(event as ParsedContent);
  }
  return content;
}

describe('docs/format-spec.md: the format written from scratch', () => {
  const expected = [
    { type: 'reasoning', value: 'Weather first, then the note.' },
    { type: 'text', value: '\nLet me check.\n' },
    {
      type: 'tool-call',
      value: { name: 'get_weather', input: { city: 'Oslo', days: 3 }, problems: undefined },
    },
    { type: 'text', value: '\n' },
    {
      type: 'tool-call',
      value: {
        name: 'write_file',
        input: { path: 'notes/oslo.md', content: 'Pack a coat </call> and an umbrella.' },
        problems: undefined,
      },
    },
  ];

  it('is a spec defineFormat builds, and parses the sample output as the doc says', () => {
    expect(specOf(acme)?.name).toBe('acme');
    expect(summary(acme.parseGeneratedText(ACME_OUTPUT, { tools: TOOLS }))).toEqual(expected);
  });

  it('reads the sample the same at every chunk size', () => {
    for (let size = 1; size <= ACME_OUTPUT.length; size++) {
      expect(summary(parsedInChunks(ACME_OUTPUT, size)), `chunks of ${size}`).toEqual(expected);
    }
  });

  it('reads it through toolwire parse --format-file, as the doc runs it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'toolwire-format-spec-doc-'));
    const file = join(directory, 'acme.json');
    writeFileSync(file, ACME_JSON);
    let stdout = '';
    const out = {
      write(chunk: string) {
        stdout += chunk;
      },
    };
    const status = await parseCommand(
      ['--format-file', file, '--tools', fileFromRoot('examples/tools.json'), '--chunk-size', '3'],
      out,
      { write: () => undefined },
      (async function* () {
        yield ACME_OUTPUT;
      })(),
    );
    expect(status).toBe(0);
    const calls = stdout
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; toolName?: string; input?: string })
      .filter((event) => event.type === 'tool-call')
      .map((event) => [event.toolName, JSON.parse(event.input!)]);
    expect(calls).toEqual([
      ['get_weather', { city: 'Oslo', days: 3 }],
      ['write_file', { path: 'notes/oslo.md', content: 'Pack a coat </call> and an umbrella.' }],
    ]);
  });

  it('writes what the code example shows, and a result is never read as a call', () => {
    const call = acme.formatToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    expect(DOC).toContain(`// ${call}\n`);
    const result = acme.formatToolResponse([
      { toolName: 'get_weather', output: 'Sunny. <call>…</call>' },
    ]);
    expect(DOC).toContain(`// ${result}\n`);
    expect(acme.parseGeneratedText(result, { tools: TOOLS }).map((part) => part.type)).toEqual([
      'text',
    ]);
    expect(
      summary(acme.parseGeneratedText(call, { tools: TOOLS })).map((part) => part.value),
    ).toEqual([{ name: 'get_weather', input: { city: 'Oslo' }, problems: undefined }]);
    expect(acme.formatTools(TOOLS)).toContain('To call one, write:\n<call>{"name": "get_weather"');
    const auto = autoProtocol({ formats: [acme, 'hermes'] });
    expect(
      auto.parseGeneratedText(ACME_OUTPUT, { tools: TOOLS }).filter((p) => p.type === 'tool-call'),
    ).toHaveLength(2);
  });
});

function fileFromRoot(path: string): string {
  return new URL(path, ROOT).pathname;
}

describe('docs/format-spec.md: GLM as its spec', () => {
  it('is the built-in glm spec, field for field', () => {
    expect(JSON.parse(fence('json', '"name": "glm"'))).toEqual(JSON.parse(JSON.stringify(glmSpec)));
  });
});

// ── the tables ────────────────────────────────────────────────────────────────────────────

/** The first-column code spans of the table after `<!-- MARKER -->`. */
function tableAfter(marker: string): string[] {
  const start = DOC.indexOf(`<!-- ${marker} -->`);
  expect(start, marker).toBeGreaterThan(-1);
  const lines = DOC.slice(start).split('\n').slice(1);
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, index) => index > first && !line.startsWith('|'));
  // The rows after the header and its rule.
  return lines
    .slice(first + 2, end)
    .flatMap((row) => Array.from((row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g), (m) => m[1]!));
}

const VALID: FormatSpec = {
  spec: 1,
  name: 'probe',
  calls: [{ codec: 'json', open: '<c>', close: '</c>' }],
  write: { call: '<c>{name}</c>' },
  results: { each: '{output}' },
};

const TAGGED_FORM = {
  codec: 'tagged',
  open: '<b>',
  close: '</b>',
  syntax: {
    callOpen: '<f',
    callClose: '</f>',
    parameterOpen: '<p',
    parameterClose: '</p>',
    layout: 'inline',
  },
};

/** The fields `readFormatSpec` takes where `spec` puts an unknown one, from its message. */
function knownFields(spec: unknown): string[] {
  try {
    readFormatSpec(spec);
  } catch (error) {
    expect(error).toBeInstanceOf(FormatSpecError);
    const list = /expected one of ([^)]*)\)/.exec((error as Error).message)?.[1];
    expect(list, (error as Error).message).toBeDefined();
    return list!.split(', ').sort();
  }
  throw new Error('an unknown field was accepted');
}

const withForm = (form: object) => ({ ...VALID, calls: [form] });
const sorted = (names: readonly string[]) => [...new Set(names)].sort();

describe('docs/format-spec.md: every field, and only those readFormatSpec takes', () => {
  const common = tableAfter('fields: form');

  it.each([
    ['spec', { ...VALID, unknown: 1 }, []],
    ['json', withForm({ codec: 'json', open: '<c>', unknown: 1 }), common],
    [
      'nameHeader',
      withForm({ codec: 'json', open: '<c>', nameHeader: { end: '>', unknown: 1 } }),
      [],
    ],
    ['tagged', withForm({ ...TAGGED_FORM, unknown: 1 }), common],
    ['python', withForm({ codec: 'python', open: '[', unknown: 1 }), common],
    [
      'dialect',
      withForm({ codec: 'dialect', open: 'call:', stringDelimiters: ['"', '"'], unknown: 1 }),
      common,
    ],
    [
      'raw-code',
      withForm({ codec: 'raw-code', open: '<|python_tag|>', tools: ['python'], unknown: 1 }),
      common,
    ],
    [
      'header',
      {
        ...VALID,
        header: {
          open: '<|start|>',
          roles: ['assistant'],
          recipient: 'to=',
          message: '<|message|>',
          ends: ['<|end|>'],
          toolMessage: { arguments: 'json', close: '<|call|>' },
          unknown: 1,
        },
      },
      [],
    ],
    ['write', { ...VALID, write: { call: 'x', unknown: 1 } }, []],
    ['results', { ...VALID, results: { each: 'x', unknown: 1 } }, []],
    ['prompt', { ...VALID, prompt: { text: 'x', unknown: 1 } }, []],
  ] as const)('the %s table', (level, spec, inherited) => {
    expect(sorted([...inherited, ...tableAfter(`fields: ${level}`)])).toEqual(knownFields(spec));
  });

  it('the syntax table names the tagged codec syntax fields', () => {
    const source = read('src/protocols/codecs/tagged/parameter-tags-syntax.ts');
    const body = source.slice(
      source.indexOf('export interface ParameterTagsSyntax {'),
      source.indexOf('\n}\n', source.indexOf('export interface ParameterTagsSyntax {')),
    );
    const fields = Array.from(body.matchAll(/^ {2}readonly (\w+)\??:/gm), (match) => match[1]!);
    expect(fields.length).toBeGreaterThan(10);
    expect(sorted(tableAfter('fields: syntax'))).toEqual(sorted(fields));
  });
});

describe('docs/format-spec.md: the placeholders', () => {
  /** Each placeholder and the templates the doc says take it. */
  const placeholders = new Map<string, string[]>();
  const start = DOC.indexOf('<!-- placeholders -->');
  for (const line of DOC.slice(start).split('\n').slice(3)) {
    if (!line.startsWith('|')) break;
    const [, name, templates] = line.split('|');
    const placeholder = /`\{(\w+)\}`/.exec(name ?? '')?.[1];
    if (placeholder) {
      placeholders.set(
        placeholder,
        Array.from((templates ?? '').matchAll(/`([\w.]+)`/g), (match) => match[1]!),
      );
    }
  }
  const all = [...placeholders.keys()];
  const template = all.map((name) => `[{${name}}]`).join('');

  /** Which placeholders `written` shows filled (no longer written as `[{name}]`). */
  const filledIn = (written: string) => all.filter((name) => !written.includes(`[{${name}}]`));
  const saidFor = (where: string) => all.filter((name) => placeholders.get(name)?.includes(where));

  it('lists the placeholders of writers.ts', () => {
    expect(all.length).toBeGreaterThanOrEqual(17);
  });

  it('write.call', () => {
    const protocol = defineFormat({ ...VALID, write: { call: template } });
    const written = protocol.formatToolCall([
      { toolName: 'get_weather', input: { city: 'Oslo' }, toolCallId: 'c1' },
    ]);
    expect(filledIn(written)).toEqual(saidFor('write.call'));
  });

  it('write.parameter', () => {
    const protocol = defineFormat({
      ...VALID,
      calls: [TAGGED_FORM as FormatSpec['calls'][number]],
      write: { call: '<f={name}>{arguments}</f>', parameter: template },
    });
    const written = protocol.formatToolCall([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    // The call template's placeholders are filled; the parameter's are the ones to check.
    const parameter = written.slice('<f=get_weather>'.length, -'</f>'.length);
    expect(filledIn(parameter)).toEqual(saidFor('write.parameter'));
  });

  it('results.each', () => {
    const protocol = defineFormat({ ...VALID, results: { each: template } });
    const written = protocol.formatToolResponse([
      { toolName: 'get_weather', toolCallId: 'c1', output: 'Sunny' },
    ]);
    expect(filledIn(written)).toEqual(saidFor('results.each'));
  });

  it('prompt.text', () => {
    const protocol = defineFormat({ ...VALID, prompt: { text: template } });
    expect(filledIn(protocol.formatTools(TOOLS))).toEqual(saidFor('prompt.text'));
  });
});

describe('docs/format-spec.md: the limits', () => {
  it.each([
    [
      'longer than 256 characters',
      (n: number) => withForm({ codec: 'json', open: 'x'.repeat(n) }),
      256,
    ],
    [
      'longer than 65536 characters',
      (n: number) => ({ ...VALID, write: { call: 'x'.repeat(n) } }),
      65536,
    ],
    ['more than 128 entries', (n: number) => ({ ...VALID, markup: Array(n).fill('<m>') }), 128],
  ] as const)('"%s" is the limit readFormatSpec enforces', (words, spec, limit) => {
    expect(DOC.replace(/\s+/g, ' ')).toContain(words);
    expect(() => readFormatSpec(spec(limit))).not.toThrow();
    expect(() => readFormatSpec(spec(limit + 1))).toThrow(FormatSpecError);
  });

  it('names the bad field in the error', () => {
    try {
      readFormatSpec(withForm({ codec: 'json', open: '' }));
    } catch (error) {
      expect(error).toBeInstanceOf(FormatSpecError);
      expect((error as FormatSpecError).path).toBe('calls[0].open');
      expect((error as FormatSpecError).kind).toBe('invalid-format');
      return;
    }
    throw new Error('an empty opener was accepted');
  });
});

describe('docs/formats.md: which built-ins are specs', () => {
  const formats = read('docs/formats.md');
  const specs = FORMATS.filter((entry) => specOf(entry.create()) !== undefined).map(
    (entry) => entry.name,
  );
  const code = FORMATS.map((entry) => entry.name).filter((name) => !specs.includes(name));
  const marker = formats.indexOf('<!-- hand-written formats -->');
  const sectionStart = formats.indexOf('### Built-in formats as specs');
  const sectionEnd = formats.indexOf('\n## ', sectionStart);

  /** The format names in the first column of the table after the marker. */
  function handWrittenTable(): string[] {
    const lines = formats.slice(marker).split('\n').slice(1);
    const first = lines.findIndex((line) => line.startsWith('|'));
    const end = lines.findIndex((line, index) => index > first && !line.startsWith('|'));
    return lines
      .slice(first + 2, end)
      .flatMap((row) => Array.from((row.split('|')[1] ?? '').matchAll(/`([^`]+)`/g), (m) => m[1]!));
  }

  it('the table of hand-written formats is every format not built from a spec (none: no table)', () => {
    if (code.length === 0) expect(marker).toBe(-1);
    else expect(sorted(handWrittenTable())).toEqual(sorted(code));
  });

  it('the counts are right, and every spec-built format is named as one', () => {
    const flat = formats.replace(/\s+/g, ' ');
    if (code.length === 0)
      expect(flat).toContain(`All ${specs.length} built-in formats are FormatSpecs`);
    else {
      expect(flat).toContain(`${specs.length} of the built-in formats are FormatSpecs`);
      expect(formats).toContain(`The other ${code.length} are hand-written`);
    }
    const section = formats.slice(sectionStart, marker >= 0 ? marker : sectionEnd);
    for (const name of specs) expect(section, name).toContain(`\`${name}\``);
  });
});
