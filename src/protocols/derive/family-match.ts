/**
 * Which registered format reads what a chat template renders: a format is accepted when, for
 * every rendered turn, its parser gives exactly the turn's calls, no error, the turn's reasoning
 * as reasoning, and no other text than white space, the turn's own content, and a tail that is
 * the same in every turn (what the template writes after a turn with calls, `<|tool_response>`).
 */
import type { ParsedContent, ToolCallProtocol } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import type { FormatEntry } from '../define/format-entry.ts';
import { FORMATS } from '../registry.ts';
import { specOf } from '../spec/define.ts';
import type {
  RenderedScenario,
  RenderedTemplate,
  ScenarioCall,
  ScenarioId,
} from './render-scenarios.ts';

export interface FamilyMatch {
  readonly entry: FormatEntry;
  readonly protocol: ToolCallProtocol;
  /** How much of the template's turn the format's own writer writes alike (see `writerLikeness`). */
  readonly likeness: number;
}

/** Why each format checked was turned down, for the analysis' evidence. */
export type Refusals = Record<string, string>;

/**
 * The registered format that reads every turn and whose own writer writes most like the
 * template (several formats read bare JSON; the one that writes the template's markers is its
 * family); among equals, the first in registry order (narrower families come first). Formats are
 * checked in that order, so the first that reads every turn is the answer and the rest are not
 * parsed at all.
 */
export function matchFamily(
  rendered: RenderedTemplate,
  reasoning: ReasoningStart,
  refusals: Refusals = {},
  templateSource = '',
): FamilyMatch | undefined {
  const ranked: FamilyMatch[] = [];
  // The registry is read at call time: formats registered since load count.
  for (const entry of FORMATS) {
    let protocol: ToolCallProtocol;
    try {
      protocol = entry.create();
    } catch (error) {
      refusals[entry.name] = `cannot be created: ${String(error)}`;
      continue;
    }
    ranked.push({
      entry,
      protocol,
      likeness: writerLikeness(protocol, rendered, templateSource),
    });
  }
  // Formats that write alike (Hunyuan's and Apriel's `<tool_calls>[…]`) are told apart by their
  // other literals the template mentions (Apriel's `[BEGIN FINAL RESPONSE]`).
  const mentions = new Map<FamilyMatch, number>();
  const mentioned = (match: FamilyMatch) => {
    let count = mentions.get(match);
    if (count === undefined) {
      count = literalsMentioned(match.protocol, templateSource);
      mentions.set(match, count);
    }
    return count;
  };
  // A stable sort: registry order among equals.
  ranked.sort((a, b) => b.likeness - a.likeness || mentioned(b) - mentioned(a));
  for (const candidate of ranked) {
    const why = refusal(candidate.protocol, rendered, reasoning);
    if (why === undefined) return candidate;
    refusals[candidate.entry.name] = why;
  }
  return undefined;
}

const DISCRIMINATING: readonly ScenarioId[] = [
  'two-calls',
  'content',
  'special-string',
  'reasoning',
  'two-arguments',
  'other-tool',
  'one-argument',
];

/** Whether the generation prompt leaves reasoning open, and the marker that closes it. */
export interface ReasoningStart {
  readonly promptOpens: boolean;
  readonly close?: string;
}

/**
 * A rendered turn begins inside reasoning when the prompt leaves it open and the turn closes
 * it. Templates that open `<think>` in the prompt often drop reasoning from past turns, so the
 * turns they render hold no closer: those are read from outside reasoning (what the model
 * writes after its `</think>`).
 */
function beginsInReasoning(turn: RenderedScenario, reasoning: ReasoningStart): boolean {
  if (!reasoning.promptOpens) return false;
  return reasoning.close === undefined || turn.turn.includes(reasoning.close);
}

/** Why `protocol` does not read the rendered turns, or undefined when it reads them all. */
export function refusal(
  protocol: ToolCallProtocol,
  rendered: RenderedTemplate,
  reasoning: ReasoningStart,
): string | undefined {
  const tails = new Set<string>();
  // The turns most formats fail on first: a refusal costs one parse.
  const turns = [...rendered.scenarios].sort(
    (a, b) => DISCRIMINATING.indexOf(a.scenario.id) - DISCRIMINATING.indexOf(b.scenario.id),
  );
  for (const turn of turns) {
    let events: ParsedContent[];
    try {
      // No schema validation: the calls are compared with the rendered ones exactly below, which
      // says more, and compiling the validators is most of a first derivation's matching time.
      events = protocol.parseGeneratedText(turn.turn, {
        tools: rendered.tools,
        startInReasoning: beginsInReasoning(turn, reasoning),
        validate: false,
      });
    } catch (error) {
      return `${turn.scenario.id}: the parser threw ${String(error)}`;
    }
    const outcome = readTurn(events, turn);
    if (typeof outcome !== 'string') return `${turn.scenario.id}: ${outcome.why}`;
    tails.add(outcome);
  }
  if (tails.size > 1)
    return `the text after the calls differs between turns: ${[...tails].map((tail) => JSON.stringify(tail)).join(', ')}`;
  return undefined;
}

