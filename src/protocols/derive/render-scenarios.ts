/**
 * Differential rendering: a chat template rendered with one conversation and several assistant
 * turns (one call, two calls, two arguments, a string full of markup, content or reasoning beside
 * a call), each turn minus the generation prompt, so what is left is exactly what a model trained
 * on the template writes. The render settings real templates disagree on (arguments as objects or
 * JSON strings, OpenAI-style tool entries or bare functions, a system message or none, content as
 * a string or as parts) are tried in turn until the one-call turn holds its call.
 */
import type { ToolDefinition } from '../../core/index.ts';
import { ChatTemplateError } from './chat-template-error.ts';
import {
  ChatTemplateRaisedError,
  type CompiledChatTemplate,
  type RenderContext,
} from './jinja-environment.ts';

/** A call an assistant turn makes. */
export interface ScenarioCall {
  readonly name: string;
  readonly input: Readonly<Record<string, string | number>>;
}

/** One assistant turn to render. */
export interface Scenario {
  readonly id: ScenarioId;
  readonly calls: readonly ScenarioCall[];
  /** Text the turn holds beside its calls. */
  readonly content?: string;
  /** Reasoning the turn holds before its calls (given as `reasoning_content` and `thinking`). */
  readonly reasoning?: string;
}

export type ScenarioId =
  | 'one-argument'
  | 'two-arguments'
  | 'other-tool'
  | 'two-calls'
  | 'special-string'
  | 'content'
  | 'reasoning';

/** A scenario as rendered: the turn the model writes, end of turn removed. */
export interface RenderedScenario {
  readonly scenario: Scenario;
  /** What the model writes for the turn, without the end-of-turn marker. */
  readonly turn: string;
  /** The generation prompt the turn follows. */
  readonly prompt: string;
  /**
   * The conversation with the turn starts with the generation prompt (white space aside). When
   * it does not (the template rewrites earlier turns), the turn is cut after the common prefix.
   */
  readonly prefixPreserved: boolean;
  /** The turn holds the scenario's content (templates often drop content beside calls). */
  readonly hasContent: boolean;
  /** The turn holds the scenario's reasoning. */
  readonly hasReasoning: boolean;
}

export interface RenderSettings {
  readonly arguments: 'object' | 'string';
  readonly tools: 'openai' | 'functions';
  readonly system: boolean;
  readonly content: 'string' | 'parts';
}

export interface RenderedTemplate {
  readonly settings: RenderSettings;
  /** The generation prompt of the conversation (default context). */
  readonly prompt: string;
  /** What follows a plain reply's text in its turn (`<|im_end|>\n`), removed from every turn. */
  readonly endOfTurn: string;
  readonly scenarios: readonly RenderedScenario[];
  /** Scenarios that could not be rendered, and why (a single-call template refuses two calls). */
  readonly skipped: readonly { readonly id: ScenarioId; readonly why: string }[];
  /** The tools the scenarios call. */
  readonly tools: readonly ToolDefinition[];
  /**
   * A call's result as the template writes it after the call, as a tool message and, for
   * comparison, as a user message with the same text (undefined when either cannot be
   * rendered). Rendered on demand: only a format built from markers needs it.
   */
  resultTurns(): { readonly tool: string; readonly user: string } | undefined;
}

export interface RenderTemplateOptions {
  readonly bosToken?: string;
  readonly eosToken?: string;
  /** Extra template variables (`enable_thinking`, `reasoning_effort`…). */
  readonly context?: RenderContext;
  /** The clock `strftime_now` reads (fixed by default, so a derivation is repeatable). */
  readonly now?: Date;
}

// Names and values that no template text holds, so finding them finds the call.
export const FIRST_TOOL = 'probe_weather';
export const SECOND_TOOL = 'probe_search';
export const FIRST_VALUE = 'Quillmoor';
export const SECOND_VALUE = 'tide tables';
export const NUMBER_VALUE = 7;
export const SPECIAL_VALUE = '<p class="x">A & B</p>\nÆØÅ';
export const CONTENT_TEXT = 'Let me check that.';
export const REASONING_TEXT = 'The user asks about Quillmoor, so I call the tool.';
const PLAIN_REPLY = 'Plain reply without any call.';
export const RESULT_TEXT = 'Result text of the call.';
const USER_TEXT = 'What is the weather in Quillmoor?';
const SYSTEM_TEXT = 'You are a helpful assistant.';

