/**
 * A tool-call format derived from a model's own Jinja chat template, by differential rendering:
 * the template renders assistant turns with calls (one and two, one argument and two, a string
 * full of markup, content and reasoning beside them), each minus the generation prompt. When a
 * registered format reads every turn exactly, that format is the answer; otherwise a FormatSpec
 * is built from the markers around the calls. Where the generation prompt leaves reasoning open
 * (`<think>` at its end), the parsers start in reasoning.
 *
 * ```ts
 * const protocol = protocolFromChatTemplate(readFileSync('tokenizer_config.json', 'utf8'));
 * protocol.parseGeneratedText(output, { tools });
 * ```
 */
import type { ToolCallProtocol } from '../../core/index.ts';
import { parseJsonText } from '../../core/parse-json.ts';
import { defineFormat, startingInReasoning } from '../spec/define.ts';
import type { FormatSpec } from '../spec/types.ts';
import { ChatTemplateError } from './chat-template-error.ts';
import { type FamilyMatch, matchFamily, type Refusals, refusal } from './family-match.ts';
import { compileChatTemplate } from './jinja-environment.ts';
import { specFromMarkers } from './markers.ts';
import { type ReasoningMarkers, reasoningMarkers } from './reasoning-markers.ts';
import {
  type RenderedTemplate,
  type RenderSettings,
  renderScenarios,
  type ScenarioId,
} from './render-scenarios.ts';

export { ChatTemplateError } from './chat-template-error.ts';

export interface ChatTemplateOptions {
  /**
   * The tokenizer's `bos_token` (`<|begin_of_text|>`), which templates write. Default: the
   * tokenizer_config.json's when that is what was given, else `""`.
   */
  readonly bosToken?: string;
  /** The tokenizer's `eos_token`, which some templates write after a turn. Default: as `bosToken`. */
  readonly eosToken?: string;
  /** More template variables (`enable_thinking`, `reasoning_effort`…), as the server sets them. */
  readonly context?: Readonly<Record<string, unknown>>;
  /** The name of a format built from markers. Default `chat-template`. */
  readonly name?: string;
}

export interface ChatTemplateAnalysis {
  /** The registered format the template renders, when one reads every rendered turn. */
  readonly family?: string;
  /** The format built from the markers, when no registered format reads the turns. */
  readonly spec?: FormatSpec;
  /** The generation prompt leaves a reasoning block open: outputs begin in reasoning. */
  readonly startInReasoning: boolean;
  readonly evidence: ChatTemplateEvidence;
}

/** What the analysis saw, for `--explain`-style output and for bug reports. */
export interface ChatTemplateEvidence {
  /** The render settings under which the template wrote its calls. */
  readonly settings: RenderSettings;
  /** The end of the generation prompt (its last 80 characters). */
  readonly promptEnd: string;
  /** What follows a plain reply's text (removed from every turn). */
  readonly endOfTurn: string;
  /** Each rendered turn, as the model would write it. */
  readonly turns: readonly { readonly scenario: ScenarioId; readonly text: string }[];
  /** Turns the template could not render, and why. */
  readonly skipped: readonly { readonly scenario: ScenarioId; readonly why: string }[];
  readonly reasoning: ReasoningMarkers;
  /**
   * Why each registered format checked was turned down. Formats are checked in the order of how
   * alike their own writer writes the template's calls, so those checked before the chosen one
   * are listed (all of them when none was chosen).
   */
  readonly refusals: Readonly<Record<string, string>>;
  /**
   * Turns left out of the check because the chosen format does not read them back: the template
   * writes them so that no reader can (a string with quotes inside quotes, unescaped), or writes
   * content beside calls as a turn of its own.
   */
  readonly unreadable: readonly ScenarioId[];
}

/** Analyses a chat template (or a tokenizer_config.json's text). Throws `ChatTemplateError`. */
export function analyzeChatTemplate(
  template: string,
  options: ChatTemplateOptions = {},
): ChatTemplateAnalysis {
  return analyze(template, options).analysis;
}

