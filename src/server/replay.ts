import { BlockEncoder, createBlockDecoder, frameSse } from '../stream/index.ts';

/**
 * A recorded content-block stream (an SSE body, as the server sent it) played back message by
 * message, so the page can be shown without a model. The bytes are the recording's, unchanged.
 */
export interface Recording {
  /** Shown to the user: where the recording came from (its file name). */
  readonly label: string;
  /** The SSE messages, each with its blank line. */
  readonly messages: readonly string[];
}

/** Splits an SSE body into messages (each ends with its blank line; CRLF is kept as written). */
export function parseRecording(body: string, label: string): Recording {
  const messages: string[] = [];
  const boundary = /\r?\n\r?\n/g;
  let start = 0;
  for (let match = boundary.exec(body); match !== null; match = boundary.exec(body)) {
    const end = match.index + match[0].length;
    messages.push(body.slice(start, end));
    start = end;
  }
  if (start < body.length) messages.push(body.slice(start));
  if (messages.length === 0) throw new Error(`the recording ${label} is empty`);
  return { label, messages };
}

/**
 * The recording as a response body: one message per pull, `delayMs` apart, like a run that
 * streams. Stops early when `signal` aborts (the stop button, a closed connection): then the
 * block being sent is closed and an error block says the replay was stopped, as for a live run.
 */
export function replayStream(
  recording: Recording,
  delayMs: number,
  signal: AbortSignal,
  onEnd: (outcome: 'completed' | 'aborted') => void,
): ReadableStream<Uint8Array> {
  const utf8 = new TextEncoder();
  // Follows what was sent, to know which block to close when stopped in the middle of one.
  const sent = createBlockDecoder();
  let index = 0;
  let ended = false;
  const end = (outcome: 'completed' | 'aborted') => {
    if (ended) return;
    ended = true;
    onEnd(outcome);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (index > 0 && delayMs > 0) await sleep(delayMs, signal);
        if (signal.aborted) {
          if (!ended) controller.enqueue(utf8.encode(stoppedTail(sent.receiving?.tag)));
          end('aborted');
          controller.close();
          return;
        }
        const message = recording.messages[index++];
        if (message === undefined) {
          end('completed');
          controller.close();
          return;
        }
        sent.push(message);
        controller.enqueue(utf8.encode(message));
      },
      cancel() {
        end('aborted');
      },
    },
    { highWaterMark: 0 },
  );
}

function stoppedTail(openTag: string | undefined): string {
  const close = openTag === undefined ? '' : frameSse(`</${openTag}>`);
  return (
    close +
    new BlockEncoder().encode({
      type: 'error',
      error: { type: 'aborted', message: 'The replay was stopped.' },
    })
  );
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
