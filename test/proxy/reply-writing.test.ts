/**
 * Streaming a reply straight to Node's response: the head goes out with the first batch, each
 * batch is written on the turn it comes, a full client buffer pauses the reading, the end or an
 * error closes the stream, and the place is given back once.
 */
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../src/http/http-error.ts';
import type { PendingReply, Place } from '../../src/proxy/context.ts';
import { MemoryBudget } from '../../src/proxy/memory-budget.ts';
import type { ReplyEvent } from '../../src/proxy/reply-events.ts';
import type { ReplyEnd } from '../../src/proxy/reply-run.ts';
import { collectReply, type ReplyWriter, streamedReply } from '../../src/proxy/reply-writing.ts';

/** Node's response as far as the writer uses it; `full` makes writes report a full buffer. */
class FakeResponse extends EventEmitter {
  head: { status: number; headers: Record<string, string> } | undefined;
  written: string[] = [];
  ended: string | undefined;
  destroyed = false;
  writableFinished = false;
  full = false;
  writeHead(status: number, headers: Record<string, string>) {
    this.head = { status, headers };
    return this;
  }
  write(text: string) {
    this.written.push(text);
    return !this.full;
  }
  end(text: string) {
    this.ended = text;
    this.writableFinished = true;
  }
}

const writer: ReplyWriter = {
  start: () => '<start>',
  encode: (events) =>
    events.map((event) => ('delta' in event ? `<${event.type}:${event.delta}>` : '')).join(''),
  finish: (end) => `<end:${end.finishReason}>`,
  error: (error) => `<error:${error.status}>`,
};

/** A reply whose batches and end the test gives by hand. */
function scriptedRun() {
  let sink: (events: ReplyEvent[]) => void = () => {};
  let finish: (end: ReplyEnd) => void = () => {};
  let fail: (error: unknown) => void = () => {};
  const flow: string[] = [];
  const pending: PendingReply = (given) => {
    sink = given;
    return {
      ended: new Promise<ReplyEnd>((resolve, reject) => {
        finish = resolve;
        fail = reject;
      }),
      pause: () => flow.push('pause'),
      resume: () => flow.push('resume'),
    };
  };
  return {
    pending,
    flow,
    send: (events: ReplyEvent[]) => sink(events),
    finish: (end: ReplyEnd) => finish(end),
    fail: (error: unknown) => fail(error),
  };
}

function placeFor(outgoing?: FakeResponse): Place & { released: number } {
  const place = {
    controller: new AbortController(),
    memory: new MemoryBudget(1 << 20).open(),
    released: 0,
    done() {
      place.released++;
    },
    ...(outgoing ? { outgoing: outgoing as unknown as ServerResponse } : {}),
  };
  return place;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));
const END: ReplyEnd = { finishReason: 'stop', calls: 0, usage: undefined };

describe('streamedReply to Node', () => {
  it('writes the head with the first batch, each batch as it comes, then the end', async () => {
    const run = scriptedRun();
    const outgoing = new FakeResponse();
    const place = placeFor(outgoing);
    const answer = streamedReply(writer, run.pending, place);
    await turn();
    expect(outgoing.head).toBeUndefined();
    run.send([]);
    run.send([{ type: 'text', delta: 'a' }]);
    await answer;
    expect(outgoing.head?.status).toBe(200);
    expect(outgoing.head?.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(outgoing.written).toEqual(['<start><text:a>']);
    run.send([{ type: 'text', delta: 'b' }]);
    // Written on the turn the batch came: nothing waits in between.
    expect(outgoing.written).toEqual(['<start><text:a>', '<text:b>']);
    run.finish(END);
    await turn();
    expect(outgoing.ended).toBe('<end:stop>');
    expect(place.released).toBe(1);
  });

  it('pauses the reading while the client buffer is full and resumes on drain', async () => {
    const run = scriptedRun();
    const outgoing = new FakeResponse();
    const answer = streamedReply(writer, run.pending, placeFor(outgoing));
    run.send([]);
    await answer;
    outgoing.full = true;
    run.send([{ type: 'text', delta: 'a' }]);
    run.send([{ type: 'text', delta: 'b' }]);
    expect(run.flow).toEqual(['pause']);
    outgoing.full = false;
    outgoing.emit('drain');
    expect(run.flow).toEqual(['pause', 'resume']);
    run.send([{ type: 'text', delta: 'c' }]);
    expect(run.flow).toEqual(['pause', 'resume']);
  });

  it('throws a failure before the first batch (the route answers it as an HTTP error)', async () => {
    const run = scriptedRun();
    const outgoing = new FakeResponse();
    const answer = streamedReply(writer, run.pending, placeFor(outgoing));
    const refused = new HttpError(422, 'no call');
    run.fail(refused);
    await expect(answer).rejects.toBe(refused);
    expect(outgoing.head).toBeUndefined();
  });

  it('ends a stream that failed after its start with the API error event', async () => {
    const run = scriptedRun();
    const outgoing = new FakeResponse();
    const place = placeFor(outgoing);
    const answer = streamedReply(writer, run.pending, place);
    run.send([{ type: 'text', delta: 'a' }]);
    await answer;
    run.fail(new HttpError(502, 'the model server broke off'));
    await turn();
    expect(outgoing.ended).toBe('<error:502>');
    expect(place.released).toBe(1);
  });
});

describe('streamedReply without Node (a web stream)', () => {
  it('streams the same text and gives the place back at the end', async () => {
    const run = scriptedRun();
    const place = placeFor();
    const answer = streamedReply(writer, run.pending, place, {
      contentType: 'application/x-ndjson',
    });
    run.send([{ type: 'text', delta: 'a' }]);
    const response = await answer;
    expect(response.headers.get('content-type')).toBe('application/x-ndjson');
    run.send([{ type: 'reasoning', delta: 'r' }]);
    run.finish(END);
    expect(await response.text()).toBe('<start><text:a><reasoning:r><end:stop>');
    expect(place.released).toBe(1);
  });
});

describe('collectReply', () => {
  it('adds every batch and builds the body at the end', async () => {
    const run = scriptedRun();
    const seen: string[] = [];
    const body = collectReply(run.pending, {
      add: (events) => seen.push(writer.encode(events)),
      build: (end) => ({ seen: [...seen], end: end.finishReason }),
    });
    run.send([{ type: 'text', delta: 'a' }]);
    run.send([]);
    run.finish(END);
    expect(await body).toEqual({ seen: ['<text:a>', ''], end: 'stop' });
  });
});
