/**
 * What an opener opens (CallOpener.kind), as its format declares it, outranks what auto would
 * guess from the opener's data: framing a later format drops yields to an earlier format's sure
 * call of the same literal, whatever the data of either looks like.
 */
import { describe, expect, it } from 'vitest';
import type { ParseEvent } from '../../../src/core/index.ts';
import { autoProtocol, defineProtocol, FORMATS } from '../../../src/index.ts';
import { openerCallStarts, openerKind } from '../../../src/protocols/auto/opener-kind.ts';
import { grammarOf } from '../../../src/protocols/define/define-protocol.ts';
import type { CallBody, CallContext } from '../../../src/protocols/engine/call-body.ts';
import {
  type CallOpener,
  type CallOpenerKind,
  resolveParseOptions,
} from '../../../src/protocols/engine/stream-engine.ts';
import { specOf } from '../../../src/protocols/spec/define.ts';
import { contentAtEverySplit, TOOLS } from '../helpers.ts';

/** A call of `go` once "go" follows the opener. */
function goBody(context: CallContext): CallBody {
  let read = '';
  return {
    write(text, start, end) {
      for (let index = start; index < end; index++) {
        read += text[index];
        if (!'go'.startsWith(read)) {
          context.settle({ kind: 'not-a-call' });
          return index;
        }
        if (read === 'go') {
          const events: ParseEvent[] = [
            { type: 'tool-input-start', id: 'c', toolName: 'go' },
            { type: 'tool-input-delta', id: 'c', delta: '{}' },
            { type: 'tool-input-end', id: 'c' },
            { type: 'tool-call', toolCallId: 'c', toolName: 'go', input: '{}' },
          ];
          for (const event of events) context.emit(event);
          context.settle({ kind: 'call' });
          return index + 1;
        }
      }
      return -1;
    },
    finish() {
      context.settle({ kind: 'not-a-call' });
    },
    abandon() {},
  };
}

/** Framing: dropped as soon as it is met. */
function framingBody(context: CallContext): CallBody {
  return {
    write(_text, start) {
      context.settle({ kind: 'markup' });
      return start;
    },
    finish() {
      context.settle({ kind: 'markup' });
    },
    abandon() {},
  };
}

function format(name: string, opener: CallOpener<unknown>, body: typeof goBody) {
  const openers = [opener];
  return defineProtocol<unknown>({
    name,
    grammar: {
      callOpeners: () => openers,
      openCall: (_data, context) => body(context),
      reasoningTags: [],
    },
    formatTools: () => '',
    formatToolCall: () => '',
    formatToolResponse: () => '',
  });
}

function readers(kinds: { call?: CallOpenerKind; framing?: CallOpenerKind }) {
  // The call's data looks like nothing auto knows; the framing's looks like a JSON call.
  const call = format(
    'caller',
    { literal: '<x>', delimited: false, data: 'go', ...(kinds.call ? { kind: kinds.call } : {}) },
    goBody,
  );
  const framing = format(
    'framer',
    {
      literal: '<x>',
      delimited: false,
      data: { codec: 'json' },
      ...(kinds.framing ? { kind: kinds.framing } : {}),
    },
    framingBody,
  );
  return autoProtocol({ prompt: call, formats: [call, framing] });
}

describe('declared opener kinds', () => {
  it('a declared kind wins over the guess from the data', () => {
    expect(
      openerKind({
        literal: '<x>',
        delimited: false,
        data: { markup: true },
        kind: 'call',
      } as CallOpener<unknown>),
    ).toBe('call');
    expect(openerKind({ literal: '<x>', delimited: false, data: { markup: true } })).toBe(
      'framing',
    );
    expect(openerKind({ literal: '<x>', delimited: false, data: { speculative: true } })).toBe(
      'speculative',
    );
    expect(openerKind({ literal: '<x>', delimited: false, data: 'go' })).toBe('speculative');
  });

  it("guesses nothing from a spec's data, which declares what it opens", () => {
    // A spec's markup and speculative JSON forms declare their kind; undeclared, such data is a call.
    expect(openerKind({ literal: '<x>', delimited: false, data: { codec: 'markup' } })).toBe(
      'call',
    );
    const jsonLines = { codec: 'json', config: { perLine: true, speculative: true } };
    expect(openerKind({ literal: '<x>', delimited: false, data: jsonLines })).toBe('call');
    expect(openerCallStarts({ literal: '<x>', delimited: false, data: jsonLines })).toBe(undefined);
    expect(
      openerCallStarts({
        literal: '<x>',
        delimited: false,
        data: jsonLines,
        callStarts: '{',
      } as CallOpener<unknown>),
    ).toBe('{');
  });

  it('every built-in spec declares the kind of each opener; only hand-written formats are guessed', () => {
    const options = resolveParseOptions({ tools: TOOLS });
    for (const entry of FORMATS) {
      const protocol = entry.create();
      const openers = grammarOf(protocol)!.callOpeners(options) as readonly CallOpener<unknown>[];
      const undeclared = openers.filter((opener) => opener.kind === undefined);
      if (undeclared.length === 0) continue;
      expect(specOf(protocol), `${entry.name} is a spec with undeclared openers`).toBe(undefined);
    }
  });

  it('framing yields to an earlier sure call of the same literal when both say what they are', () => {
    const declared = readers({ call: 'call', framing: 'framing' });
    expect(contentAtEverySplit(declared, 'a <x>go b', { tools: [] })).toEqual([
      { type: 'text', text: 'a ' },
      { type: 'tool-call', toolName: 'go', input: '{}' },
      { type: 'text', text: ' b' },
    ]);
    // Guessed from the data alone, the framing (which looks like a call) is read first.
    const guessed = readers({});
    const content = contentAtEverySplit(guessed, 'a <x>go b', { tools: [] }) as { type: string }[];
    expect(content.some((part) => part.type === 'tool-call')).toBe(false);
  });
});
