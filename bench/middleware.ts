/**
 * The AI SDK middleware on a ~200 KB output with 200 calls, streamed in chunks of 1, 8 and 256
 * characters: the wrapped model's `doStream` stream consumed to the end, for toolwire's xml and
 * hermes middlewares, @ai-sdk-tool/parser's, and two floors that parse nothing.
 *
 * Standalone: `node_modules/.bin/node bench/middleware.ts` (add `--json` for the raw results).
 * From bench/run.ts: `await benchMiddleware()` returns the same results without printing.
 */
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4Middleware,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider';
import {
  hermesToolMiddleware as peerHermesMiddleware,
  morphXmlToolMiddleware as peerXmlMiddleware,
} from '@ai-sdk-tool/parser';
import { wrapLanguageModel } from 'ai';
import { convertArrayToReadableStream, MockLanguageModelV4 } from 'ai/test';
import { hermesToolMiddleware, xmlToolMiddleware } from '../src/ai-sdk/index.ts';
import { hermesProtocol, type ToolCallProtocol, xmlProtocol } from '../src/index.ts';
import { chunksOf, modelOutput, TOOLS } from './fixtures.ts';
import {
  formatMs,
  formatRatio,
  formatTable,
  mbPerSecond,
  type SampleOptions,
  sample,
  utf8Bytes,
} from './measure.ts';

type Part = LanguageModelV4StreamPart;

const CALLS = 200;
const TARGET_CHARS = 200_000;
const CHUNK_SIZES = [1, 8, 256] as const;
/** toolwire may cost at most this much more than the no-op middleware (the target). */
export const TARGET_RATIO = 1.15;

const FAST: SampleOptions = {
  warmupRuns: 3,
  warmupMs: 800,
  minRuns: 7,
  maxRuns: 15,
  budgetMs: 1500,
};
/** The peer takes seconds per run at small chunks: a long run warms itself up. */
const SLOW: SampleOptions = { warmupRuns: 1, minRuns: 1, maxRuns: 5, budgetMs: 2500 };

/** What each side is. */
export const SIDES = {
  floor:
    'no-op middleware (no hooks): the mock stream as wrapLanguageModel hands it over — the floor',
  stage:
    'pass-through middleware: wrapStream pipes every part through a TransformStream that ' +
    're-enqueues it (what any stream-rewriting middleware pays before doing work)',
  parser: "toolwire's parser alone: push() per chunk, no stream, no AI SDK (for attribution)",
  toolwire: 'toolwire middleware (xmlToolMiddleware / hermesToolMiddleware), default options',
  peer: '@ai-sdk-tool/parser 4.1.26 middleware (morphXmlToolMiddleware / hermesToolMiddleware)',
} as const;
export type Side = keyof typeof SIDES;

export interface MiddlewareCase {
  readonly protocol: 'xml' | 'hermes';
  readonly chunkSize: number;
  readonly side: Side;
  readonly medianMs: number;
  readonly samplesMs: readonly number[];
  readonly mbPerSecond: number;
  /** Tool calls that came out (200 expected; undefined for the floors). */
  readonly calls?: number;
}

export interface MiddlewareBenchResult {
  readonly bytes: Record<'xml' | 'hermes', number>;
  readonly cases: readonly MiddlewareCase[];
  /** toolwire median / no-op floor median, per protocol and chunk size. */
  readonly ratios: readonly {
    protocol: 'xml' | 'hermes';
    chunkSize: number;
    vsFloor: number;
    vsStage: number;
    peerVsToolwire: number;
    /** vsFloor within the target. */
    pass: boolean;
    /** vsStage within the target. */
    passVsStage: boolean;
  }[];
  readonly seconds: number;
}

const passThrough: LanguageModelV4Middleware = {
  specificationVersion: 'v4',
  async wrapStream({ doStream }) {
    const result = await doStream();
    return {
      ...result,
      stream: result.stream.pipeThrough(
        new TransformStream<Part, Part>({
          transform(part, controller) {
            controller.enqueue(part);
          },
        }),
      ),
    };
  },
};

const CALL_OPTIONS: LanguageModelV4CallOptions = {
  prompt: [{ role: 'user', content: [{ type: 'text', text: 'Do the work.' }] }],
  tools: TOOLS.map(
    (tool): LanguageModelV4FunctionTool => ({
      type: 'function',
      name: tool.name,
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema as LanguageModelV4FunctionTool['inputSchema'],
    }),
  ),
};

/** The provider stream: the same parts for every side, a fresh ReadableStream per run. */
function providerParts(text: string, chunkSize: number): Part[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
    ...chunksOf(text, chunkSize).map((delta) => ({ type: 'text-delta' as const, id: 't', delta })),
    { type: 'text-end', id: 't' },
    {
      type: 'finish',
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      },
    },
  ];
}

/** Reads the wrapped model's doStream to the end; returns how many tool calls came out. */
async function consume(middleware: LanguageModelV4Middleware, parts: Part[]): Promise<number> {
  const model = wrapLanguageModel({
    model: new MockLanguageModelV4({
      doStream: async () => ({ stream: convertArrayToReadableStream(parts) }),
    }),
    middleware,
  });
  const { stream } = await model.doStream(CALL_OPTIONS);
  const reader = stream.getReader();
  let calls = 0;
  for (;;) {
    const next = await reader.read();
    if (next.done) return calls;
    if (next.value.type === 'tool-call') calls++;
  }
}

