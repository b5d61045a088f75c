/**
 * A chat template's reasoning markers, read from the turn rendered with reasoning, and whether
 * its generation prompt leaves a reasoning block open (`<think>` at the end of the prompt), so
 * that an output begins inside reasoning.
 */
import { REASONING_TEXT, type RenderedTemplate } from './render-scenarios.ts';

export interface ReasoningMarkers {
  /** The block's opener, where the template writes one (`<think>`, `<|channel>thought`). */
  readonly open?: string;
  /** The block's closer (`</think>`, `<channel|>`). */
  readonly close?: string;
  /** The generation prompt ends inside the block: the output begins in reasoning. */
  readonly promptOpens: boolean;
}

/** Reasoning blocks templates write, for prompts that open one the turns never show. */
const KNOWN_BLOCKS: readonly (readonly [open: string, close: string])[] = [
  ['<think>', '</think>'],
  ['<seed:think>', '</seed:think>'],
  ['<thinking>', '</thinking>'],
  ['<reasoning>', '</reasoning>'],
  ['[THINK]', '[/THINK]'],
  ['<|START_THINKING|>', '<|END_THINKING|>'],
  ['<|channel>thought', '<channel|>'],
  ['<|inner_prefix|>', '<|inner_suffix|>'],
  ['◁think▷', '◁/think▷'],
];

export function reasoningMarkers(rendered: RenderedTemplate): ReasoningMarkers {
  const turn = rendered.scenarios.find((each) => each.hasReasoning);
  let open: string | undefined;
  let close: string | undefined;
  let turnBeginsInside = false;
  if (turn !== undefined) {
    const at = turn.turn.indexOf(REASONING_TEXT);
    const before = turn.turn.slice(0, at).trim();
    close = leadingMarker(turn.turn.slice(at + REASONING_TEXT.length).trimStart());
    if (before !== '') open = before;
    else if (close !== undefined) turnBeginsInside = true;
  }
  const blocks =
    open !== undefined && close !== undefined
      ? [[open, close] as const, ...KNOWN_BLOCKS]
      : KNOWN_BLOCKS;
  const opened = openBlockAtEnd(rendered.prompt, blocks);
  if (opened !== undefined) {
    return { open: open ?? opened[0], close: close ?? opened[1], promptOpens: true };
  }
  if (turnBeginsInside) {
    // The reasoning turn starts inside the block: the prompt opened it (with a marker this
    // module does not know: the prompt's last marker).
    return { open: trailingMarker(rendered.prompt), close, promptOpens: true };
  }
  return {
    ...(open === undefined ? {} : { open }),
    ...(close === undefined ? {} : { close }),
    promptOpens: false,
  };
}

/** The block the prompt leaves open at its end, if any. */
function openBlockAtEnd(
  prompt: string,
  blocks: readonly (readonly [string, string])[],
): readonly [string, string] | undefined {
  let best: readonly [string, string] | undefined;
  let bestAt = -1;
  for (const block of blocks) {
    const at = prompt.lastIndexOf(block[0]);
    if (at < 0 || at < bestAt) continue;
    const after = prompt.slice(at + block[0].length);
    // Only white space after the opener: the model writes the block's body next.
    if (after.trim() === '') {
      best = block;
      bestAt = at;
    }
  }
  return best;
}

/**
 * The marker a text starts with: `<…>` or `[…]` (token brackets `<|…|>` included), and a word
 * and one more marker right after it when there is one (`<|close|>think<|sep|>`, Kimi K3's
 * tags are three tokens).
 */
export function leadingMarker(text: string): string | undefined {
  const first = markerEndAt(text, 0);
  if (first === undefined) return undefined;
  let word = first;
  while (word < text.length && isWordChar(text[word]!)) word++;
  const second = word > first ? markerEndAt(text, word) : undefined;
  return text.slice(0, second ?? first);
}

/** The marker a text ends with (its last `<…>` or `[…]`, or `<|open|>think<|sep|>`), or undefined. */
export function trailingMarker(text: string): string | undefined {
  const trimmed = text.trimEnd();
  const last = markerStartBefore(trimmed, trimmed.length);
  if (last === undefined) return undefined;
  let word = last;
  while (word > 0 && isWordChar(trimmed[word - 1]!)) word--;
  const first = word < last ? markerStartBefore(trimmed, word) : undefined;
  return trimmed.slice(first ?? last);
}

/** Where the marker starting at `at` ends (exclusive), if one starts there. */
function markerEndAt(text: string, at: number): number | undefined {
  const first = text[at];
  if (first !== '<' && first !== '[' && first !== '◁') return undefined;
  const closer = first === '<' ? '>' : first === '[' ? ']' : '▷';
  const end = text.indexOf(closer, at + 1);
  return end < 0 || end - at > 64 ? undefined : end + 1;
}

/** Where the marker ending at `end` (exclusive) starts, if one ends there. */
function markerStartBefore(text: string, end: number): number | undefined {
  const last = text[end - 1];
  if (last !== '>' && last !== ']') return undefined;
  const start = text.lastIndexOf(last === '>' ? '<' : '[', end - 1);
  return start < 0 || end - start > 64 ? undefined : start;
}

function isWordChar(char: string): boolean {
  return /[A-Za-z0-9_]/.test(char);
}
