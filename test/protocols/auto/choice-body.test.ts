/**
 * ChoiceBody on its own, with scripted formats: each format's body reads one word and commits
 * (a call) when the word is whole, gives up on a character it does not expect, and faults on
 * `!`. What it must do: choose the format that commits first, break a tie by precedence, let a
 * fault stand only once every other format gave up, hand the text back when none reads it, and
 * choose the same way however the text is cut into writes.
 */
import { describe, expect, it } from 'vitest';
import type { ParseEvent } from '../../../src/core/index.ts';
import {
  type Candidate,
  type CandidateGroup,
  ChoiceBody,
  candidateGroup,
} from '../../../src/protocols/auto/choice-body.ts';
import type {
  CallBody,
  CallContext,
  CallOutcome,
} from '../../../src/protocols/engine/call-body.ts';
import {
  type ProtocolGrammar,
  resolveParseOptions,
} from '../../../src/protocols/engine/stream-engine.ts';

/** The opener every scripted format shares. */
const OPENER = '<call>';

/** A body that reads `word`: a call named `label` once it is whole. */
function wordBody(word: string, label: string, context: CallContext): CallBody {
  let matched = 0;
  return {
    write(text, start, end) {
      for (let index = start; index < end; index++) {
        const char = text[index]!;
        if (char === word[matched]) {
          matched++;
          if (matched === word.length) {
            context.emit({ type: 'tool-call', toolCallId: label, toolName: label, input: '{}' });
            context.settle({ kind: 'call' });
            return index + 1;
          }
        } else if (char === '!') {
          context.settle({ kind: 'fault', code: 'malformed-call', message: `${label} broke` });
          return index + 1;
        } else {
          context.settle({ kind: 'not-a-call' });
          return index;
        }
      }
      return -1;
    },
    finish() {
      context.settle({ kind: 'fault', code: 'incomplete-call', message: `${label} cut off` });
    },
    abandon() {},
  };
}

function format(word: string, label: string, order: number, rest = ''): Candidate {
  const grammar = {
    openCall: (_data: unknown, context: CallContext) => wordBody(word, label, context),
  } as unknown as ProtocolGrammar<unknown>;
  return { grammar, data: undefined, rest, delimited: false, order };
}

function group(ready: Candidate[], longer: Candidate[] = []): CandidateGroup {
  const byNextCode = new Map<number, Candidate[]>();
  for (const candidate of longer) {
    const code = candidate.rest.charCodeAt(0);
    byNextCode.set(code, [...(byNextCode.get(code) ?? []), candidate]);
  }
  return candidateGroup(OPENER, ready, byNextCode, []);
}

interface Reading {
  readonly events: ParseEvent[];
  readonly text: string;
  readonly outcome: CallOutcome | undefined;
  /** Where the call ended in the whole text after the opener, or -1 while it goes on. */
  readonly end: number;
}

/**
 * Feeds `chunks` (the text after the opener) to a ChoiceBody as the engine would: `callLength`
 * counts the opener and everything written so far, the current write included.
 */
function read(candidates: CandidateGroup, chunks: readonly string[], finish = false): Reading {
  const events: ParseEvent[] = [];
  let text = '';
  let outcome: CallOutcome | undefined;
  let written = OPENER;
  const context: CallContext = {
    options: resolveParseOptions({ tools: [] }),
    emit: (event) => events.push(event),
    inputDelta: (id, delta) => events.push({ type: 'tool-input-delta', id, delta }),
    emitText: (more) => {
      text += more;
    },
    reportFault: () => {},
    get callLength() {
      return written.length;
    },
    callText: (start, end = written.length) => written.slice(start, end),
    settle: (settled) => {
      outcome = settled;
    },
  };
  const body = new ChoiceBody(candidates, context);
  for (const chunk of chunks) {
    const start = written.length;
    written += chunk;
    const stop = body.write(written, start, written.length);
    if (stop !== -1) return { events, text, outcome, end: stop - OPENER.length };
  }
  if (finish) body.finish(false);
  return { events, text, outcome, end: -1 };
}

/** Every way to cut `text` in two writes, and one character a write. */
function cuts(text: string): string[][] {
  const all = [[text], [...text]];
  for (let at = 1; at < text.length; at++) all.push([text.slice(0, at), text.slice(at)]);
  return all;
}

const called = (reading: Reading) =>
  reading.events.filter((event) => event.type === 'tool-call').map((event) => event.toolName);

