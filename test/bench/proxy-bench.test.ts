/**
 * The proxy bench (bench/proxy.ts and its modules): its scripted replies must be readable by the
 * formats they are written in, its upstream and pass-through must deliver them byte for byte,
 * its checks must fail a wrong or cut-off reply, and its figures must be the arithmetic they
 * claim; otherwise the bench could time something broken and look fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { summariseProfile } from '../../bench/cpu-profile.ts';
import { seededRandom } from '../../bench/fixtures.ts';
import { createPassThroughApp } from '../../bench/pass-through.ts';
import {
  benchProxy,
  type LevelResult,
  levelResult,
  PROXY_BENCH_SETTINGS,
  percentile,
  proxyTargets,
  type SideFigures,
  sideFigures,
} from '../../bench/proxy.ts';
import { forwardedProblem, proxiedProblem, readChatStream } from '../../bench/proxy-check.ts';
import { benchServerApp } from '../../bench/proxy-child.ts';
import { benchAgent, type Exchange, exchange, runJobs } from '../../bench/proxy-load.ts';
import {
  BENCH_TOOLS,
  chatRequestBody,
  REPLY_FORMATS,
  requestedReply,
  scriptedReplies,
  tokenPieces,
} from '../../bench/proxy-replies.ts';
import { type BenchUpstream, replyEvents, startBenchUpstream } from '../../bench/proxy-upstream.ts';
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
    for (const reply of replies) {
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
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(60);
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
    expect(requestedReply({ messages: [{ role: 'user', content: 'no mark' }] })).toBeUndefined();
    expect(requestedReply({})).toBeUndefined();
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

describe('proxy bench figures', () => {
  it('percentile is nearest-rank over the finite values', () => {
    const values = Array.from({ length: 100 }, (_, at) => 100 - at);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([3, Number.NaN, 1, 2], 50)).toBe(2);
    expect(percentile([], 50)).toBeNaN();
  });

  const exchanges = (firstBytes: number[]): Exchange[] =>
    firstBytes.map((ms) => ({
      side: 's',
      reply: 0,
      status: 200,
      firstByteMs: ms,
      firstTokenMs: ms + 1,
      totalMs: ms + 10,
      body: '',
    }));

  it('side figures: CPU is the median of the rounds, requests count the failed ones', () => {
    const figures = sideFigures(exchanges([1, 2, 3]), 2, [5, 1, 3]);
    expect(figures.requests).toBe(5);
    expect(figures.failed).toBe(2);
    expect(figures.cpuMsPerRequest).toBe(3);
    expect(figures.firstByteMs).toEqual({ p50: 2, p99: 3 });
    expect(figures.firstTokenMs.p50).toBe(3);
    expect(sideFigures(exchanges([1]), 0, []).cpuMsPerRequest).toBeUndefined();
  });

  it('a level: the CPU ratio and the added first byte, and the targets judged on them', () => {
    const side = (cpu: number | undefined, firstBytes: number[]): SideFigures =>
      sideFigures(exchanges(firstBytes), 0, cpu === undefined ? [] : [cpu]);
    const level: LevelResult = levelResult('fast', 10, {
      direct: side(undefined, [1, 1, 1]),
      'pass-through': side(2, [2, 3, 4]),
      proxy: side(3.2, [4, 5, 9]),
    });
    expect(level.cpuRatio).toBeCloseTo(1.6);
    expect(level.addedFirstByteMs.overPassThrough).toEqual({ p50: 2, p99: 5 });
    expect(level.addedFirstByteMs.overDirect).toEqual({ p50: 4, p99: 8 });
    const [cpu, firstByte] = proxyTargets([level]);
    expect(cpu!.pass).toBe(false);
    expect(firstByte!.pass).toBe(false);
    const good = levelResult('paced', 100, {
      direct: side(undefined, [1]),
      'pass-through': side(2, [2]),
      proxy: side(3, [3.5]),
    });
    expect(proxyTargets([good]).map((target) => target.pass)).toEqual([true, true]);
  });
});

describe('bench sections', () => {
  it('TOOLWIRE_BENCH takes all, formats and proxy, and nothing else', () => {
    expect(benchSelection(undefined)).toBe('all');
    expect(benchSelection(' Proxy ')).toBe('proxy');
    expect(benchSelection('formats')).toBe('formats');
    expect(() => benchSelection('proxies')).toThrow(
      /TOOLWIRE_BENCH must be "all", "formats", "proxy"/,
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

describe('proxy bench servers', () => {
  let upstream: BenchUpstream;
  let passThrough: RunningServer;
  let proxy: RunningServer;
  const agent = benchAgent();
  const bodies = replies.map((reply) => Buffer.from(chatRequestBody(reply)));

  beforeAll(async () => {
    upstream = await startBenchUpstream(replies);
    passThrough = await startServer(createPassThroughApp(upstream.url), {
      port: 0,
      host: '127.0.0.1',
    });
    proxy = await startServer(benchServerApp('proxy', upstream.url), {
      port: 0,
      host: '127.0.0.1',
    });
  });
  afterAll(async () => {
    agent.destroy();
    await proxy?.close();
    await passThrough?.close();
    await upstream?.close();
  });

  const jobs = (side: string, url: string) =>
    replies.map((reply) => ({ side, url, reply: reply.index }));

  it('the upstream streams the named reply, the pass-through passes it on byte for byte', async () => {
    const direct = await runJobs(agent, jobs('direct', upstream.url), 4, bodies);
    const passed = await runJobs(agent, jobs('pass-through', `${passThrough.url}/v1`), 4, bodies);
    for (const [at, reply] of replies.entries()) {
      expect(direct[at]!.body).toBe(replyEvents(reply).join(''));
      expect(passed[at]!.body).toBe(direct[at]!.body);
      expect(passed[at]!.firstByteMs).toBeLessThanOrEqual(passed[at]!.firstTokenMs);
      expect(passed[at]!.firstTokenMs).toBeLessThanOrEqual(passed[at]!.totalMs);
    }
  });

  it("toolwire's proxy answers every reply with its calls, and the checks accept them", async () => {
    const results = await runJobs(agent, jobs('proxy', `${proxy.url}/v1`), 4, bodies);
    for (const result of results) {
      expect(result.status).toBe(200);
      expect(proxiedProblem(result.body, replies[result.reply]!)).toBeUndefined();
      expect(Number.isFinite(result.firstTokenMs)).toBe(true);
    }
  });

  it('paced, the upstream waits between tokens', async () => {
    const short = replies.reduce((a, b) => (a.tokens.length <= b.tokens.length ? a : b));
    upstream.pace = 2;
    try {
      const [result] = await runJobs(
        agent,
        [{ side: 'direct', url: upstream.url, reply: short.index }],
        1,
        bodies,
      );
      expect(result!.totalMs).toBeGreaterThanOrEqual(short.tokens.length * 2);
    } finally {
      upstream.pace = 0;
    }
  });

  it('an unknown reply is refused with 400, and the check says so', async () => {
    const [result] = await runJobs(agent, [{ side: 'direct', url: upstream.url, reply: 0 }], 1, [
      Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }] })),
    ]);
    expect(result!.status).toBe(400);
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
      const result = await exchange(
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

  it('a short run in child processes: every reply right, CPU of both proxies, a level per setting', async () => {
    const result = await benchProxy(
      {
        ...PROXY_BENCH_SETTINGS,
        replies: 6,
        warmupRequests: 6,
        warmupConcurrency: 3,
        rounds: 2,
        levels: [{ streams: 3, requests: 6 }],
        paceMs: 1,
        pacedLevels: [{ streams: 3, requests: 3 }],
      },
      () => {},
    );
    expect(result.failures).toEqual([]);
    expect(result.levels.map((level) => `${level.mode} ${level.streams}`)).toEqual([
      'fast 3',
      'paced 3',
    ]);
    const [fast, paced] = result.levels;
    expect(fast!.sides.proxy.requests).toBe(12);
    expect(fast!.sides.proxy.cpuMsPerRequestRounds).toHaveLength(2);
    expect(paced!.sides['pass-through'].requests).toBe(3);
    for (const level of result.levels) {
      expect(level.sides.proxy.cpuMsPerRequest).toBeGreaterThan(0);
      expect(level.sides['pass-through'].cpuMsPerRequest).toBeGreaterThan(0);
      expect(level.sides.direct.cpuMsPerRequest).toBeUndefined();
      expect(level.cpuRatio).toBeCloseTo(
        level.sides.proxy.cpuMsPerRequest! / level.sides['pass-through'].cpuMsPerRequest!,
      );
    }
    expect(result.targets).toHaveLength(4);
  });
});
