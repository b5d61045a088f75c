/**
 * How a reply run reaches the client, whichever API it speaks: streamed through the API's event
 * writer, or collected whole by the API's builder.
 */
import type { HttpError } from '../http/http-error.ts';
import { sseResponse } from '../http/sse-response.ts';
import type { Place, ReplyRun } from './context.ts';
import { httpErrorOf } from './errors.ts';
import type { ReplyEvent } from './reply-events.ts';
import type { ReplyEnd } from './reply-run.ts';

/** How one API writes a streamed reply, as the text of its wire format (SSE events, NDJSON lines). */
export interface ReplyWriter {
  /** What the stream begins with once the model server has answered. */
  start(): string;
  encode(events: readonly ReplyEvent[]): string;
  finish(end: ReplyEnd): string;
  error(error: HttpError): string;
}

/** How one API collects a whole reply into its body. */
export interface ReplyCollector<Body> {
  add(events: readonly ReplyEvent[]): void;
  build(end: ReplyEnd): Body;
}

export interface StreamedReplyOptions {
  /** Headers added to the response's. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The stream's media type when it is not Server-Sent Events (Ollama's NDJSON). */
  readonly contentType?: string;
  /** Called once the stream has ended (or failed, or the client left). */
  readonly onEnd?: () => void;
}

/** Reads the run to its end into the API's body. */
export async function collectReply<Body>(
  run: ReplyRun,
  collector: ReplyCollector<Body>,
): Promise<Body> {
  for (;;) {
    const step = await run.next();
    if (step.done) return collector.build(step.value);
    collector.add(step.value);
  }
}

/**
 * Streams a reply. The response begins once the first batch is ready, so an error before it (no
 * model server, its error status, a demanded call never written) is an HTTP error in the
 * client's format; an error after it ends the stream with the API's error event.
 */
export async function streamedReply(
  writer: ReplyWriter,
  run: ReplyRun,
  place: Place,
  options: StreamedReplyOptions = {},
): Promise<Response> {
  const encoder = new TextEncoder();
  let first: IteratorResult<ReplyEvent[], ReplyEnd> | undefined = await run.next();
  let started = false;
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    place.done();
    options.onEnd?.();
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let text = started ? '' : writer.start();
        started = true;
        // A pull that enqueues nothing is not called again: read on until there is output
        // (a call's end, say, writes nothing in chat completions) or the reply is over.
        for (;;) {
          const step = first ?? (await run.next());
          first = undefined;
          text += step.done ? writer.finish(step.value) : writer.encode(step.value);
          if (step.done) {
            controller.enqueue(encoder.encode(text));
            controller.close();
            end();
            return;
          }
          if (text.length > 0) break;
        }
        controller.enqueue(encoder.encode(text));
      } catch (error) {
        controller.enqueue(encoder.encode(writer.error(httpErrorOf(error))));
        controller.close();
        end();
      }
    },
    async cancel() {
      // The client went away: stop asking the model server.
      place.controller.abort();
      end();
      await run.return(undefined as never).catch(() => {});
    },
  });
  if (options.contentType === undefined) return sseResponse(stream, options.headers);
  return new Response(stream, {
    headers: {
      'content-type': options.contentType,
      'cache-control': 'no-cache',
      ...options.headers,
    },
  });
}
