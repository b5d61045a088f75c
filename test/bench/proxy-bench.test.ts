/**
 * The proxy bench (bench/proxy.ts and its modules): its scripted replies must be readable by the
 * formats they are written in, its model server, pipe and pass-through must deliver them byte
 * for byte, its checks must accept toolwire's replies on every API and fail a wrong or cut-off
 * one, and its figures must be the arithmetic they claim; otherwise the bench could time
 * something broken and look fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summariseProfile } from '../../bench/cpu-profile.ts';
import { seededRandom } from '../../bench/fixtures.ts';
import { createPassThroughApp } from '../../bench/pass-through.ts';
import { type RunningPipe, startPipe } from '../../bench/pipe.ts';
import { benchProxy, PROXY_BENCH_SETTINGS } from '../../bench/proxy.ts';
import {
  forwardedProblem,
  forwardedWholeProblem,
  proxiedProblem,
  type ReplyKind,
  readChatStream,
  replyProblem,
} from '../../bench/proxy-check.ts';
import { benchServerApp } from '../../bench/proxy-child.ts';
import {
  cpuRows,
  firstByteRows,
  memoryRows,
  overSets,
  type ProxyTarget,
  pacedCpuRatio,
  pacedRows,
  percentile,
  proxyTargets,
  throughputRows,
} from '../../bench/proxy-figures.ts';
import {
  benchAgent,
  dropIdleConnections,
  type Exchange,
  exchange,
  runJobs,
} from '../../bench/proxy-load.ts';
import {
  API_PATHS,
  apiRequestBody,
  BENCH_APIS,
  BENCH_TOOLS,
  benchReplySet,
  chatRequestBody,
  probeReplies,
  REPLY_FORMATS,
  replyRanges,
  requestedReply,
  scriptedReplies,
  tokenPieces,
} from '../../bench/proxy-replies.ts';
import { evenLengths, type SetResult } from '../../bench/proxy-set.ts';
import {
  type BenchUpstream,
  replyEvents,
  replyJson,
  startBenchUpstream,
} from '../../bench/proxy-upstream.ts';
import { benchSelection, withSection } from '../../bench/sections.ts';
import { type RunningServer, startServer } from '../../src/http/node-server.ts';
import { formatForModel, protocolByName } from '../../src/index.ts';

const replies = scriptedReplies(12, 41);

describe('proxy bench replies', () => {
  it('alternate hermes and qwen3-coder, each with a model id that --protocol model maps to its format', () => {
    expect(new Set(replies.map((reply) => reply.format))).toEqual(
      new Set(['hermes', 'qwen3-coder']),
    );
    for (const [format, model] of Object.entries(REPLY_FORMATS))
      expect(formatForModel(model).name).toBe(format);
  });

  it('hold prose and calls of realistic size that the format reads back exactly', () => {
    const sizes: number[] = [];
    for (const reply of [...replies, ...scriptedReplies(6, 41, 1480), ...probeReplies(4, 41, 6)]) {
      expect(reply.text.startsWith(reply.prose)).toBe(true);
      const parsed = protocolByName(reply.format)
        .parseGeneratedText(reply.text, { tools: BENCH_TOOLS })
        .filter((part) => part.type === 'tool-call');
      expect(parsed.map((part) => part.toolName)).toEqual(reply.calls.map((call) => call.toolName));
      parsed.forEach((part, at) => {
        expect(JSON.parse(part.input)).toEqual(reply.calls[at]!.input);
        sizes.push(part.input.length);
      });
    }
    expect(Math.max(...sizes)).toBeGreaterThan(2000);
    expect(replies.some((reply) => reply.calls.length === 2)).toBe(true);
  });

  it('split into tokens of 1 to 6 characters that join to the text', () => {
    for (const reply of replies) {
      expect(reply.tokens.join('')).toBe(reply.text);
      expect(reply.tokens.every((token) => token.length >= 1 && token.length <= 6)).toBe(true);
    }
    expect(tokenPieces('', seededRandom(1))).toEqual([]);
  });

  it('are the same for the same seed, so every process builds the same list', () => {
    expect(scriptedReplies(12, 41)).toEqual(replies);
    expect(scriptedReplies(12, 42)[0]!.text).not.toBe(replies[0]!.text);
  });

  it('sized: about the tokens asked for, each SSE event a token, the calls as they were', () => {
    const sized = scriptedReplies(12, 41, 1480);
    for (const [at, reply] of sized.entries()) {
      expect(reply.tokens.length).toBeGreaterThan(1480 * 0.9);
      expect(reply.tokens.length).toBeLessThan(1480 * 1.1);
      expect(reply.calls).toEqual(replies[at]!.calls);
      expect(replyEvents(reply)).toHaveLength(reply.tokens.length + 3);
    }
  });

  it('the set with paced replies: the same calls in shorter replies, numbered after the long ones', () => {
    const shape = { count: 4, seed: 41, tokensPerReply: 600, pacedTokensPerReply: 200, probes: 2 };
    const set = benchReplySet(shape);
    const ranges = replyRanges(shape);
    expect(ranges).toEqual({
      long: { from: 0, count: 4 },
      paced: { from: 4, count: 4 },
      probes: { from: 8, count: 2 },
    });
    expect(set.map((reply) => reply.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (let at = 0; at < 4; at++) {
      const [long, paced] = [set[at]!, set[4 + at]!];
      expect(paced.calls).toEqual(long.calls);
      expect(paced.tokens.length).toBeLessThan(long.tokens.length / 2);
      expect(requestedReply(JSON.parse(chatRequestBody(paced)))).toBe(4 + at);
    }
    expect(replyRanges({ ...shape, pacedTokensPerReply: 0 }).probes.from).toBe(4);
  });

  it('the paced streams leave out the replies much longer than the rest', () => {
    const shape = { count: 20, seed: 3100, tokensPerReply: 0, pacedTokensPerReply: 740, probes: 0 };
    const set = benchReplySet(shape);
    const chosen = evenLengths(set, replyRanges(shape).paced);
    const lengths = chosen.map((index) => set[index]!.tokens.length);
    expect(chosen.length).toBeGreaterThanOrEqual(15);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(740 * 1.1);
    expect(chosen.every((index) => index >= 20 && index < 40)).toBe(true);
  });

  it('the set: long replies, then short probe replies, each at the index it is named by', () => {
    const set = benchReplySet({
      count: 4,
      seed: 41,
      tokensPerReply: 200,
      pacedTokensPerReply: 0,
      probes: 3,
    });
    expect(set.map((reply) => reply.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(set.slice(4).every((reply) => reply.tokens.length < 60)).toBe(true);
    expect(set.slice(0, 4).every((reply) => reply.tokens.length > 150)).toBe(true);
  });

  it('are named by the request, and found again after the proxy rendered it', () => {
    const body = JSON.parse(chatRequestBody(replies[7]!));
    expect(body.stream).toBe(true);
    expect(body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toEqual(
      BENCH_TOOLS.map((tool) => tool.name),
    );
    expect(requestedReply(body)).toBe(7);
    expect(
      requestedReply({
        messages: [
          { role: 'system', content: 'x' },
          { role: 'user', content: `${'y'.repeat(40)} bench reply #11, then` },
        ],
      }),
    ).toBe(11);
    expect(
      requestedReply({
        messages: [{ role: 'user', content: [{ type: 'text', text: 'see bench reply #3.' }] }],
      }),
    ).toBe(3);
    expect(requestedReply({ messages: [{ role: 'user', content: 'no mark' }] })).toBeUndefined();
    expect(requestedReply({})).toBeUndefined();
  });

  it('each API asks with the same tools in its own shape, streamed or not', () => {
    const reply = replies[2]!;
    for (const api of BENCH_APIS)
      for (const stream of [true, false]) {
        const body = JSON.parse(apiRequestBody(api, reply, stream));
        expect(body.stream).toBe(stream);
        expect(body.model).toBe(reply.model);
        const names = body.tools.map(
          (tool: { name?: string; function?: { name: string } }) =>
            tool.name ?? tool.function?.name,
        );
        expect(names).toEqual(BENCH_TOOLS.map((tool) => tool.name));
      }
    expect(JSON.parse(apiRequestBody('messages', reply, true)).tools[0].input_schema).toEqual(
      BENCH_TOOLS[0]!.inputSchema,
    );
    expect(JSON.parse(apiRequestBody('responses', reply, false)).tools[0].type).toBe('function');
  });
});

describe('proxy bench checks', () => {
  const reply = replies.find((entry) => entry.calls.length === 2)!;
  const forwarded = replyEvents(reply).join('');

  it('accept the model server stream as it is, and refuse it changed or cut off', () => {
    expect(forwardedProblem(forwarded, reply)).toBeUndefined();
    expect(forwardedProblem(forwarded.replace('data: [DONE]\n\n', ''), reply)).toMatch(/DONE/);
    const cut = replyEvents(reply);
    cut.splice(5, 1);
    expect(forwardedProblem(cut.join(''), reply)).toMatch(/text differs/);
  });

  it('accept the whole reply as it is, and refuse another', () => {
    expect(forwardedWholeProblem(replyJson(reply), reply)).toBeUndefined();
    expect(forwardedWholeProblem(replyJson(replies[0]!), reply)).toMatch(/text differs/);
    expect(forwardedWholeProblem(replyJson(reply).slice(0, 100), reply)).toMatch(/not JSON/);
  });

  const proxied = (calls: { name: string; arguments: string }[], content = reply.prose) => {
    const chunk = (delta: object, finish: string | null = null) =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    let body = chunk({ role: 'assistant', content: '' }) + chunk({ content });
    calls.forEach((call, index) => {
      body += chunk({
        tool_calls: [
          {
            index,
            id: `call_${index}`,
            type: 'function',
            function: { name: call.name, arguments: '' },
          },
        ],
      });
      // Arguments in two pieces, as a streamed call arrives.
      const half = call.arguments.length >> 1;
      body += chunk({
        tool_calls: [{ index, function: { arguments: call.arguments.slice(0, half) } }],
      });
      body += chunk({
        tool_calls: [{ index, function: { arguments: call.arguments.slice(half) } }],
      });
    });
    return body + chunk({}, 'tool_calls') + 'data: [DONE]\n\n';
  };
  const right = reply.calls.map((call) => ({
    name: call.toolName,
    arguments: JSON.stringify(call.input),
  }));

  it('accept the proxy stream with the prose and every call with its exact arguments', () => {
    expect(proxiedProblem(proxied(right), reply)).toBeUndefined();
    const reading = readChatStream(proxied(right));
    expect(reading.calls.map((call) => call.name)).toEqual(
      reply.calls.map((call) => call.toolName),
    );
  });

  it('refuse a proxy stream with a wrong argument, a missing call, other text or no finish', () => {
    const changed = right.map((call, at) =>
      at === 0 ? { ...call, arguments: call.arguments.replace(/"path":"/, '"path":"x') } : call,
    );
    expect(proxiedProblem(proxied(changed), reply)).toMatch(/arguments/);
    expect(proxiedProblem(proxied(right.slice(0, 1)), reply)).toMatch(/1 calls, expected 2/);
    expect(proxiedProblem(proxied(right, 'something else'), reply)).toMatch(/content/);
    expect(proxiedProblem(proxied(right).replace('"tool_calls"}', '"stop"}'), reply)).toMatch(
      /finish_reason/,
    );
    expect(
      proxiedProblem(`${proxied(right)}data: {"error":{"message":"boom"}}\n\n`, reply),
    ).toMatch(/error event/);
  });
});

describe('proxy bench servers', () => {
  const set = benchReplySet({
    count: 6,
    seed: 41,
    tokensPerReply: 300,
    pacedTokensPerReply: 0,
    probes: 2,
  });
  let upstream: BenchUpstream;
  let passThrough: RunningServer;
  let proxy: RunningServer;
  let pipe: RunningPipe;
  const agent = benchAgent();
  const bodies = set.map((reply) => Buffer.from(chatRequestBody(reply)));

  beforeAll(async () => {
    upstream = await startBenchUpstream(set, 0, 6);
    passThrough = await startServer(createPassThroughApp(upstream.url), {
      port: 0,
      host: '127.0.0.1',
    });
    proxy = await startServer(benchServerApp('proxy', upstream.url), {
      port: 0,
      host: '127.0.0.1',
    });
    pipe = await startPipe(upstream.url);
  });
  afterAll(async () => {
    agent.destroy();
    await pipe?.close();
    await proxy?.close();
    await passThrough?.close();
    await upstream?.close();
  });

  const jobs = (side: string, url: string) =>
    set.map((reply) => ({ side, url, reply: reply.index }));

  it('the upstream streams the named reply; the pipe and the pass-through pass it on byte for byte', async () => {
    const direct = await runJobs(agent, jobs('direct', upstream.url), 4, bodies);
    const passed = await runJobs(agent, jobs('pass-through', `${passThrough.url}/v1`), 4, bodies);
    const piped = await runJobs(agent, jobs('pipe', `${pipe.url}/v1`), 4, bodies);
    for (const [at, reply] of set.entries()) {
      expect(direct[at]!.body).toBe(replyEvents(reply).join(''));
      expect(passed[at]!.body).toBe(direct[at]!.body);
      expect(piped[at]!.body).toBe(direct[at]!.body);
      expect(piped[at]!.firstByteMs).toBeLessThanOrEqual(piped[at]!.firstTokenMs);
      expect(piped[at]!.firstTokenMs).toBeLessThanOrEqual(piped[at]!.totalMs);
    }
  });

  it('not streamed, the upstream answers one chat completion, and the pipe passes it on', async () => {
    const whole = set.map((reply) => Buffer.from(chatRequestBody(reply, false)));
    const direct = await runJobs(agent, jobs('direct', upstream.url), 4, whole);
    const piped = await runJobs(agent, jobs('pipe', `${pipe.url}/v1`), 4, whole);
    for (const [at, reply] of set.entries()) {
      expect(direct[at]!.body).toBe(replyJson(reply));
      expect(piped[at]!.body).toBe(direct[at]!.body);
      expect(forwardedWholeProblem(piped[at]!.body, reply)).toBeUndefined();
    }
  });

  it('the pipe passes a refusal on with its status', async () => {
    const [result] = await runJobs(agent, [{ side: 'pipe', url: `${pipe.url}/v1`, reply: 0 }], 1, [
      Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }] })),
    ]);
    expect(result!.status).toBe(400);
    expect(result!.body).toMatch(/names no scripted reply/);
  });

  it("toolwire's proxy answers every API, streamed and not, and the checks accept it; cut short, they do not", async () => {
    for (const api of BENCH_APIS)
      for (const stream of [true, false]) {
        const kind = (stream ? api : `${api}-whole`) as ReplyKind;
        for (const reply of [set[4]!, set[6]!]) {
          const result = await exchange(
            agent,
            { side: 'proxy', url: `${proxy.url}/v1`, reply: reply.index, path: API_PATHS[api] },
            Buffer.from(apiRequestBody(api, reply, stream)),
          );
          expect(result.status, `${kind}: ${result.body.slice(0, 200)}`).toBe(200);
          expect(replyProblem(kind, result.body, reply), kind).toBeUndefined();
          expect(Number.isFinite(result.firstTokenMs)).toBe(true);
          expect(replyProblem(kind, result.body.slice(0, result.body.length >> 1), reply)).toEqual(
            expect.any(String),
          );
          expect(replyProblem(kind, result.body, set[0]!), kind).toEqual(expect.any(String));
        }
      }
  });

  it('idle connections are closed between batches, so none is reused after the server closed it', async () => {
    const pool = benchAgent();
    try {
      await runJobs(pool, jobs('pipe', `${pipe.url}/v1`).slice(0, 2), 2, bodies);
      const idle = () => Object.values(pool.freeSockets).flat().length;
      expect(idle()).toBe(2);
      dropIdleConnections(pool);
      expect(idle()).toBe(0);
      const [again] = await runJobs(pool, jobs('pipe', `${pipe.url}/v1`).slice(0, 1), 1, bodies);
      expect(again!.status).toBe(200);
    } finally {
      pool.destroy();
    }
  });

  it('paced, the upstream waits between the long replies tokens, not the probes', async () => {
    const short = set[1]!;
    upstream.pace = 2;
    try {
      const [long, probe] = await runJobs(
        agent,
        [
          { side: 'direct', url: upstream.url, reply: short.index },
          { side: 'direct', url: upstream.url, reply: 6 },
        ],
        2,
        bodies,
      );
      expect(long!.totalMs).toBeGreaterThanOrEqual(short.tokens.length * 2);
      expect(probe!.totalMs).toBeLessThan(set[6]!.tokens.length * 2);
    } finally {
      upstream.pace = 0;
    }
  });
});

describe('proxy bench figures', () => {
  it('percentile is nearest-rank over the finite values; overSets takes the median of the finite', () => {
    const values = Array.from({ length: 100 }, (_, at) => 100 - at);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([3, Number.NaN, 1, 2], 50)).toBe(2);
    expect(percentile([], 50)).toBeNaN();
    expect(overSets([3, Number.NaN, 1, 2])).toEqual({ median: 2, sets: [3, Number.NaN, 1, 2] });
  });

  /** A set with the figures given; the rest empty. */
  const setOf = (figures: Partial<SetResult>): SetResult => ({
    cpuStreamed: [],
    throughput: {},
    paced: [],
    memory: {},
    seconds: 1,
    ...figures,
  });
  const loop = { p50: 1, p99: 2, max: 3 };

  it('CPU rows: streamed from the interleaved batch, whole from the throughput rounds, ratios per set', () => {
    const sets = [
      setOf({
        cpuStreamed: [{ api: 'chat', ms: { proxy: 12, pipe: 10, 'pass-through': 11 } }],
        throughput: {
          pipe: { perSecond: [100, 100, 100], cpuMs: [1, 2, 1] },
          'proxy chat': { perSecond: [50, 60, 40], cpuMs: [3, 4, 6] },
        },
      }),
      setOf({
        cpuStreamed: [{ api: 'chat', ms: { proxy: 30, pipe: 10 } }],
        throughput: {
          pipe: { perSecond: [200], cpuMs: [1] },
          'proxy chat': { perSecond: [100], cpuMs: [2] },
        },
      }),
    ];
    const rows = cpuRows(sets, ['chat', 'responses'], ['chat']);
    expect(rows.map((row) => `${row.api} ${row.stream} ${row.served}`)).toEqual([
      'chat true true',
      'responses true false',
      'chat false true',
      'responses false true',
    ]);
    const [streamed, , whole] = rows;
    expect(streamed!.ratio!.sets).toEqual([1.2, 3]);
    expect(streamed!.ratio!.median).toBeCloseTo(2.1);
    expect(streamed!.passThroughMs!.sets).toEqual([11, Number.NaN]);
    // Rounds' ratios 3, 2, 6 → median 3; the second set 2.
    expect(whole!.ratio!.sets).toEqual([3, 2]);
    expect(whole!.proxyMs!.sets).toEqual([4, 2]);
    const [chat] = throughputRows(sets, ['chat']);
    expect(chat!.ratio.sets).toEqual([0.5, 0.5]);
    expect(chat!.proxyPerSecond.sets).toEqual([50, 100]);
  });

  it('first-byte rows: percentiles of what each probe took beyond its direct twin', () => {
    const added = Array.from({ length: 100 }, (_, at) => at + 1);
    const sets = [
      setOf({
        paced: [
          {
            side: 'pipe',
            streams: 50,
            probeFirstByteMs: { chat: [2, 3] },
            addedFirstByteMs: { chat: [0.5, 1] },
            directFirstByteMs: [1, 2],
            streamFirstByteMs: [],
            cpuMsPerRequest: 1,
            loopDelayMs: loop,
            probes: 2,
          },
          {
            side: 'proxy',
            streams: 50,
            probeFirstByteMs: { chat: added, messages: [5] },
            addedFirstByteMs: { chat: added, messages: [4] },
            directFirstByteMs: [1],
            streamFirstByteMs: [],
            cpuMsPerRequest: 2,
            loopDelayMs: loop,
            probes: 101,
          },
        ],
      }),
    ];
    const rows = firstByteRows(sets, ['chat', 'messages', 'responses'], ['chat', 'messages'], 50);
    expect(rows.map((row) => `${row.side} ${row.served}`)).toEqual([
      'pipe true',
      'chat true',
      'messages true',
      'responses false',
    ]);
    expect(rows[0]!.addedMs!.p50.median).toBe(0.5);
    expect(rows[1]!.addedMs!.p50.median).toBe(50);
    expect(rows[1]!.addedMs!.p99.median).toBe(99);
    expect(rows[1]!.probes!.sets).toEqual([100]);
    expect(rows[2]!.addedMs!.p99.median).toBe(4);
    expect(pacedCpuRatio(pacedRows(sets))!.median).toBe(2);
  });

  it('targets: pass and miss on each limit; not served misses; p50 not judged where the pipe adds 2 ms or more', () => {
    const sets = (pipeAdded: number[], proxyAdded: number[], rss: number, requests: number) => [
      setOf({
        cpuStreamed: [{ api: 'chat', ms: { proxy: 13, pipe: 10 } }],
        throughput: {
          pipe: { perSecond: [100], cpuMs: [1] },
          'proxy chat': { perSecond: [69], cpuMs: [1.2] },
        },
        paced: [
          {
            side: 'pipe',
            streams: 50,
            probeFirstByteMs: { chat: pipeAdded },
            addedFirstByteMs: { chat: pipeAdded },
            directFirstByteMs: [1],
            streamFirstByteMs: [],
            cpuMsPerRequest: 1,
            loopDelayMs: loop,
            probes: 1,
          },
          {
            side: 'proxy',
            streams: 50,
            probeFirstByteMs: { chat: proxyAdded },
            addedFirstByteMs: { chat: proxyAdded },
            directFirstByteMs: [1],
            streamFirstByteMs: [],
            cpuMsPerRequest: 1.3,
            loopDelayMs: loop,
            probes: 1,
          },
        ],
        memory: {
          proxy: { requests, rssMbAfterWarmup: 90, rssMb: rss, heapUsedMb: 20 },
          pipe: { requests, rssMbAfterWarmup: 60, rssMb: 70, heapUsedMb: 10 },
        },
      }),
    ];
    const judge = (figures: SetResult[]) =>
      proxyTargets(
        {
          cpu: cpuRows(figures, ['chat'], ['chat']),
          throughput: throughputRows(figures, ['chat']),
          firstByte: firstByteRows(figures, ['chat'], ['chat'], 50),
          paced: pacedRows(figures),
          memory: memoryRows(figures),
        },
        50,
        10_000,
      );
    const p99Of = (targets: ProxyTarget[]) =>
      targets.find((target) => target.target.includes('p99'))!;
    const good = judge(sets([0.5, 10], [1.5, 20], 149, 10_000));
    expect(good.map((target) => `${target.pass ? 'PASS' : 'MISS'} ${target.target}`)).toEqual([
      "PASS proxy chat streamed: CPU/request ≤ 1.3x the pipe's",
      "PASS proxy chat: CPU/request ≤ 1.3x the pipe's",
      "PASS proxy streamed, 50 paced streams: CPU/request ≤ 1.3x the pipe's",
      "MISS proxy chat: requests/s not streamed ≥ 0.7x the pipe's",
      "PASS proxy chat streamed, 50 streams: added first byte p50 < 2 ms (where the pipe's is)",
      "PASS proxy chat streamed, 50 streams: added first byte p99 ≤ 2x the pipe's",
      'PASS proxy RSS after 10000 requests < 150 MB',
    ]);
    const bad = judge(sets([0.5, 10], [2, 21], 150, 10_000));
    expect(bad.filter((target) => !target.pass).map((target) => target.target)).toEqual([
      "proxy chat: requests/s not streamed ≥ 0.7x the pipe's",
      "proxy chat streamed, 50 streams: added first byte p50 < 2 ms (where the pipe's is)",
      "proxy chat streamed, 50 streams: added first byte p99 ≤ 2x the pipe's",
      'proxy RSS after 10000 requests < 150 MB',
    ]);
    // The pipe itself adds 3 ms: the p50 target cannot be shown met, even by 1.5 ms.
    const noisy = judge(sets([3, 10], [1.5, 20], 100, 9_999));
    const p50 = noisy.find((target) => target.target.includes('p50'))!;
    expect(p50.pass).toBe(false);
    expect(p50.value).toMatch(/not judged: the pipe's is \+3/);
    // Fewer requests than the count: the RSS target is not met, whatever the RSS.
    expect(noisy.at(-1)!.pass).toBe(false);
    // A pipe adding next to nothing: its p99 is counted as 1 ms, so 2 ms passes and 2.1 does not.
    expect(p99Of(judge(sets([0, 0.1], [0, 2], 100, 10_000))).pass).toBe(true);
    expect(p99Of(judge(sets([0, 0.1], [0, 2.1], 100, 10_000))).pass).toBe(false);
  });

  it('targets: with the probes alone, p50 is judged and p99 is not', () => {
    const batch = (side: 'pipe' | 'proxy', added: number[]) => ({
      side,
      streams: 0,
      probeFirstByteMs: { chat: added },
      addedFirstByteMs: { chat: added },
      directFirstByteMs: [1],
      streamFirstByteMs: [],
      cpuMsPerRequest: 1,
      loopDelayMs: loop,
      probes: added.length,
    });
    const figures = [setOf({ paced: [batch('pipe', [0.2, 0.4]), batch('proxy', [1.9, 90])] })];
    const alone = firstByteRows(figures, ['chat'], ['chat'], 0);
    expect(alone.map((row) => [row.streams, row.side, row.addedMs!.p50.median])).toEqual([
      [0, 'pipe', 0.2],
      [0, 'chat', 1.9],
    ]);
    const targets = proxyTargets(
      { cpu: [], throughput: [], firstByte: alone, paced: pacedRows(figures), memory: [] },
      50,
      10_000,
    );
    expect(targets.map((target) => `${target.pass ? 'PASS' : 'MISS'} ${target.target}`)).toEqual([
      "PASS proxy chat streamed, probes alone: added first byte p50 < 2 ms (where the pipe's is)",
    ]);
    // The paced CPU comes from the batches with long streams only: there are none here.
    expect(pacedRows(figures)[0]!.cpuMsPerRequest.median).toBeNaN();
  });

  it('targets: an API the proxy does not stream is a row that says so, and misses', () => {
    const targets = proxyTargets(
      {
        cpu: cpuRows([setOf({})], ['responses'], []),
        throughput: [],
        firstByte: firstByteRows([setOf({})], ['responses'], [], 50),
        paced: [],
        memory: [],
      },
      50,
      10_000,
    );
    const streamed = targets.filter((target) => target.value === 'not served');
    expect(streamed.map((target) => target.target)).toEqual([
      "proxy responses streamed: CPU/request ≤ 1.3x the pipe's",
      'proxy responses streamed, 50 streams: added first byte',
    ]);
    expect(streamed.every((target) => !target.pass)).toBe(true);
  });
});