export const PROBE_TOOLS: readonly ToolDefinition[] = [
  {
    name: FIRST_TOOL,
    description: 'Get the weather forecast for a city.',
    inputSchema: {
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', description: 'Number of days' },
      },
      required: ['city'],
    },
  },
  {
    name: SECOND_TOOL,
    description: 'Search the web.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What to search for' },
        limit: { type: 'integer', description: 'Most results' },
      },
      required: ['query'],
    },
  },
];

const ONE: ScenarioCall = { name: FIRST_TOOL, input: { city: FIRST_VALUE } };
const TWO_ARGUMENTS: ScenarioCall = {
  name: FIRST_TOOL,
  input: { city: FIRST_VALUE, days: NUMBER_VALUE },
};
const OTHER: ScenarioCall = { name: SECOND_TOOL, input: { query: SECOND_VALUE, limit: 5 } };

export const SCENARIOS: readonly Scenario[] = [
  { id: 'one-argument', calls: [ONE] },
  { id: 'two-arguments', calls: [TWO_ARGUMENTS] },
  { id: 'other-tool', calls: [OTHER] },
  { id: 'two-calls', calls: [TWO_ARGUMENTS, OTHER] },
  { id: 'special-string', calls: [{ name: SECOND_TOOL, input: { query: SPECIAL_VALUE } }] },
  { id: 'content', calls: [TWO_ARGUMENTS], content: CONTENT_TEXT },
  { id: 'reasoning', calls: [TWO_ARGUMENTS], reasoning: REASONING_TEXT },
];

const SETTINGS_TO_TRY: readonly RenderSettings[] = [
  { arguments: 'object', tools: 'openai', system: true, content: 'string' },
  { arguments: 'string', tools: 'openai', system: true, content: 'string' },
  { arguments: 'object', tools: 'openai', system: false, content: 'string' },
  { arguments: 'string', tools: 'openai', system: false, content: 'string' },
  { arguments: 'object', tools: 'openai', system: true, content: 'parts' },
  { arguments: 'string', tools: 'openai', system: true, content: 'parts' },
  { arguments: 'object', tools: 'functions', system: true, content: 'string' },
  { arguments: 'string', tools: 'functions', system: true, content: 'string' },
  { arguments: 'object', tools: 'openai', system: false, content: 'parts' },
];

/** A fixed clock: derivations repeat exactly (the conformance set used this date too). */
const FIXED_NOW = new Date(2024, 6, 26, 12, 0, 0);

/**
 * Renders every scenario with the first settings under which the one-call turn holds its call.
 * Throws `ChatTemplateError` (saying what failed) when none does.
 */
export function renderScenarios(
  template: CompiledChatTemplate,
  options: RenderTemplateOptions = {},
): RenderedTemplate {
  const failures: string[] = [];
  // Settings whose turn holds the call but whose conversation rewrites the prompt: used only
  // when no settings keep the prompt as it is.
  let rewritesPrompt: { renderer: TurnRenderer; first: RenderedScenario } | undefined;
  for (const settings of SETTINGS_TO_TRY) {
    const renderer = new TurnRenderer(template, settings, options);
    const first = renderer.tryTurn(SCENARIOS[0]!);
    if (typeof first === 'string') {
      failures.push(first);
      continue;
    }
    if (!holdsCall(first.turn, SCENARIOS[0]!.calls[0]!)) {
      failures.push('assistant `tool_calls` are not in its output');
      continue;
    }
    if (first.prefixPreserved) return renderer.renderAll(first);
    rewritesPrompt ??= { renderer, first };
  }
  if (rewritesPrompt !== undefined) return rewritesPrompt.renderer.renderAll(rewritesPrompt.first);
  throw new ChatTemplateError(`the template renders no tool call: ${mostTelling(failures)}`);
}

/** The first failure that says more than "no call", else that. */
function mostTelling(failures: readonly string[]): string {
  const rendered = failures.find((failure) => failure.startsWith('assistant'));
  return rendered ?? failures[0] ?? 'nothing rendered';
}

/** The turn names the call's tool and holds its plain values (a value with markup may be escaped). */
function holdsCall(turn: string, call: ScenarioCall): boolean {
  return (
    turn.includes(call.name) &&
    Object.values(call.input).every(
      (value) => value === SPECIAL_VALUE || turn.includes(String(value)),
    )
  );
}

class TurnRenderer {
  private readonly template: CompiledChatTemplate;
  private readonly settings: RenderSettings;
  private readonly options: RenderTemplateOptions;
  private readonly endOfTurn: string;