/**
 * The protocol a chat template's model writes: a registered format when the template renders
 * one, else a format built from its markers. Throws `ChatTemplateError` (kind `invalid-format`)
 * naming what was missing when the template cannot be analysed.
 */
export function protocolFromChatTemplate(
  template: string,
  options: ChatTemplateOptions = {},
): ToolCallProtocol {
  return analyze(template, options).protocol;
}

interface Analysed {
  readonly analysis: ChatTemplateAnalysis;
  readonly protocol: ToolCallProtocol;
}

function analyze(source: string, options: ChatTemplateOptions): Analysed {
  const templateSource = chatTemplateFromFile(source);
  const template = compileChatTemplate(templateSource);
  const tokens = specialTokensIn(source);
  const bosToken = options.bosToken ?? tokens.bosToken;
  const eosToken = options.eosToken ?? tokens.eosToken;
  const rendered = renderScenarios(template, {
    ...(bosToken === undefined ? {} : { bosToken }),
    ...(eosToken === undefined ? {} : { eosToken }),
    ...(options.context === undefined ? {} : { context: options.context }),
  });
  const reasoning = reasoningMarkers(rendered);
  const startInReasoning = reasoning.promptOpens;
  const refusals: Refusals = {};
  const family = (match: FamilyMatch, lenient: boolean): Analysed => ({
    analysis: {
      family: match.entry.name,
      startInReasoning,
      evidence: evidenceOf(rendered, reasoning, refusals, lenient ? match.protocol : undefined),
    },
    protocol: startInReasoning ? startingInReasoning(match.protocol) : match.protocol,
  });
  const match = matchFamily(rendered, reasoning, refusals, templateSource);
  if (match !== undefined) return family(match, false);

  // No registered format: the markers.
  let built: { spec: FormatSpec; protocol: ToolCallProtocol } | undefined;
  let problem: string | undefined;
  try {
    const spec = specFromMarkers(rendered, reasoning, options.name ?? 'chat-template');
    built = { spec, protocol: defineFormat(spec) };
    problem = refusal(built.protocol, rendered, reasoning);
  } catch (error) {
    problem = error instanceof Error ? error.message : String(error);
  }
  const fromSpec = (lenient: boolean): Analysed => ({
    analysis: {
      spec: built!.spec,
      startInReasoning,
      evidence: evidenceOf(rendered, reasoning, refusals, lenient ? built!.protocol : undefined),
    },
    protocol: built!.protocol,
  });
  if (built !== undefined && problem === undefined) return fromSpec(false);

  // A template that writes a string argument so that no reader can take it back (quotes
  // inside quotes, unescaped), or content beside calls as a turn of its own: the format that
  // reads every other turn.
  const plain = withoutQuirks(rendered);
  if (plain !== rendered) {
    const lenient = matchFamily(plain, reasoning, {}, templateSource);
    if (lenient !== undefined) return family(lenient, true);
    if (built !== undefined && refusal(built.protocol, plain, reasoning) === undefined) {
      return fromSpec(true);
    }
  }
  throw new ChatTemplateError(
    `no format reads the calls this chat template writes (${JSON.stringify(rendered.scenarios[0]?.turn.slice(0, 200) ?? '')}): ${problem ?? 'no markers'}`,
  );
}

/** Turns a format may fail to read back and still be the template's (see `unreadable`). */
const QUIRKS: readonly ScenarioId[] = ['special-string', 'content'];

function withoutQuirks(rendered: RenderedTemplate): RenderedTemplate {
  const scenarios = rendered.scenarios.filter((turn) => !QUIRKS.includes(turn.scenario.id));
  return scenarios.length === rendered.scenarios.length ? rendered : { ...rendered, scenarios };
}

/**
 * What the analysis saw. `lenientWith`: the protocol chosen although it does not read every
 * turn; the quirky turns it does not read are named.
 */