describe('bench sections', () => {
  it('TOOLWIRE_BENCH takes all, formats, floor and proxy, and nothing else', () => {
    expect(benchSelection(undefined)).toBe('all');
    expect(benchSelection(' Proxy ')).toBe('proxy');
    expect(benchSelection('formats')).toBe('formats');
    expect(() => benchSelection('proxies')).toThrow(
      /TOOLWIRE_BENCH must be "all", "formats", "floor", "proxy"/,
    );
  });

  it('replacing one section keeps the others', () => {
    const before = JSON.stringify({ formats: { a: 1 }, proxy: { old: true }, streaming: [1] });
    expect(JSON.parse(withSection(before, 'proxy', { fresh: 1 }))).toEqual({
      formats: { a: 1 },
      proxy: { fresh: 1 },
      streaming: [1],
    });
    expect(JSON.parse(withSection(undefined, 'proxy', 2))).toEqual({ proxy: 2 });
  });
});

describe('cpu profile summary', () => {
  it('self time per function and file, total time of project functions counted once per sample', () => {
    const frame = (functionName: string, url: string, lineNumber = 0) => ({
      functionName,
      url,
      lineNumber,
    });
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('(root)', ''), children: [2, 5] },
        {
          id: 2,
          callFrame: frame('runReply', 'file:///w/src/proxy/reply-run.ts', 98),
          children: [3],
        },
        {
          id: 3,
          callFrame: frame('parse', 'file:///w/node_modules/lib/index.js', 9),
          children: [4],
        },
        { id: 4, callFrame: frame('runReply', 'file:///w/src/proxy/reply-run.ts', 98) },
        { id: 5, callFrame: frame('(idle)', '') },
      ],
      samples: [3, 4, 2, 5],
      timeDeltas: [1000, 2000, 1000, 4000],
    };
    const summary = summariseProfile(profile);
    expect(summary.totalMs).toBe(8);
    expect(summary.idleMs).toBe(4);
    expect(summary.functions.map((entry) => [entry.label, entry.ms])).toEqual([
      ['runReply (src/proxy/reply-run.ts:99)', 3],
      ['parse (node_modules/lib/index.js:10)', 1],
    ]);
    expect(summary.functions[0]!.percent).toBe(75);
    expect(summary.files.map((entry) => entry.label)).toEqual([
      'src/proxy/reply-run.ts',
      'node_modules/lib/index.js',
    ]);
    // The recursive runReply counts each sample once: 4 ms, all of the busy time.
    expect(summary.projectTotals).toEqual([
      { label: 'runReply (src/proxy/reply-run.ts:99)', ms: 4, percent: 100 },
    ]);
  });
});