  constructor(
    template: CompiledChatTemplate,
    settings: RenderSettings,
    options: RenderTemplateOptions,
  ) {
    this.template = template;
    this.settings = settings;
    this.options = options;
    this.endOfTurn = this.plainReplyEnd();
  }

  /** Every scenario's turn (`first`: the first scenario's, rendered already). */
  renderAll(first: RenderedScenario): RenderedTemplate {
    const scenarios: RenderedScenario[] = [];
    const skipped: { id: ScenarioId; why: string }[] = [];
    for (const scenario of SCENARIOS) {
      const rendered = scenario === first.scenario ? first : this.tryTurn(scenario);
      if (typeof rendered === 'string') skipped.push({ id: scenario.id, why: rendered });
      else if (!scenario.calls.every((call) => holdsCall(rendered.turn, call)))
        skipped.push({ id: scenario.id, why: 'the calls are not all in the output' });
      else scenarios.push(rendered);
    }
    return {
      settings: this.settings,
      prompt: this.prompt({}),
      endOfTurn: this.endOfTurn,
      scenarios,
      skipped,
      tools: PROBE_TOOLS,
      resultTurns: () => this.resultTurns(),
    };
  }

  /** What a tool result and a user message after the call add to the conversation. */
  private resultTurns(): { tool: string; user: string } | undefined {
    try {
      const scenario = SCENARIOS[0]!;
      const base = [...this.opening(), this.assistant(scenario)];
      const before = this.render(base, false, {});
      const after = (message: Record<string, unknown>) =>
        subtractPrompt(this.render([...base, message], false, {}), before).turn;
      return {
        tool: after({
          role: 'tool',
          tool_call_id: 'call00001',
          name: scenario.calls[0]!.name,
          content: this.content(RESULT_TEXT),
        }),
        user: after({ role: 'user', content: this.content(RESULT_TEXT) }),
      };
    } catch {
      return undefined;
    }
  }

  /** The scenario's turn, or why it could not be rendered. */
  tryTurn(scenario: Scenario): RenderedScenario | string {
    try {
      const extra: RenderContext =
        scenario.reasoning === undefined ? {} : { enable_thinking: true };
      const prompt = this.prompt(extra);
      const full = this.render([...this.opening(), this.assistant(scenario)], false, extra);
      const { turn: whole, exact } = subtractPrompt(full, prompt);
      const turn = stripEnd(whole, this.endOfTurn, this.options.eosToken);
      return {
        scenario,
        turn,
        prompt,
        prefixPreserved: exact,
        hasContent: scenario.content !== undefined && turn.includes(scenario.content),
        hasReasoning: scenario.reasoning !== undefined && turn.includes(scenario.reasoning),
      };
    } catch (error) {
      if (ChatTemplateRaisedError.isInstance(error))
        return `the template refuses it: ${error.templateMessage}`;
      return error instanceof Error ? error.message : String(error);
    }
  }

  /** Generation prompts by their extra context (the same for most scenarios: rendered once). */
  private readonly prompts = new Map<string, string>();

  private prompt(extra: RenderContext): string {
    const key = JSON.stringify(extra);
    let prompt = this.prompts.get(key);
    if (prompt === undefined) {
      prompt = this.render(this.opening(), true, extra);
      this.prompts.set(key, prompt);
    }
    return prompt;
  }

  /** What follows the text of a plain reply: the end-of-turn marker. */
  private plainReplyEnd(): string {
    try {
      const prompt = this.prompt({});
      const full = this.render(
        [...this.opening(), { role: 'assistant', content: this.content(PLAIN_REPLY) }],
        false,
        {},
      );
      const { turn } = subtractPrompt(full, prompt);
      const at = turn.lastIndexOf(PLAIN_REPLY);
      return at < 0 ? '' : turn.slice(at + PLAIN_REPLY.length);
    } catch {
      return '';
    }
  }

  private opening(): Record<string, unknown>[] {
    const user = { role: 'user', content: this.content(USER_TEXT) };
    return this.settings.system
      ? [{ role: 'system', content: this.content(SYSTEM_TEXT) }, user]
      : [user];
  }

  private content(text: string): unknown {
    return this.settings.content === 'parts' ? [{ type: 'text', text }] : text;
  }