function evidenceOf(
  rendered: RenderedTemplate,
  reasoning: ReasoningMarkers,
  refusals: Refusals,
  lenientWith: ToolCallProtocol | undefined,
): ChatTemplateEvidence {
  const unreadable =
    lenientWith === undefined
      ? []
      : rendered.scenarios
          .filter(
            (turn) =>
              QUIRKS.includes(turn.scenario.id) &&
              refusal(lenientWith, { ...rendered, scenarios: [turn] }, reasoning) !== undefined,
          )
          .map((turn) => turn.scenario.id);
  return {
    settings: rendered.settings,
    promptEnd: rendered.prompt.slice(-80),
    endOfTurn: rendered.endOfTurn,
    turns: rendered.scenarios.map((turn) => ({ scenario: turn.scenario.id, text: turn.turn })),
    skipped: rendered.skipped.map(({ id, why }) => ({ scenario: id, why })),
    reasoning,
    refusals,
    unreadable,
  };
}

/**
 * A tokenizer_config.json's `bos_token` and `eos_token` (a string, or `{content}` as older
 * configs write them); nothing for a bare template.
 */
function specialTokensIn(file: string): { bosToken?: string; eosToken?: string } {
  const trimmed = file.replace(/^\uFEFF/, '').trimStart();
  if (!trimmed.startsWith('{') || /^\{[{%#]/.test(trimmed)) return {};
  let parsed: unknown;
  try {
    parsed = parseJsonText(trimmed);
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const token = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (typeof value === 'object' && value !== null && 'content' in value) {
      const content = (value as { content: unknown }).content;
      return typeof content === 'string' ? content : undefined;
    }
    return undefined;
  };
  const fields = parsed as { bos_token?: unknown; eos_token?: unknown };
  const bosToken = token(fields.bos_token);
  const eosToken = token(fields.eos_token);
  return {
    ...(bosToken === undefined ? {} : { bosToken }),
    ...(eosToken === undefined ? {} : { eosToken }),
  };
}

/**
 * The template in a file's text: a `.jinja` file as it is, or a `tokenizer_config.json` /
 * `chat_template.json` holding `chat_template` (a string, or a list of named templates: `tool_use`
 * when there is one, else `default`, else the first).
 */
export function chatTemplateFromFile(file: string, fileName?: string): string {
  // A byte-order mark is no part of the text (editors on Windows write one).
  const text = file.startsWith('\uFEFF') ? file.slice(1) : file;
  const looksLikeJson = fileName?.toLowerCase().endsWith('.json') ?? false;
  const trimmed = text.trimStart();
  if (
    !looksLikeJson &&
    !(
      trimmed.startsWith('{') &&
      !trimmed.startsWith('{{') &&
      !trimmed.startsWith('{%') &&
      !trimmed.startsWith('{#')
    )
  ) {
    return text;
  }
  let parsed: unknown;
  try {
    parsed = parseJsonText(text);
  } catch (error) {
    if (!looksLikeJson) return text;
    throw new ChatTemplateError(`${fileName} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const where = fileName ?? 'the JSON';
  if (typeof parsed !== 'object' || parsed === null || !('chat_template' in parsed)) {
    throw new ChatTemplateError(`${where} has no "chat_template" field`);
  }
  const field = (parsed as { chat_template: unknown }).chat_template;
  if (typeof field === 'string') return field;
  if (Array.isArray(field)) {
    const named = field.filter(
      (entry): entry is { name: string; template: string } =>
        typeof entry === 'object' && entry !== null && typeof entry.template === 'string',
    );
    const chosen =
      named.find((entry) => entry.name === 'tool_use') ??
      named.find((entry) => entry.name === 'default') ??
      named[0];
    if (chosen !== undefined) return chosen.template;
  }
  throw new ChatTemplateError(
    `${where}'s "chat_template" is neither a string nor a list of {name, template}`,
  );
}