describe('proxy bench run', () => {
  it('a reply that never ends fails its exchange at the time limit instead of hanging the run', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {}\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const agent = benchAgent();
    try {
      const result: Exchange = await exchange(
        agent,
        { side: 'direct', url: `http://127.0.0.1:${port}/v1`, reply: 0 },
        Buffer.from('{}'),
        200,
      );
      expect(result.error).toMatch(/no complete reply within 0.2 s/);
    } finally {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    }
  });

  it('a short run in child processes: every reply right, a row per case, RSS after the count in the last set', async () => {
    const result = await benchProxy(
      {
        ...PROXY_BENCH_SETTINGS,
        replies: 4,
        tokensPerReply: 120,
        probeReplies: 2,
        processSets: 2,
        warmupRequests: 3,
        warmupConcurrency: 3,
        cpuStreams: 2,
        cpuRequests: 2,
        throughputConcurrency: 4,
        throughputRequests: 8,
        throughputRounds: 2,
        paceMs: 1,
        pacedStreams: 3,
        pacedTokensPerReply: 80,
        probeIntervalMs: 10,
        rampMs: 30,
        rssAfterRequests: 400,
      },
      () => {},
    );
    expect(result.failures).toEqual([]);
    expect(result.setSeconds).toHaveLength(2);
    expect(result.cpu).toHaveLength(6);
    for (const row of result.cpu.filter((entry) => entry.served)) {
      expect(row.proxyMs!.median).toBeGreaterThan(0);
      expect(row.pipeMs!.median).toBeGreaterThan(0);
      expect(row.ratio!.median).toBeGreaterThan(0);
    }
    expect(result.throughput.map((row) => row.api)).toEqual([...BENCH_APIS]);
    expect(result.passThroughPerSecond!.median).toBeGreaterThan(0);
    expect(result.firstByte.find((row) => row.side === 'pipe')!.probes!.median).toBeGreaterThan(0);
    const memory = result.memory.find((row) => row.side === 'proxy')!;
    expect(memory.requests.sets[1]).toBeGreaterThanOrEqual(400);
    expect(memory.requests.sets[0]).toBeLessThan(memory.requests.sets[1]!);
    expect(result.targets.at(-1)!.target).toBe('proxy RSS after 400 requests < 150 MB');
    expect(result.firstByte.map((row) => `${row.streams} ${row.side}`)).toEqual([
      '0 pipe',
      '0 chat',
      '0 messages',
      '0 responses',
      '3 pipe',
      '3 chat',
      '3 messages',
      '3 responses',
    ]);
  });
});
