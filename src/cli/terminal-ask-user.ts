import { createInterface } from 'node:readline';
import { type AgentTool, ASK_USER_TOOL } from '../agent/index.ts';

/** Where the question is shown: the run's terminal view, which also stops its progress line. */
export interface QuestionDisplay {
  beginPrompt(question: string): void;
  endPrompt(): void;
}

/** Reads one line from `input`; rejects when the run is aborted or the input ends first. */
function readOneLine(input: NodeJS.ReadableStream, signal: AbortSignal): Promise<string> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    // Not in terminal mode: the terminal's own line editing applies and Ctrl-C stays a SIGINT
    // for the process, which aborts the run (and so this read).
    const lines = createInterface({ input, terminal: false });
    let settled = false;
    const settle = (finish: () => void) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      lines.close();
      finish();
    };
    const onAbort = () => settle(() => reject(signal.reason));
    lines.once('line', (line) => settle(() => resolve(line)));
    lines.once('close', () =>
      settle(() => reject(new Error('the user gave no answer (standard input ended)'))),
    );
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * `ask_user` for `toolwire agent` on a terminal: the question is shown and the user's next line
 * is the answer. Questions asked in the same turn are asked one after the other, so that each
 * line answers the question shown above it.
 */
export function terminalAskUser(input: NodeJS.ReadableStream, display: QuestionDisplay): AgentTool {
  let previous: Promise<unknown> = Promise.resolve();
  return {
    ...ASK_USER_TOOL,
    // A person answers in their own time: the run's tool time limit does not apply.
    timeoutMs: Number.POSITIVE_INFINITY,
    execute: ({ question }: { question: string }, { signal }) => {
      const answer = previous.then(async () => {
        display.beginPrompt(question);
        try {
          return await readOneLine(input, signal);
        } finally {
          display.endPrompt();
        }
      });
      previous = answer.catch(() => undefined);
      return answer;
    },
  };
}