/** The turn's tail (text after its calls, content aside), or why the events are not the turn. */
function readTurn(
  events: readonly ParsedContent[],
  turn: RenderedScenario,
): string | { why: string } {
  const calls: ScenarioCall[] = [];
  const texts: string[] = [''];
  let reasoning = '';
  for (const event of events) {
    if (event.type === 'error') return { why: `error ${event.error.code}` };
    if (event.type === 'reasoning') reasoning += event.text;
    else if (event.type === 'text') texts[texts.length - 1] += event.text;
    else if (event.type === 'tool-call') {
      let input: unknown;
      try {
        input = parseJsonText(event.input);
      } catch {
        return { why: `call ${event.toolName} has input that is not JSON` };
      }
      calls.push({ name: event.toolName, input: input as ScenarioCall['input'] });
      texts.push('');
    }
  }
  const expected = turn.scenario.calls;
  if (calls.length !== expected.length) {
    return { why: `read ${calls.length} calls where the turn has ${expected.length}` };
  }
  for (let index = 0; index < calls.length; index++) {
    const got = calls[index]!;
    const want = expected[index]!;
    if (got.name !== want.name || !deepEqual(got.input, want.input)) {
      return {
        why: `read ${got.name} ${JSON.stringify(got.input)} where the turn has ${want.name} ${JSON.stringify(want.input)}`,
      };
    }
  }
  const content = turn.hasContent ? turn.scenario.content : undefined;
  if (turn.hasReasoning && !reasoning.includes(turn.scenario.reasoning!)) {
    return { why: 'the reasoning was not read as reasoning' };
  }
  if (!turn.hasReasoning && reasoning.trim() !== '')
    return { why: 'read reasoning the turn does not have' };
  let contentSeen = false;
  const withoutContent = (text: string) => {
    if (content !== undefined && !contentSeen && text.includes(content)) {
      contentSeen = true;
      return text.replace(content, '');
    }
    return text;
  };
  const first = withoutContent(texts[0]!);
  if (first.trim() !== '') return { why: `text before the calls: ${JSON.stringify(first.trim())}` };
  for (const between of texts.slice(1, -1)) {
    if (between.trim() !== '')
      return { why: `text between the calls: ${JSON.stringify(between.trim())}` };
  }
  const tail = withoutContent(texts.at(-1)!).trim();
  if (content !== undefined && !contentSeen)
    return { why: "the turn's content was not read as text" };
  return tail;
}

/**
 * How much of the template's turn the protocol's own writer writes the same (white space aside):
 * the length of their common start, the whole writing when it is verbatim. Several formats may
 * read a turn (most read bare JSON); the one that writes like the template is its family. A
 * writer may put framing of its own before its calls when the template mentions that framing
 * (Apriel's `[BEGIN FINAL RESPONSE]`, which its template's instructions name): the comparison
 * then starts after it.
 */
function writerLikeness(
  protocol: ToolCallProtocol,
  rendered: RenderedTemplate,
  templateSource: string,
): number {
  const turn =
    rendered.scenarios.find((each) => each.scenario.calls.length > 1) ?? rendered.scenarios[0];
  if (turn === undefined) return 0;
  let written: string;
  try {
    written = protocol.formatToolCall(
      turn.scenario.calls.map((call, index) => ({
        toolName: call.name,
        input: call.input,
        toolCallId: `call0000${index + 1}`,
      })),
    );
  } catch {
    return 0;
  }
  const template = squash(turn.turn);
  const whole = squash(written);
  if (template.includes(whole)) return whole.length;
  let best = commonStart(template, whole);
  for (let at = 1; at < Math.min(written.length, MAX_FRAMING); at++) {
    const char = written[at];
    if (char !== '<' && char !== '[' && char !== '{') continue;
    const framing = written.slice(0, at).trim();
    if (framing === '' || !templateSource.includes(framing)) continue;
    best = Math.max(best, commonStart(template, squash(written.slice(at))));
  }
  return best;
}

/** Longest framing a writer may put before its calls and still be compared after it. */
const MAX_FRAMING = 64;

function commonStart(a: string, b: string): number {
  let common = 0;
  while (common < a.length && common < b.length && a.charCodeAt(common) === b.charCodeAt(common))
    common++;
  return common;
}

/** How many of a spec-built format's own literals the template's source holds. */
function literalsMentioned(protocol: ToolCallProtocol, source: string): number {
  const spec = source === '' ? undefined : specOf(protocol);
  if (spec === undefined) return 0;
  const literals = new Set<string>([
    ...(spec.markup ?? []),
    ...(spec.reasoning ?? []).flatMap((block) => [block.open, block.close]),
    ...spec.calls.flatMap((form) => [form.open, form.close ?? '']),
  ]);
  let count = 0;
  for (const literal of literals) if (literal.length >= 3 && source.includes(literal)) count++;
  return count;
}

/** White space does not count when comparing writers (templates indent, writers do not). */
function squash(text: string): string {
  return text.replace(/\s+/g, '');
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      deepEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
