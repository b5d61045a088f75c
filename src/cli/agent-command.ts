import { type AgentEvent, type AgentUsage, describeRunError, runAgent } from '../agent/index.ts';
import { createCodeTools } from '../agent/tools/index.ts';
import type { ToolwireError } from '../core/errors.ts';
import { ModelCallError } from '../core/model-call-error.ts';
// Not server/index.ts: that loads the HTTP server's packages, which `agent` does not need.
import { parseCommandLine } from './command-line.ts';
import { commandProtocol } from './format-source.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { MODEL_FLAGS, modelSetting, rootSetting, wholeNumber } from './model-settings.ts';
import { openAICompatibleModel } from './openai-model.ts';
import { type QuestionDisplay, terminalAskUser } from './terminal-ask-user.ts';
import { neutraliseControls as safe, TerminalTextFilter } from './terminal-text.ts';
import { AGENT_USAGE } from './usage.ts';
import { UsageError } from './usage-error.ts';

export { AGENT_USAGE };

/** The call that ends a run in formats that end with one (xml); its `result` is the answer. */
const COMPLETION_TOOL = 'attempt_completion';

/** The exit status of a run stopped by Ctrl-C (SIGINT), as shells report a process it ended. */
export const INTERRUPTED_STATUS = 130;

interface Output {
  write(text: string): void;
  readonly isTTY?: boolean;
}

/**
 * Writes a run to a terminal as it streams: reasoning dimmed, calls, result summaries. Every
 * piece of model or tool text goes through `neutraliseControls` (terminal-text.ts), so what a
 * model or a file writes cannot drive the terminal; the only escape sequences written are this
 * view's own styling (SGR colours) and its progress line's erase, on a terminal only.
 */
export class TerminalView implements QuestionDisplay {
  private readonly out: Output;
  private readonly color: boolean;
  private atLineStart = true;
  private section: 'text' | 'reasoning' | undefined;
  /** Holds a carriage return split from its newline across the deltas of text or reasoning. */
  private readonly streamed = new TerminalTextFilter();
  private progress: ReturnType<typeof setInterval> | undefined;
  private readonly running = new Map<string, { name: string; started: number }>();
  /** The text the model wrote in the current step, to tell whether the answer was streamed. */
  private stepText = '';
  /** A question waits for the user's answer: the progress line must not draw over it. */
  private prompting = false;

  /** The completion call is not shown as a call: its `result` is printed as the answer. */
  private readonly completionTool: string;

  constructor(out: Output, color = out.isTTY === true, completionTool = COMPLETION_TOOL) {
    this.out = out;
    this.color = color;
    this.completionTool = completionTool;
  }

  private style(code: string, text: string): string {
    return this.color ? `\x1b[${code}m${text}\x1b[0m` : text;
  }

  /** Writes a line of the view's own; model and tool text in it must already be `safe`. */
  private line(text: string): void {
    this.endStream();
    this.clearProgress();
    if (!this.atLineStart) this.out.write('\n');
    this.out.write(`${text}\n`);
    this.atLineStart = true;
    this.section = undefined;
  }

  private stream(kind: 'text' | 'reasoning', delta: string): void {
    this.clearProgress();
    if (this.section !== kind) {
      this.endStream();
      if (!this.atLineStart) this.out.write('\n');
    }
    this.section = kind;
    this.writeStreamed(this.streamed.push(delta));
  }

  private writeStreamed(text: string): void {
    if (text.length === 0) return;
    this.out.write(this.section === 'reasoning' ? this.style('2', text) : text);
    this.atLineStart = text.endsWith('\n');
  }

  /** A carriage return held at the end of the streamed text is shown when the text ends. */
  private endStream(): void {
    this.writeStreamed(this.streamed.flush());
  }

  show(event: AgentEvent): void {
    switch (event.type) {
      case 'step-start':
        this.stepText = '';
        this.line(this.style('2', `── step ${event.step}`));
        break;
      case 'reasoning-delta':
        this.stream('reasoning', event.delta);
        break;
      case 'text-delta':
        this.stepText += event.delta;
        this.stream('text', event.delta);
        break;
      case 'tool-call':
        if (event.toolName === this.completionTool) break;
        this.line(
          `${this.style('36', `→ ${safe(event.toolName)}`)} ${safe(summarise(JSON.stringify(event.input) ?? 'null', 200))}`,
        );
        this.running.set(event.toolCallId, { name: event.toolName, started: Date.now() });
        this.startProgress();
        break;
      case 'tool-result': {
        this.running.delete(event.toolCallId);
        const text =
          typeof event.output === 'string'
            ? event.output
            : (JSON.stringify(event.output) ?? String(event.output));
        const lines = text.split('\n').length;
        this.line(
          `${this.style('32', `← ${safe(event.toolName)}`)} ${lines} line${lines === 1 ? '' : 's'}: ${safe(summarise(text, 120))}`,
        );
        break;
      }
      case 'tool-error':
        this.running.delete(event.toolCallId);
        this.line(
          `${this.style('31', `✗ ${safe(event.toolName)}`)} ${event.kind}: ${safe(summarise(event.error, 300))}`,
        );
        break;
      case 'protocol-error':
        this.line(this.style('33', `! malformed call: ${safe(event.fault.message)}`));
        break;
      case 'finish':
        this.stopProgress();
        if (event.stopReason === 'completed') {
          // A turn without calls is the answer (hermes and most formats): it has just streamed.
          if (event.answer === undefined || sameWords(event.answer, this.stepText))
            this.endStream();
          else this.line(`\n${this.style('1', 'Answer:')}\n${safe(event.answer)}`);
        } else if (event.stopReason !== 'aborted') {
          // An aborted run is the user's Ctrl-C: the command says so on stderr.
          this.line(
            this.style('33', `Stopped (${event.stopReason}): ${safe(event.message ?? '')}`),
          );
        }
        this.line(
          this.style(
            '2',
            `${event.steps} step${event.steps === 1 ? '' : 's'}, ${describeUsage(event.usage)}`,
          ),
        );
        break;
    }
  }

