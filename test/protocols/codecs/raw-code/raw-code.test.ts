/**
 * The raw-code codec: code up to its end literal (or the output's end) is one call of the code
 * tool, streamed once its first line ends; the spec's check of its fields; and linear work on a
 * long line of code in one-character chunks (counted, not timed).
 */
import { describe, expect, it } from 'vitest';
import type { ParseEvent, ToolDefinition } from '../../../../src/index.ts';
import {
  openRawCode,
  RawCodeBody,
  rawCodeArgumentText,
} from '../../../../src/protocols/codecs/raw-code/raw-code-body.ts';
import {
  RAW_CODE_FIELDS,
  type RawCodeSpec,
  rawCodeProblem,
} from '../../../../src/protocols/codecs/raw-code/raw-code-spec.ts';
import type { CallContext, CallOutcome } from '../../../../src/protocols/engine/call-body.ts';
import { resolveParseOptions } from '../../../../src/protocols/engine/stream-engine.ts';
import { defineFormat } from '../../../../src/protocols/spec/define.ts';
import { contentAtEverySplit, counterIds, streamEvents } from '../../helpers.ts';

const python: ToolDefinition = {
  name: 'python',
  inputSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
};

/** A format whose only reader is raw code after `<code>`, up to `</code>` or `<|end|>`. */
function codeFormat(spec: Partial<RawCodeSpec> = {}) {
  const code: RawCodeSpec = {
    tools: ['ipython', 'python'],
    closeAlternatives: ['<|end|>'],
    ...spec,
  };
  return defineFormat(
    {
      spec: 1,
      name: 'raw-code-test',
      calls: [{ codec: 'json', open: '<call>', close: '</call>' }],
      write: { call: '<call>{"name": {name_json}, "arguments": {arguments}}</call>' },
      results: { each: '{output}' },
    },
    {
      readers: [
        { name: 'raw code', open: ['<code>'], read: (c) => openRawCode(c, code, '</code>') },
      ],
    },
  );
}

const codeOf = (content: unknown[]) =>
  content.flatMap((part) => {
    const p = part as { type: string; input?: string };
    return p.type === 'tool-call' ? [JSON.parse(p.input!).code] : [];
  });
const textOfContent = (content: unknown[]) =>
  content
    .flatMap((part) => {
      const p = part as { type: string; text?: string };
      return p.type === 'text' ? [p.text] : [];
    })
    .join('');

describe('raw-code codec', () => {
  it('reads the code up to the first end literal, whole and at every split', () => {
    for (const [text, code, rest] of [
      ['<code>import os\nprint(1 < 2)</code>after', 'import os\nprint(1 < 2)', 'after'],
      ['<code>x = "</cod"\n<|end|>', 'x = "</cod"\n', ''],
      ['<code>print(1)', 'print(1)', ''],
    ] as const) {
      const content = contentAtEverySplit(codeFormat(), text, { tools: [python] });
      expect(codeOf(content), text).toEqual([code]);
      expect(textOfContent(content), text).toBe(rest);
    }
  });

  it('trimEnd drops the white space at the code end; without it the code is kept as written', () => {
    const text = '<code>x = 1  \n\n</code>';
    expect(
      codeOf(contentAtEverySplit(codeFormat({ trimEnd: true }), text, { tools: [python] })),
    ).toEqual(['x = 1']);
    expect(codeOf(contentAtEverySplit(codeFormat(), text, { tools: [python] }))).toEqual([
      'x = 1  \n\n',
    ]);
  });

  it('is text when no code tool is declared, or when the code is only white space', () => {
    for (const [text, tools] of [
      ['<code>print(1)</code>', []],
      ['<code> \n </code>', [python]],
    ] as const) {
      const content = contentAtEverySplit(codeFormat(), text, { tools });
      expect(codeOf(content), text).toEqual([]);
      expect(textOfContent(content), text).toBe(text);
    }
  });

  it('gives the code to the first declared of its tools, as its argument', () => {
    const ipython = { ...python, name: 'ipython', inputSchema: { type: 'object' } };
    const events = streamEvents(codeFormat({ argument: 'source' }), ['<code>1</code>'], {
      tools: [python, ipython],
    });
    const call = events.find((event) => event.type === 'tool-call') as Extract<
      ParseEvent,
      { type: 'tool-call' }
    >;
    expect(call.toolName).toBe('ipython');
    expect(JSON.parse(call.input)).toEqual({ source: '1' });
  });

  it('never runs code cut off by an interrupted output', () => {
    const content = contentAtEverySplit(
      codeFormat(),
      '<code>import os\nos.rem',
      { tools: [python] },
      { interrupted: true },
    );
    expect(codeOf(content)).toEqual([]);
    expect(content).toContainEqual(
      expect.objectContaining({
        type: 'error',
        error: expect.objectContaining({ code: 'incomplete-call' }),
      }),
    );
  });

  it('streams nothing before the first line ends, then streams as the code comes', () => {
    const parser = codeFormat().createStreamParser({ tools: [python] });
    const deltas = (events: readonly ParseEvent[]) =>
      events.filter((event) => event.type === 'tool-input-delta').length;
    expect(deltas(parser.push('<code>brave_search.call('))).toBe(0);
    expect(deltas(parser.push('x)\nprint(2)'))).toBeGreaterThan(0);
  });

  it('never splits a surrogate pair between two deltas', () => {
    const text = '<code>x\n"😀😀"</code>';
    const parser = codeFormat().createStreamParser({ tools: [python] });
    const pieces: string[] = [];
    for (const character of text.split('')) {
      for (const event of parser.push(character)) {
        if (event.type === 'tool-input-delta') pieces.push(event.delta);
      }
    }
    expect(pieces.length).toBeGreaterThan(1);
    // JSON.stringify escapes half a pair alone (`\ud83d`): no piece may hold such an escape.
    for (const piece of pieces) expect(piece).not.toMatch(/\\ud[89ab]/i);
  });

  it('writes the code argument as it is', () => {
    expect(rawCodeArgumentText({ code: 'print(1)' }, { tools: ['python'] })).toBe('print(1)');
    expect(rawCodeArgumentText({ src: 'x' }, { tools: ['python'], argument: 'src' })).toBe('x');
    expect(rawCodeArgumentText({ code: 1 }, { tools: ['python'] })).toBe('');
  });
});