describe('ChoiceBody', () => {
  it('chooses the format that reads the call, and ends where its call ends', () => {
    const formats = group([format('alpha', 'A', 0), format('beta', 'B', 1)]);
    for (const chunks of cuts('beta and more')) {
      const reading = read(formats, chunks);
      expect(called(reading), chunks.join('|')).toEqual(['B']);
      expect(reading.outcome).toEqual({ kind: 'call' });
      expect(reading.end).toBe('beta'.length);
    }
  });

  it('chooses the format that commits first, not the first in precedence', () => {
    // "go" is whole two characters before "goal": the later format has read a call first.
    const formats = group([format('goal', 'first', 0), format('go', 'second', 1)]);
    for (const chunks of cuts('goal')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['second']);
    }
  });

  it('breaks a tie (both commit at the same character) by precedence', () => {
    const formats = group(
      [format('go', 'later', 1), format('go', 'earlier', 0)].sort((a, b) => a.order - b.order),
    );
    for (const chunks of cuts('go')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['earlier']);
    }
  });

  it('lets a fault stand only once every other format gave up', () => {
    const formats = group([format('ab', 'strict', 0), format('a!c', 'lenient', 1)]);
    for (const chunks of cuts('a!c')) {
      const reading = read(formats, chunks);
      expect(called(reading), chunks.join('|')).toEqual(['lenient']);
      expect(reading.outcome).toEqual({ kind: 'call' });
    }
    for (const chunks of cuts('a!d')) {
      const reading = read(formats, chunks);
      expect(called(reading), chunks.join('|')).toEqual([]);
      expect(reading.outcome, chunks.join('|')).toMatchObject({
        kind: 'fault',
        message: 'strict broke',
      });
    }
  });

  it('is not a call when no format reads it: the text goes on where the last format gave up', () => {
    const formats = group([format('abc', 'A', 0), format('abd', 'B', 1)]);
    for (const chunks of cuts('abx rest')) {
      const reading = read(formats, chunks);
      expect(reading.events, chunks.join('|')).toEqual([]);
      expect(reading.outcome).toEqual({ kind: 'not-a-call' });
      expect(reading.end, chunks.join('|')).toBe(2);
    }
  });

  it('lets a longer opener that begins with the shared one join on its next character', () => {
    // "<call>" shared; "<call>X" is a longer opener whose body then reads "y".
    const formats = group([format('Xz', 'short', 0)], [format('y', 'long', 1, 'X')]);
    for (const chunks of cuts('Xy')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['long']);
    }
    for (const chunks of cuts('Xz')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['short']);
    }
  });

  it('at the end of the output, undecided, settles the fault of the first format in order', () => {
    const formats = group([format('abc', 'A', 0), format('abd', 'B', 1)]);
    const reading = read(formats, ['ab'], true);
    expect(reading.events).toEqual([]);
    expect(reading.outcome).toMatchObject({ kind: 'fault', message: 'A cut off' });
  });

  it('reads a call whose start leaves one format at once, worked out once per start', () => {
    let opened = 0;
    const counted = (word: string, label: string, order: number): Candidate => {
      const grammar = {
        openCall: (_data: unknown, context: CallContext) => {
          opened++;
          return wordBody(word, label, context);
        },
      } as unknown as ProtocolGrammar<unknown>;
      return { grammar, data: undefined, rest: '', delimited: false, order };
    };
    const formats = group([counted('abc', 'A', 0), counted('xyz', 'X', 1)]);
    for (const chunks of cuts('xyz')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['X']);
    }
    // The start "x" is decided: only X's body opens, once, for the whole call.
    opened = 0;
    expect(called(read(formats, ['xyz']))).toEqual(['X']);
    expect(opened).toBe(1);
    expect(formats.decisions.get('x')?.map((candidate) => candidate.order)).toEqual([1]);
  });

  it('lets a shorter opener inside the shared one read its end first (its lead)', () => {
    // "<call>" was matched; a format whose own opener is "<ca" reads "ll>" and then "x".
    const short = { ...format('ll>x', 'short', 0), lead: 'll>' };
    const formats = group([short, format('y', 'long', 1)]);
    for (const chunks of cuts('x')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['short']);
    }
    for (const chunks of cuts('y')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['long']);
    }
    // A lead the format does not read leaves it out.
    const wrong = group([{ ...format('zz', 'short', 0), lead: 'll>' }, format('y', 'long', 1)]);
    for (const chunks of cuts('y')) {
      expect(called(read(wrong, chunks)), chunks.join('|')).toEqual(['long']);
    }
  });

  it('leaves out a format whose calls cannot start with the first character of the call', () => {
    // Both read "{x"; the first declares that its calls start with "[" only.
    const list = { ...format('{x', 'list', 0), callStarts: '[' };
    const formats = group([list, format('{x', 'lines', 1)]);
    for (const chunks of cuts('{x')) {
      expect(called(read(formats, chunks)), chunks.join('|')).toEqual(['lines']);
    }
    for (const chunks of cuts('[x')) {
      expect(read(formats, chunks).outcome, chunks.join('|')).toEqual({ kind: 'not-a-call' });
    }
  });
});