  /** A progress line while tools run (terminals only: it rewrites itself). */
  private startProgress(): void {
    if (!this.out.isTTY || this.progress) return;
    this.progress = setInterval(() => {
      if (this.running.size === 0 || this.prompting) return;
      const now = Date.now();
      const names = [...this.running.values()]
        .map((tool) => `${safe(tool.name)} ${((now - tool.started) / 1000).toFixed(1)}s`)
        .join(', ');
      this.out.write(`\r\x1b[2K${this.style('2', `  running ${names}`)}`);
      this.atLineStart = false;
      this.section = undefined;
    }, 200);
    this.progress.unref?.();
  }

  private clearProgress(): void {
    if (this.out.isTTY && this.progress && !this.atLineStart && this.section === undefined) {
      this.out.write('\r\x1b[2K');
      this.atLineStart = true;
    }
  }

  /** Shows a question for the user; the answer is typed on the line after it. */
  beginPrompt(question: string): void {
    this.line(`${this.style('1;35', '?')} ${safe(question)}`);
    this.out.write(this.style('35', '> '));
    this.atLineStart = false;
    this.prompting = true;
  }

  /** The user pressed Enter (the terminal echoed the newline) or the question was given up. */
  endPrompt(): void {
    this.prompting = false;
    this.atLineStart = true;
  }

  stopProgress(): void {
    this.clearProgress();
    clearInterval(this.progress);
    this.progress = undefined;
  }
}

/** The exit status of a failed run: 3 when no model server answers, 1 for any other failure. */
export const UNREACHABLE_STATUS = 3;

function exitStatusOf(error: ToolwireError): number {
  switch (error.kind) {
    case 'model-unreachable':
      return ModelCallError.isInstance(error) && error.brokeOff ? 1 : UNREACHABLE_STATUS;
    default:
      return 1;
  }
}

/** Token counts for the run's last line; a count the server did not report is "unknown", not 0. */
export function describeUsage(usage: AgentUsage): string {
  const { inputTokens, outputTokens } = usage;
  if (inputTokens === undefined && outputTokens === undefined) return 'token usage unknown';
  return `${inputTokens ?? 'unknown'} input and ${outputTokens ?? 'unknown'} output tokens`;
}

/** The same text but for spacing: a streamed answer against the run's final answer. */
function sameWords(a: string, b: string): boolean {
  const words = (text: string) => text.replace(/\s+/g, ' ').trim();
  return words(a) === words(b);
}

function summarise(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Standard input: a terminal the user can answer `ask_user` on, or not. */
export interface Input extends NodeJS.ReadableStream {
  readonly isTTY?: boolean;
}

/** `toolwire agent`: runs the code assistant and shows the run; resolves with the exit status. */
export async function agentCommand(
  args: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
  input: Input = process.stdin,
): Promise<number> {
  const { values, positionals } = parseCommandLine(
    'agent',
    args,
    { ...HELP_OPTION, ...MODEL_FLAGS, 'max-steps': { type: 'string' } },
    true,
  );
  if (values.help) {
    out.write(helpOf(AGENT_USAGE));
    return 0;
  }
  const question = positionals.join(' ').trim();
  if (question.length === 0)
    throw new UsageError('missing the question: toolwire agent "<question>" --root <dir>');
  if (values.root === undefined)
    throw new UsageError('missing --root <dir>: the folder the tools may read');
  const root = await rootSetting(values.root);
  const maxSteps = wholeNumber(values['max-steps'], '--max-steps', 1);
  const endpoint = modelSetting(values);
  const { protocol } = await commandProtocol(values, endpoint.modelName);
  const view = new TerminalView(out);
  // Without a terminal to answer on (a pipe, a file, a job), the agent has no one to ask.
  const tools = {
    ...createCodeTools({ root }),
    ...(input.isTTY ? { ask_user: terminalAskUser(input, view) } : {}),
  };
  const controller = new AbortController();
  let interrupted = false;
  const onInterrupt = () => {
    interrupted = true;
    controller.abort();
  };
  // Once: a second Ctrl-C ends the process at once, should the run not stop.
  process.once('SIGINT', onInterrupt);
  try {
    const run = runAgent({
      model: openAICompatibleModel(endpoint),
      protocol,
      tools,
      completionTool: COMPLETION_TOOL,
      prompt: question,
      system: `You are a code assistant working in the repository at ${root}. Use the tools to find the answer; paths are relative to the repository root.`,
      signal: controller.signal,
      ...(maxSteps === undefined ? {} : { maxSteps }),
    });
    for await (const event of run) view.show(event);
    const result = await run.result;
    if (interrupted) {
      err.write('toolwire: interrupted (Ctrl-C); the run was stopped\n');
      return INTERRUPTED_STATUS;
    }
    if (result.stopReason === 'error') {
      if (result.error === undefined) {
        err.write(`toolwire: ${safe(result.message ?? 'the run failed')}\n`);
        return 1;
      }
      const { message: said, hint } = describeRunError(result.error, {
        baseURL: endpoint.baseURL,
        model: endpoint.modelName,
      });
      // The message may quote the model server's own error text.
      err.write(`toolwire: ${safe(said)}\n${hint ? `${safe(hint)}\n` : ''}`);
      return exitStatusOf(result.error);
    }
    return result.stopReason === 'completed' ? 0 : 1;
  } finally {
    view.stopProgress();
    process.off('SIGINT', onInterrupt);
  }
}
