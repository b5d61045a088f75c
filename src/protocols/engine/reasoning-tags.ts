import type { ReasoningTag } from './stream-engine.ts';

/**
 * Reasoning markup of the model families, for formats to list in their grammar. Each format
 * names its own: a tag one family writes as reasoning may be ordinary text for another.
 */

/** `<think>` (DeepSeek R1, Qwen3, QwQ, GLM, MiniMax, Kimi) and `<thinking>` (Claude-style agents). */
export const THINK_TAGS: readonly ReasoningTag[] = [
  { open: '<think>', close: '</think>' },
  { open: '<thinking>', close: '</thinking>' },
];

/** Magistral and Devstral: `[THINK]…[/THINK]`, plus the `<think>` tags of older releases. */
export const MISTRAL_THINK_TAGS: readonly ReasoningTag[] = [
  { open: '[THINK]', close: '[/THINK]' },
  ...THINK_TAGS,
];

/** ByteDance Seed-OSS: `<seed:think>…</seed:think>`. */
export const SEED_THINK_TAGS: readonly ReasoningTag[] = [
  { open: '<seed:think>', close: '</seed:think>' },
  ...THINK_TAGS,
];

/** Command R7B: `<|START_THINKING|>…<|END_THINKING|>`. */
export const COMMAND_R_THINK_TAGS: readonly ReasoningTag[] = [
  { open: '<|START_THINKING|>', close: '<|END_THINKING|>' },
  ...THINK_TAGS,
];

/** gpt-oss (harmony): the `analysis` channel is reasoning, with or without its start token. */
export const HARMONY_THINK_TAGS: readonly ReasoningTag[] = [
  { open: '<|channel|>analysis<|message|>', close: '<|end|>' },
  ...THINK_TAGS,
];