describe('raw-code codec: its check', () => {
  const fields = (value: Record<string, unknown>) => (key: string) => value[key];

  it('takes a list of tools and optional fields of the right types', () => {
    expect(rawCodeProblem(fields({ tools: ['python'] }))).toBeUndefined();
    expect(
      rawCodeProblem(
        fields({ tools: ['python'], argument: 'src', closeAlternatives: ['<|x|>'], trimEnd: true }),
      ),
    ).toBeUndefined();
    expect(RAW_CODE_FIELDS).toEqual(['tools', 'argument', 'closeAlternatives', 'trimEnd']);
  });

  it.each([
    [{}, 'tools'],
    [{ tools: [] }, 'tools'],
    [{ tools: [''] }, 'tools'],
    [{ tools: ['python'], argument: '' }, 'argument'],
    [{ tools: ['python'], closeAlternatives: 'x' }, 'closeAlternatives'],
    [{ tools: ['python'], trimEnd: 'yes' }, 'trimEnd'],
  ])('names the bad field: %j', (value, field) => {
    expect(rawCodeProblem(fields(value))?.field).toBe(field);
  });
});

/** A context that counts the characters a body copies out of the call's text. */
function countingContext(): {
  context: CallContext;
  copied: () => number;
  append: (s: string) => void;
  outcome: () => CallOutcome | undefined;
} {
  let raw = '';
  let copied = 0;
  let outcome: CallOutcome | undefined;
  const context: CallContext = {
    options: resolveParseOptions({ tools: [python], generateId: counterIds() }),
    emit: () => {},
    inputDelta: () => {},
    emitText: () => {},
    reportFault: () => {},
    get callLength() {
      return raw.length;
    },
    callText: (start, end = raw.length) => {
      copied += end - start;
      return raw.slice(start, end);
    },
    settle: (value) => {
      outcome = value;
    },
  };
  return {
    context,
    copied: () => copied,
    append: (s) => {
      raw += s;
    },
    outcome: () => outcome,
  };
}

describe('raw-code codec: linear work', () => {
  it.each([
    ['one long first line', (size: number) => 'x'.repeat(size)],
    ['a long run of white space (trimmed)', (size: number) => `x\n${' '.repeat(size)}`],
    ['end literals begun and broken', (size: number) => `x\n${'</cod'.repeat(size / 5)}`],
  ])('%s, one character a write, copies a bounded number of characters each', (_label, make) => {
    const copiedFor = (size: number) => {
      const { context, copied, append, outcome } = countingContext();
      const body = new RawCodeBody(context, python, { ends: ['</code>'], trimEnd: true }, 0);
      const text = `${make(size)}</code>`;
      let stop = -1;
      for (let index = 0; index < text.length && stop === -1; index++) {
        append(text[index]!);
        stop = body.write(text, index, index + 1);
      }
      expect(stop).toBe(text.length);
      expect(outcome()?.kind).toBe('call');
      return copied();
    };
    const small = copiedFor(1000);
    const large = copiedFor(16000);
    expect(large).toBeLessThanOrEqual(20 * Math.max(small, 1));
  });
});
