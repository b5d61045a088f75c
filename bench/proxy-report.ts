/** The tables the proxy bench prints: its figures, the ratios to the pipe, pass or miss per target. */
import type { ProfileEntry } from './cpu-profile.ts';
import { formatMs, formatTable } from './measure.ts';
import {
  type OverSets,
  PROXY_TARGETS,
  type ProxyBenchResult,
  type ProxyTarget,
  pacedCpuRatio,
} from './proxy-figures.ts';

function passMiss(pass: boolean): string {
  return pass ? 'PASS' : 'MISS';
}

/** The median, then each set's figure: `1.23 (1.20 1.23 1.90)`. */
function spread(values: OverSets | undefined, format: (value: number) => string): string {
  if (!values) return '-';
  return `${format(values.median)} (${values.sets.map(format).join(' ')})`;
}

function msOf(value: number): string {
  return formatMs(value);
}

function signedMs(value: number): string {
  if (!Number.isFinite(value)) return '-';
  return value >= 0 ? `+${formatMs(value)}` : `-${formatMs(-value)}`;
}

function ratioOf(value: number): string {
  return Number.isFinite(value) ? `${value.toFixed(2)}x` : '-';
}

function rateOf(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : '-';
}

function mbOf(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : '-';
}

function profileTable(title: string, entries: readonly ProfileEntry[]): string {
  return formatTable(
    [title, 'ms', '% busy'],
    entries.map((entry) => [entry.label, formatMs(entry.ms), entry.percent.toFixed(1)]),
  );
}

function targetOf(targets: readonly ProxyTarget[], start: string): string {
  const found = targets.find((entry) => entry.target.startsWith(start));
  return found ? passMiss(found.pass) : '-';
}