  private assistant(scenario: Scenario): Record<string, unknown> {
    const message: Record<string, unknown> = {
      role: 'assistant',
      content: this.content(scenario.content ?? ''),
      tool_calls: scenario.calls.map((call, index) => ({
        id: `call0000${index + 1}`,
        type: 'function',
        function: {
          name: call.name,
          arguments:
            this.settings.arguments === 'object' ? { ...call.input } : JSON.stringify(call.input),
        },
      })),
    };
    if (scenario.reasoning !== undefined) {
      message.reasoning_content = scenario.reasoning;
      message.thinking = scenario.reasoning;
      message.reasoning = scenario.reasoning;
    }
    return message;
  }

  private render(
    messages: readonly Record<string, unknown>[],
    addGenerationPrompt: boolean,
    extra: RenderContext,
  ): string {
    const tools =
      this.settings.tools === 'openai'
        ? PROBE_TOOLS.map((tool) => ({ type: 'function', function: declaration(tool) }))
        : PROBE_TOOLS.map(declaration);
    return this.template.render(
      {
        messages,
        tools,
        add_generation_prompt: addGenerationPrompt,
        bos_token: this.options.bosToken ?? '',
        eos_token: this.options.eosToken ?? '',
        ...this.options.context,
        ...extra,
      },
      { now: this.options.now ?? FIXED_NOW },
    );
  }
}

function declaration(tool: ToolDefinition): Record<string, unknown> {
  return { name: tool.name, description: tool.description, parameters: tool.inputSchema };
}

/**
 * The rendered conversation minus its generation prompt. A template may write the prompt's
 * trailing white space differently once the turn follows (`Assistant: ` then `Assistant:` plus
 * the turn), and a few rewrite earlier turns; then the longest common prefix is cut.
 */
export function subtractPrompt(full: string, prompt: string): { turn: string; exact: boolean } {
  if (full.startsWith(prompt)) return { turn: full.slice(prompt.length), exact: true };
  const end = endOfPromptIgnoringSpace(full, prompt);
  if (end !== undefined) return { turn: full.slice(end), exact: true };
  // The template rewrote an earlier turn: the turn follows the last user message as the prompt
  // ends it (`…?[/INST]`).
  const anchor = prompt.slice(prompt.lastIndexOf(USER_TEXT));
  const at = anchor.length > USER_TEXT.length ? full.lastIndexOf(anchor) : -1;
  if (at >= 0) return { turn: full.slice(at + anchor.length), exact: false };
  let common = 0;
  const limit = Math.min(full.length, prompt.length);
  while (common < limit && full.charCodeAt(common) === prompt.charCodeAt(common)) common++;
  // Not inside a marker both happen to start alike (`<think>` and `<tool_call>` share `<`).
  const open = Math.max(full.lastIndexOf('<', common - 1), full.lastIndexOf('[', common - 1));
  const close = Math.max(full.lastIndexOf('>', common - 1), full.lastIndexOf(']', common - 1));
  if (open > close && common - open <= 64) common = open;
  return { turn: full.slice(common), exact: false };
}

/** Where the prompt ends in `full` when the two differ only in white space, if they do. */
function endOfPromptIgnoringSpace(full: string, prompt: string): number | undefined {
  let inFull = 0;
  let end = 0;
  for (let inPrompt = 0; inPrompt < prompt.length; inPrompt++) {
    const char = prompt[inPrompt]!;
    if (isSpace(char)) continue;
    while (inFull < full.length && isSpace(full[inFull]!)) inFull++;
    if (full[inFull] !== char) return undefined;
    inFull++;
    end = inFull;
  }
  return end;
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\n' || char === '\t' || char === '\r';
}

/**
 * The turn without its end-of-turn marker (or the end-of-sequence token). A plain reply may end
 * with more than a turn with calls (`<|END_RESPONSE|><|END_OF_TURN_TOKEN|>` after a response,
 * `<|END_OF_TURN_TOKEN|>` after an action): the longest end of the marker that starts a marker
 * of its own is removed.
 */
function stripEnd(turn: string, endOfTurn: string, eos: string | undefined): string {
  if (endOfTurn !== '' && turn.endsWith(endOfTurn)) return turn.slice(0, -endOfTurn.length);
  const trimmed = turn.trimEnd();
  const end = endOfTurn.trim();
  for (let start = 0; start < end.length; start++) {
    const char = end[start];
    if (char !== '<' && char !== '[') continue;
    const tail = end.slice(start);
    if (trimmed.endsWith(tail)) return trimmed.slice(0, -tail.length);
  }
  if (eos !== undefined && eos !== '' && trimmed.endsWith(eos))
    return trimmed.slice(0, -eos.length);
  return turn;
}