function parseOnly(protocol: ToolCallProtocol, chunks: readonly string[]): number {
  const parser = protocol.createStreamParser({ tools: TOOLS });
  let calls = 0;
  for (const chunk of chunks)
    for (const event of parser.push(chunk)) if (event.type === 'tool-call') calls++;
  for (const event of parser.end()) if (event.type === 'tool-call') calls++;
  return calls;
}

function progress(message: string): void {
  process.stderr.write(`[middleware bench] ${message}\n`);
}

export async function benchMiddleware(): Promise<MiddlewareBenchResult> {
  const started = performance.now();
  const cases: MiddlewareCase[] = [];
  const pairings = [
    {
      protocol: 'xml' as const,
      parser: xmlProtocol(),
      toolwire: xmlToolMiddleware,
      // The peer is typed for LanguageModelV3; ai 7's wrapLanguageModel runs it all the same.
      peer: peerXmlMiddleware as unknown as LanguageModelV4Middleware,
    },
    {
      protocol: 'hermes' as const,
      parser: hermesProtocol(),
      toolwire: hermesToolMiddleware,
      peer: peerHermesMiddleware as unknown as LanguageModelV4Middleware,
    },
  ];
  const bytes = { xml: 0, hermes: 0 };
  for (const pairing of pairings) {
    const fixture = modelOutput(pairing.parser, {
      calls: CALLS,
      targetChars: TARGET_CHARS,
      seed: 2024,
    });
    bytes[pairing.protocol] = utf8Bytes(fixture.text);
    for (const chunkSize of CHUNK_SIZES) {
      const parts = providerParts(fixture.text, chunkSize);
      const chunks = chunksOf(fixture.text, chunkSize);
      const sides: [Side, () => Promise<number> | number, SampleOptions][] = [
        ['floor', () => consume({ specificationVersion: 'v4' }, parts), FAST],
        ['stage', () => consume(passThrough, parts), FAST],
        ['parser', () => parseOnly(pairing.parser, chunks), FAST],
        ['toolwire', () => consume(pairing.toolwire(), parts), FAST],
        ['peer', () => consume(pairing.peer, parts), SLOW],
      ];
      for (const [side, run, options] of sides) {
        progress(`${pairing.protocol} chunk ${chunkSize}: ${side}`);
        let calls = 0;
        const timing = await sample(async () => {
          calls = await run();
        }, options);
        cases.push({
          protocol: pairing.protocol,
          chunkSize,
          side,
          medianMs: timing.medianMs,
          samplesMs: timing.samples.map((ms) => Math.round(ms * 100) / 100),
          mbPerSecond: mbPerSecond(bytes[pairing.protocol], timing.medianMs),
          ...(side === 'floor' || side === 'stage' ? {} : { calls }),
        });
      }
    }
  }
  const median = (protocol: string, chunkSize: number, side: Side) =>
    cases.find((c) => c.protocol === protocol && c.chunkSize === chunkSize && c.side === side)!
      .medianMs;
  const ratios = pairings.flatMap(({ protocol }) =>
    CHUNK_SIZES.map((chunkSize) => {
      const toolwire = median(protocol, chunkSize, 'toolwire');
      const vsFloor = toolwire / median(protocol, chunkSize, 'floor');
      const vsStage = toolwire / median(protocol, chunkSize, 'stage');
      return {
        protocol,
        chunkSize,
        vsFloor,
        vsStage,
        peerVsToolwire: median(protocol, chunkSize, 'peer') / toolwire,
        pass: vsFloor <= TARGET_RATIO,
        passVsStage: vsStage <= TARGET_RATIO,
      };
    }),
  );
  return { bytes, cases, ratios, seconds: (performance.now() - started) / 1000 };
}

export function middlewareTables(result: MiddlewareBenchResult): string {
  const rows = result.cases.map((entry) => [
    `${entry.protocol} ${entry.side}`,
    String(entry.chunkSize),
    entry.calls === undefined ? '-' : `${entry.calls}/${CALLS}`,
    String(entry.samplesMs.length),
    formatMs(entry.medianMs),
    entry.mbPerSecond.toFixed(1),
  ]);
  const timings = formatTable(['side', 'chunk', 'calls', 'runs', 'median ms', 'MB/s'], rows);
  const ratioRows = result.ratios.map((ratio) => [
    ratio.protocol,
    String(ratio.chunkSize),
    formatRatio(ratio.vsFloor),
    ratio.pass ? 'PASS' : 'MISS',
    formatRatio(ratio.vsStage),
    ratio.passVsStage ? 'PASS' : 'MISS',
    formatRatio(ratio.peerVsToolwire),
  ]);
  const ratios = formatTable(
    [
      'protocol',
      'chunk',
      'toolwire / no-op floor',
      '',
      'toolwire / pass-through stage',
      '',
      'peer / toolwire',
    ],
    ratioRows,
  );
  const legend = Object.entries(SIDES)
    .map(([side, text]) => `  ${side}: ${text}`)
    .join('\n');
  return [
    `Middleware wrapStream, ~${Math.round(result.bytes.xml / 1000)} KB (xml) / ~${Math.round(result.bytes.hermes / 1000)} KB (hermes), ${CALLS} calls`,
    legend,
    '',
    timings,
    '',
    ratios,
    `(target: toolwire at most ${TARGET_RATIO}x the floor; PASS/MISS against each floor)`,
    `(${result.seconds.toFixed(0)} s)`,
  ].join('\n');
}

if (import.meta.main) {
  const result = await benchMiddleware();
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : middlewareTables(result),
  );
}
