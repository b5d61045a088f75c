import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/http/http-error.ts';
import {
  OllamaChatBuilder,
  OllamaChatLines,
  type OllamaReplyIdentity,
  ollamaDoneReason,
  ollamaLoadReply,
} from '../../../src/proxy/ollama/response.ts';
import type { ReplyEvent } from '../../../src/proxy/reply-events.ts';
import type { ReplyEnd } from '../../../src/proxy/reply-run.ts';

/** A clock the test moves: the request arrives at 1,000 ms. */
function identity(): OllamaReplyIdentity & { tick(ms: number): void } {
  let now = 1000;
  return {
    model: 'llama3.2',
    startedAt: 1000,
    now: () => now,
    date: () => Date.UTC(2026, 10, 28, 8, 0, 0),
    tick(ms: number) {
      now += ms;
    },
  };
}

const CREATED_AT = '2026-11-28T08:00:00.000Z';

const END: ReplyEnd = {
  finishReason: 'tool_calls',
  calls: 1,
  usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
};

const lines = (text: string): unknown[] =>
  text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line));

const CALL: ReplyEvent[] = [
  { type: 'call-start', id: 'call_1', name: 'get_weather' },
  { type: 'call-delta', id: 'call_1', delta: '{"city":' },
  { type: 'call-delta', id: 'call_1', delta: '"Paris"}' },
  { type: 'call-end', id: 'call_1', name: 'get_weather', input: '{"city":"Paris"}' },
];

describe('Ollama NDJSON lines', () => {
  it('writes text and thinking as message pieces, one line per run, each ending in a newline', () => {
    const writer = new OllamaChatLines(identity());
    const out = writer.encode([
      { type: 'reasoning', delta: 'Hmm, ' },
      { type: 'reasoning', delta: 'greet.' },
      { type: 'text', delta: 'Hel' },
      { type: 'text', delta: 'lo' },
      { type: 'text', delta: '' },
    ]);
    expect(out.endsWith('\n')).toBe(true);
    expect(lines(out)).toEqual([
      {
        model: 'llama3.2',
        created_at: CREATED_AT,
        message: { role: 'assistant', content: '', thinking: 'Hmm, greet.' },
        done: false,
      },
      {
        model: 'llama3.2',
        created_at: CREATED_AT,
        message: { role: 'assistant', content: 'Hello' },
        done: false,
      },
    ]);
  });

  it('writes a call whole once read, its arguments an object, with its id and index', () => {
    const writer = new OllamaChatLines(identity());
    expect(writer.encode(CALL.slice(0, 3))).toBe('');
    const first = lines(writer.encode(CALL.slice(3)));
    const second = lines(
      writer.encode([
        { type: 'call-start', id: 'call_2', name: 'get_time' },
        { type: 'call-end', id: 'call_2', name: 'get_time', input: '{\n  "zone": "CET"\n}' },
      ]),
    );
    expect(first).toEqual([
      {
        model: 'llama3.2',
        created_at: CREATED_AT,
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [
            {
              id: 'call_1',
              function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
            },
          ],
        },
        done: false,
      },
    ]);
    expect(second).toMatchObject([
      {
        message: {
          tool_calls: [
            { id: 'call_2', function: { index: 1, name: 'get_time', arguments: { zone: 'CET' } } },
          ],
        },
      },
    ]);
  });

  it('writes nothing for an abandoned call: its raw text follows as text', () => {
    const writer = new OllamaChatLines(identity());
    const out = writer.encode([
      { type: 'call-start', id: 'call_1', name: 'get_weather' },
      { type: 'call-abandoned', id: 'call_1' },
      { type: 'text', delta: '<tool_call>{"name"' },
    ]);
    expect(lines(out)).toMatchObject([{ message: { content: '<tool_call>{"name"' } }]);
  });

  it('ends with done: true, the done reason, the timings in nanoseconds and the token counts', () => {
    const clock = identity();
    const writer = new OllamaChatLines(clock);
    clock.tick(250);
    writer.encode([{ type: 'text', delta: 'Hi' }]);
    clock.tick(500);
    const out = writer.finish(END);
    expect(out.endsWith('\n')).toBe(true);
    expect(lines(out)).toEqual([
      {
        model: 'llama3.2',
        created_at: CREATED_AT,
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        total_duration: 750_000_000,
        load_duration: 0,
        prompt_eval_count: 11,
        prompt_eval_duration: 250_000_000,
        eval_count: 7,
        eval_duration: 500_000_000,
      },
    ]);
  });

  it('leaves the counts out when the model server reported no usage', () => {
    const last = lines(
      new OllamaChatLines(identity()).finish({
        finishReason: 'length',
        calls: 0,
        usage: undefined,
      }),
    )[0] as Record<string, unknown>;
    expect(last.done_reason).toBe('length');
    expect(last).not.toHaveProperty('prompt_eval_count');
    expect(last).not.toHaveProperty('eval_count');
  });

  it("writes an error after the stream began as Ollama's error line", () => {
    const out = new OllamaChatLines(identity()).error(
      new HttpError(502, 'the model server went away'),
    );
    expect(out).toBe('{"error":"the model server went away"}\n');
  });

  it('escapes what would break a line: a newline in text stays inside its JSON string', () => {
    const out = new OllamaChatLines(identity()).encode([{ type: 'text', delta: 'a\nb\u2028c' }]);
    expect(out.split('\n')).toHaveLength(2);
    expect(lines(out)).toMatchObject([{ message: { content: 'a\nb\u2028c' } }]);
  });
});

describe('Ollama whole replies', () => {
  it('collects text, thinking and calls into one message with the final fields', () => {
    const clock = identity();
    const builder = new OllamaChatBuilder(clock);
    clock.tick(100);
    builder.add([
      { type: 'reasoning', delta: 'Paris weather.' },
      { type: 'text', delta: '\n' },
      ...CALL,
    ]);
    clock.tick(300);
    expect(builder.build(END)).toEqual({
      model: 'llama3.2',
      created_at: CREATED_AT,
      message: {
        role: 'assistant',
        content: '',
        thinking: 'Paris weather.',
        tool_calls: [
          {
            id: 'call_1',
            function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } },
          },
        ],
      },
      done: true,
      done_reason: 'stop',
      total_duration: 400_000_000,
      load_duration: 0,
      prompt_eval_count: 11,
      prompt_eval_duration: 100_000_000,
      eval_count: 7,
      eval_duration: 300_000_000,
    });
  });

  it('keeps text as content when there are no calls, and leaves out what is empty', () => {
    const builder = new OllamaChatBuilder(identity());
    builder.add([{ type: 'text', delta: '  Hello ' }]);
    const reply = builder.build({ finishReason: 'stop', calls: 0, usage: undefined });
    expect(reply.message).toEqual({ role: 'assistant', content: '  Hello ' });
  });
});

describe('Ollama done reasons and load replies', () => {
  it('says stop for a reply that made calls, length for one cut short, and passes on others', () => {
    expect(ollamaDoneReason('stop')).toBe('stop');
    expect(ollamaDoneReason('tool_calls')).toBe('stop');
    expect(ollamaDoneReason('length')).toBe('length');
    expect(ollamaDoneReason('content_filter')).toBe('content_filter');
  });

  it('answers a load at once', () => {
    expect(ollamaLoadReply('llama3.2', 'unload', () => Date.UTC(2026, 10, 28, 8))).toEqual({
      model: 'llama3.2',
      created_at: CREATED_AT,
      message: { role: 'assistant', content: '' },
      done: true,
      done_reason: 'unload',
    });
  });
});
