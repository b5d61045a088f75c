import type { ToolCallProtocol } from '../../core/index.ts';

/** How the agent loop works with a format (see `runAgent`). */
export interface AgentConventions {
  /**
   * `one`: the model is taught one action per turn and the loop runs only the first call
   * (Probe's XML protocol); `all`: every call of a turn runs.
   */
  readonly actionsPerTurn: 'one' | 'all';
  /** `tool`: the run ends with a completion tool (`attempt_completion`); `no-call`: with a turn that calls nothing. */
  readonly completion: 'tool' | 'no-call';
}

/** A tool-call format in the registry: what the CLI, middleware, server and agent look up. */
export interface FormatEntry {
  /** The `--protocol` value and `protocolByName` key. */
  readonly name: string;
  /** Other names accepted for it (`qwen3_coder`, `harmony`). */
  readonly aliases: readonly string[];
  /** The model families that write it, for `toolwire parse --list` and the docs. */
  readonly families: string;
  /** One short call in the format, as the model writes it. */
  readonly example: string;
  /** The protocol with its default settings. */
  create(): ToolCallProtocol;
  /**
   * Model ids this format is native to, tested against the lower-cased id with any
   * `provider/` prefix and `:tag` kept (`qwen/qwen3-coder-30b-a3b-instruct`, `qwen3-coder:30b`).
   * The registry tries formats in order, so a narrower family comes before a broader one.
   */
  readonly models: readonly RegExp[];
  readonly agent: AgentConventions;
  /**
   * `false`: `auto` leaves this format out of what it reads by default (its calls collide with a
   * format auto already reads, and reading both would misread the other's); it is still read by
   * name and when `autoProtocol({ formats })` names it. Default true.
   */
  readonly inAuto?: boolean;
  /**
   * Names the text uses as tools, declared or not, each once: the agent tells a model which
   * tools it invented when a turn produced no call (undeclared calls stay text). Default: the
   * values of JSON `"name"` keys.
   */
  readonly toolNamesIn?: (text: string) => string[];
}

/** The conventions of every format but Probe's XML protocol. */
export const CALLS_RUN_TOGETHER: AgentConventions = {
  actionsPerTurn: 'all',
  completion: 'no-call',
};