/** The tables `npm run bench` prints for this section. */
export function proxyTables(result: ProxyBenchResult): string {
  const { settings } = result;
  const cpuRows = result.cpu.map((row) => {
    const name = `${row.api} ${row.stream ? 'streamed' : 'whole'}`;
    if (!row.served) return [name, 'not served', '-', '-', '-', 'MISS'];
    return [
      name,
      spread(row.proxyMs, msOf),
      spread(row.pipeMs, msOf),
      spread(row.ratio, ratioOf),
      row.passThroughMs ? msOf(row.passThroughMs.median) : '',
      targetOf(result.targets, `proxy ${row.api}${row.stream ? ' streamed' : ''}: CPU`),
    ];
  });
  const throughputRows = result.throughput.map((row) => [
    row.api,
    spread(row.proxyPerSecond, rateOf),
    spread(row.pipePerSecond, rateOf),
    spread(row.ratio, ratioOf),
    targetOf(result.targets, `proxy ${row.api}: requests/s`),
  ]);
  const firstByteRows = result.firstByte.map((row) => {
    const level = row.streams === 0 ? 'alone' : `${row.streams} streams`;
    const name = `${level}, ${row.side === 'pipe' ? 'pipe (chat)' : `proxy ${row.side}`}`;
    const last = row.streams === settings.pacedStreams ? 'MISS' : '';
    if (!row.served || !row.addedMs) return [name, 'not served', '', '', '', '', '', 'MISS', last];
    const pipe = result.firstByte.find(
      (entry) => entry.streams === row.streams && entry.side === 'pipe',
    );
    const start = `proxy ${row.side} streamed, ${row.streams === 0 ? 'probes alone' : `${row.streams} streams`}: added first byte`;
    return [
      name,
      String(row.probes?.sets.join('/') ?? '-'),
      `${msOf(row.firstByteMs!.p50.median)} / ${msOf(row.firstByteMs!.p99.median)}`,
      `${msOf(row.directMs!.p50.median)} / ${msOf(row.directMs!.p99.median)}`,
      spread(row.addedMs.p50, signedMs),
      spread(row.addedMs.p99, signedMs),
      row.side === 'pipe' || !pipe?.addedMs
        ? ''
        : ratioOf(row.addedMs.p99.median / pipe.addedMs.p99.median),
      row.side === 'pipe' ? '' : targetOf(result.targets, `${start} p50`),
      row.side === 'pipe' || row.streams !== settings.pacedStreams
        ? ''
        : targetOf(result.targets, `${start} p99`),
    ];
  });
  const pacedRatio = pacedCpuRatio(result.paced);
  const pacedRows = result.paced.map((row) => [
    row.side,
    spread(row.cpuMsPerRequest, msOf),
    row.side === 'proxy' ? spread(pacedRatio, ratioOf) : '',
    row.side === 'proxy' ? targetOf(result.targets, 'proxy streamed, ') : '',
    spread(row.loopDelayP99Ms, msOf),
    spread(row.loopDelayMaxMs, msOf),
    `${msOf(row.streamFirstByteMs.p50.median)} / ${msOf(row.streamFirstByteMs.p99.median)}`,
  ]);
  const memoryRows = result.memory.map((row) => [
    row.side,
    spread(row.requests, rateOf),
    spread(row.rssMbAfterWarmup, mbOf),
    spread(row.rssMb, mbOf),
    spread(row.heapUsedMb, mbOf),
    row.side === 'proxy' ? targetOf(result.targets, 'proxy RSS') : '',
  ]);
  const lines = [
    `Proxy: toolwire's proxy vs a plain node http pipe (http.createServer, http.request over a ` +
      'kept-alive Agent, bytes piped unread)',
    `   in front of one scripted model server: ${settings.replies} replies (${result.formats.join(', ')}), ` +
      `${result.replyEvents.min}-${result.replyEvents.max} SSE events each (median ${result.replyEvents.median}), ` +
      `${result.replyChars.median} characters: prose, then 1-2 calls`,
    `   the pipe is asked the chat completions request for the same reply; ${settings.processSets} sets of fresh ` +
      'processes, sides interleaved in each; figures are medians over the sets, (each set) after them',
    `   Responses streamed: ${result.responsesStreamed}; every reply checked` +
      (result.profile ? '; PROFILED RUN (--cpu-prof on the proxy): figures inflated' : ''),
    '',
    `   CPU per request, ms (user + system of each process). Streamed: ${settings.cpuRequests} requests a side ` +
      `in one batch, jobs interleaved, ${settings.cpuStreams} streams a side, no wait between tokens; whole: the ` +
      'throughput rounds below',
    formatTable(
      [
        'request',
        'proxy ms',
        'pipe ms',
        'proxy/pipe',
        'Hono pass ms',
        `≤ ${PROXY_TARGETS.cpuRatio}x`,
      ],
      cpuRows,
    ),
    '',
    `   Not streamed, ${settings.throughputConcurrency} at once: requests/s, each side alone in turn, ` +
      `${settings.throughputRequests} requests a batch, median of ${settings.throughputRounds} rounds` +
      (result.passThroughPerSecond
        ? `; Hono pass-through (chat): ${spread(result.passThroughPerSecond, rateOf)}`
        : ''),
    formatTable(
      ['api', 'proxy req/s', 'pipe req/s', 'proxy/pipe', `≥ ${PROXY_TARGETS.throughputRatio}x`],
      throughputRows,
    ),
    '',
    `   First byte: a short streamed request (probe) through the side every ${settings.probeIntervalMs} ms, each with a twin sent to`,
    `   the server directly at the same moment; alone: ${settings.probesAlone} probes, nothing else running; ` +
      `${settings.pacedStreams} streams: while that many long`,
    `   streams run through the side, paced at ${settings.paceMs} ms a token (replies of ${result.pacedReplyEvents.min}-` +
      `${result.pacedReplyEvents.max} events: the same calls, shorter prose).`,
    "   added = a probe's first byte minus its twin's, ms; probes = per set (the proxy's rotate over the",
    '   APIs); p99 judged at the streams',
    formatTable(
      [
        'side',
        'probes',
        'p50 / p99',
        'direct p50 / p99',
        'added p50',
        'added p99',
        'p99 vs pipe',
        `p50 < ${PROXY_TARGETS.addedFirstByteP50Ms} ms`,
        `p99 ≤ ${PROXY_TARGETS.addedFirstByteP99Ratio}x`,
      ],
      firstByteRows,
    ),
    '',
    '   During the paced batches (each upstream read one event): CPU per request (the long streams and the',
    '   probes: the same count through either side), event loop delay, first byte of the long streams (ms)',
    formatTable(
      [
        'side',
        'CPU ms',
        'proxy/pipe',
        `≤ ${PROXY_TARGETS.cpuRatio}x`,
        'loop delay p99',
        'loop delay max',
        'streams p50 / p99',
      ],
      pacedRows,
    ),
    '',
    `   Memory, MB: RSS after the warm-up and at the end of each set; the last set serves ${settings.rssAfterRequests} ` +
      'requests a side first (the target is judged on it)',
    formatTable(
      ['side', 'requests', 'RSS warm', 'RSS', 'heap used', `< ${PROXY_TARGETS.rssMb} MB`],
      memoryRows,
    ),
    '',
    '   Targets',
    formatTable(
      ['target', 'value', 'result'],
      result.targets.map((entry) => [entry.target, entry.value, passMiss(entry.pass)]),
    ),
  ];
  if (result.profile) {
    const profile = result.profile;
    lines.push(
      '',
      `   Where toolwire's proxy spent its CPU (${profile.file}; ` +
        `${formatMs(profile.totalMs - profile.idleMs)} ms busy of ${formatMs(profile.totalMs)} ms sampled)`,
      profileTable('function (self time)', profile.functions),
      '',
      profileTable('file (self time)', profile.files),
      '',
      profileTable('project function (total time, with what it calls)', profile.projectTotals),
    );
  }
  if (result.failures.length > 0)
    lines.push('', '   FAILED replies:', ...result.failures.map((failure) => `     ${failure}`));
  lines.push(`   (${result.seconds.toFixed(0)} s, in a process of its own)`);
  return lines.join('\n');
}
