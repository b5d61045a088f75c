/**
 * How a reply run reaches the client, whichever API it speaks: streamed through the API's event
 * writer, or collected whole by the API's builder.
 *
 * Served by Node (the proxy's own server), a stream is written straight to Node's response on
 * the turn the model server's bytes arrived: no web stream, no encoder, no promise between a
 * network read and the write it makes, and reading pauses while the client's buffer is full.
 * Served any other way (`app.request`, another runtime), it is a web stream.
 */
import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { HttpError } from '../http/http-error.ts';
import { SSE_HEADERS, sseResponse } from '../http/sse-response.ts';
import type { PendingReply, Place } from './context.ts';
import { httpErrorOf } from './errors.ts';
import type { ReplyEvent } from './reply-events.ts';
import type { ReplyEnd, ReplyRun } from './reply-run.ts';

// @hono/node-server's marker for "the response was written already" is honoured only on a full
// Response. Made while that server's lightweight Response stands in for the global one (this
// module loaded after some app started serving), it would be answered from a cache that ignores
// the marker, writing a second head. Reading its body makes it a full Response for good.
void RESPONSE_ALREADY_SENT.body;

/** How one API writes a streamed reply, as the text of its wire format (SSE events, NDJSON lines). */
export interface ReplyWriter {
  /** What the stream begins with once the model server has answered. */
  start(): string;
  encode(events: readonly ReplyEvent[]): string;
  /**
   * What the stream ends with; a promise when something must happen first (a Responses reply is
   * stored before `response.completed`). A failure there ends the stream with `error`'s text.
   */
  finish(end: ReplyEnd): string | Promise<string>;
  error(error: HttpError): string;
}

/** How one API collects a whole reply into its body. */
export interface ReplyCollector<Body> {
  add(events: readonly ReplyEvent[]): void;
  /** The body; a promise when something must happen before it is sent (storing it). */
  build(end: ReplyEnd): Body | Promise<Body>;
}

export interface StreamedReplyOptions {
  /** Headers added to the response's. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The stream's media type when it is not Server-Sent Events (Ollama's NDJSON). */
  readonly contentType?: string;
}

/** How a route answers with a reply: streamed by its writer, or collected whole. */
export interface ReplyAnswer<Body> {
  readonly stream: boolean;
  /** Made only when the reply is streamed. */
  writer(): ReplyWriter;
  /** Made only when the reply is collected. */
  collector(): ReplyCollector<Body>;
  /** Headers of either answer (a stream's media type and SSE headers are added to them). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A stream's media type when it is not Server-Sent Events. */
  readonly contentType?: string;
}

/**
 * The route's response: the reply streamed (the stream gives the place back when it ends) or
 * collected into one JSON body (the place given back once it is built).
 */
export async function answerReply<Body>(
  pending: PendingReply,
  place: Place,
  answer: ReplyAnswer<Body>,
): Promise<Response> {
  if (answer.stream)
    return streamedReply(answer.writer(), pending, place, {
      ...(answer.headers === undefined ? {} : { headers: answer.headers }),
      ...(answer.contentType === undefined ? {} : { contentType: answer.contentType }),
    });
  const body = await collectReply(pending, answer.collector());
  place.done();
  return Response.json(body, answer.headers === undefined ? {} : { headers: answer.headers });
}

/** Reads the reply to its end into the API's body. */
export async function collectReply<Body>(
  pending: PendingReply,
  collector: ReplyCollector<Body>,
): Promise<Body> {
  const run = pending((events) => collector.add(events));
  return await collector.build(await run.ended);
}

/**
 * Streams a reply. The response begins once the first batch is ready, so an error before it (no
 * model server, its error status, a demanded call never written) is an HTTP error in the
 * client's format; an error after it ends the stream with the API's error event. The place is
 * given back when the stream ends.
 */
export async function streamedReply(
  writer: ReplyWriter,
  pending: PendingReply,
  place: Place,
  options: StreamedReplyOptions = {},
): Promise<Response> {
  // Batches come before anything is written: held until the head is sent.
  let early: ReplyEvent[][] | undefined = [];
  let write: (events: ReplyEvent[]) => void = (events) => early?.push(events);
  let began: () => void = () => {};
  const beginning = new Promise<void>((resolve) => {
    began = resolve;
  });
  const run = pending((events) => {
    began();
    write(events);
  });
  // Whichever comes first: the first batch, or the end (a failure before it is thrown here).
  await Promise.race([beginning, run.ended]);
  const headers: Record<string, string> =
    options.contentType === undefined
      ? { ...SSE_HEADERS, ...options.headers }
      : { 'content-type': options.contentType, 'cache-control': 'no-cache', ...options.headers };
  const waiting = early;
  early = undefined;
  const outgoing = place.outgoing;
  if (outgoing !== undefined) {
    write = writeToNode(outgoing, writer, run, place, headers, waiting);
    return RESPONSE_ALREADY_SENT;
  }
  return webStream(writer, run, place, headers, waiting, (next) => {
    write = next;
  });
}

/** Ends the stream with the run's end, or its error event (the run's failure, or the finish's). */
function ending(writer: ReplyWriter, run: ReplyRun): Promise<string> {
  return run.ended
    .then((end) => writer.finish(end))
    .catch((error: unknown) => writer.error(httpErrorOf(error)));
}

function writeToNode(
  outgoing: ServerResponse,
  writer: ReplyWriter,
  run: ReplyRun,
  place: Place,
  headers: Record<string, string>,
  waiting: readonly ReplyEvent[][],
): (events: ReplyEvent[]) => void {
  let waitingForDrain = false;
  const resume = () => {
    waitingForDrain = false;
    run.resume();
  };
  const send = (text: string) => {
    if (text.length === 0 || outgoing.destroyed) return;
    // The client reads slower than the model writes: stop reading until its buffer drains.
    if (!outgoing.write(text) && !waitingForDrain) {
      waitingForDrain = true;
      run.pause();
      outgoing.once('drain', resume);
    }
  };
  outgoing.writeHead(200, headers);
  let text = writer.start();
  for (const events of waiting) text += writer.encode(events);
  send(text);
  void ending(writer, run).then((last) => {
    if (!outgoing.destroyed) outgoing.end(last);
    place.done();
  });
  return (events) => send(writer.encode(events));
}

function webStream(
  writer: ReplyWriter,
  run: ReplyRun,
  place: Place,
  headers: Record<string, string>,
  waiting: readonly ReplyEvent[][],
  setWrite: (write: (events: ReplyEvent[]) => void) => void,
): Response {
  const encoder = new TextEncoder();
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        if (text.length === 0 || closed) return;
        controller.enqueue(encoder.encode(text));
        if ((controller.desiredSize ?? 1) <= 0) run.pause();
      };
      let text = writer.start();
      for (const events of waiting) text += writer.encode(events);
      send(text);
      setWrite((events) => send(writer.encode(events)));
      void ending(writer, run).then((last) => {
        if (closed) return;
        send(last);
        closed = true;
        controller.close();
        place.done();
      });
    },
    pull() {
      run.resume();
    },
    cancel() {
      // The client went away: stop asking the model server.
      closed = true;
      place.controller.abort();
      place.done();
    },
  });
  // The SSE headers are the default; the caller's (a media type of its own) replace them.
  return headers['content-type'] === SSE_HEADERS['content-type']
    ? sseResponse(stream, headers)
    : new Response(stream, { headers });
}
