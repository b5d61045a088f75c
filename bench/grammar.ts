/**
 * Grammars from a format's spec (`grammarFor`), for 1, 30 and 300 tools: the grammar's size,
 * the time to make it, and the time xgrammar (web-xgrammar, WebAssembly, one thread, a byte
 * vocabulary, no cache) takes to compile it. Each tool has a schema of its own (its own property
 * names, a string, an enum, an integer and a nested object), so only the value rules are shared,
 * as with a real MCP server's tools. Target (issue 24): 300 tools compile in under 1 s.
 *
 * Times are CPU time of this process (`process.cpuUsage`), the median of a few runs interleaved
 * across sizes: the machine is shared.
 *
 * Standalone: `node bench/grammar.ts` (add `--json` for the raw results).
 */
import type { ToolDefinition } from '../src/index.ts';
import { type GrammarSyntax, grammarFor } from '../src/protocols/grammar/index.ts';
import { FORMATS } from '../src/protocols/registry.ts';
import { compileEbnf, compileStructuralTag } from '../test/support/xgrammar.ts';
import { benchInChild, formatMs, formatTable, median } from './measure.ts';
import {
  type BenchTarget,
  failureLines,
  reportSectionFailures,
  runSectionAlone,
  targetLines,
} from './sections.ts';

export const GRAMMAR_TARGET_MS = 1000;
const SIZES = [1, 30, 300] as const;
const ROUNDS = 3;

/** What is measured: a format, a syntax and a tool choice. */
const CASES: readonly {
  readonly format: string;
  readonly syntax: GrammarSyntax;
  readonly toolChoice: 'auto' | 'required';
}[] = [
  { format: 'hermes', syntax: 'gbnf', toolChoice: 'required' },
  { format: 'hermes', syntax: 'gbnf', toolChoice: 'auto' },
  { format: 'hermes', syntax: 'ebnf', toolChoice: 'auto' },
  { format: 'hermes', syntax: 'structural-tag', toolChoice: 'required' },
  { format: 'kimi-k2', syntax: 'gbnf', toolChoice: 'required' },
  // Arguments in other codecs: Python literals, a Gemma dialect, JSON strings keeping a closer out.
  { format: 'pythonic', syntax: 'gbnf', toolChoice: 'required' },
  { format: 'gemma4', syntax: 'gbnf', toolChoice: 'required' },
  { format: 'arrow-calls', syntax: 'gbnf', toolChoice: 'required' },
  { format: 'command-r', syntax: 'gbnf', toolChoice: 'required' },
];

/** `count` tools, each with a schema of its own. */
export function benchTools(count: number): ToolDefinition[] {
  return Array.from({ length: count }, (_, index) => ({
    name: `tool_${index}`,
    description: `Tool number ${index}.`,
    inputSchema: {
      type: 'object',
      properties: {
        [`path_${index}`]: { type: 'string' },
        [`mode_${index}`]: { enum: ['r', 'w', 'a'] },
        [`count_${index}`]: { type: 'integer' },
        [`options_${index}`]: {
          type: 'object',
          properties: { [`force_${index}`]: { type: 'boolean' } },
        },
      },
      required: [`path_${index}`],
    },
  }));
}

export interface GrammarRow {
  readonly format: string;
  readonly syntax: GrammarSyntax;
  readonly toolChoice: string;
  readonly tools: number;
  /** Characters of grammar text (or of the structural tag's JSON). */
  readonly chars: number;
  readonly makeMs: number;
  readonly compileMs: number;
}

export interface GrammarBenchResult {
  readonly rows: readonly GrammarRow[];
  readonly targetMs: number;
  readonly targets: readonly BenchTarget[];
  readonly failures: readonly string[];
  readonly seconds: number;
}

function cpuMs(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

export async function benchGrammar(): Promise<GrammarBenchResult> {
  const started = performance.now();
  const failures: string[] = [];
  const samples = new Map<string, { chars: number; make: number[]; compile: number[] }>();
  // A first compile loads and starts the WebAssembly: not counted.
  (await compileEbnf('root ::= "warm"')).dispose();
  for (let round = 0; round < ROUNDS; round++) {
    for (const size of SIZES) {
      const tools = benchTools(size);
      for (const one of CASES) {
        const key = `${one.format}|${one.syntax}|${one.toolChoice}|${size}`;
        const protocol = FORMATS.find((entry) => entry.name === one.format)?.create();
        if (!protocol) throw new Error(`no format ${one.format}`);
        try {
          let start = cpuMs();
          const grammar = grammarFor(protocol, {
            tools,
            toolChoice: one.toolChoice,
            syntax: one.syntax,
          });
          const make = cpuMs() - start;
          start = cpuMs();
          const engine =
            grammar.syntax === 'structural-tag'
              ? await compileStructuralTag(grammar.structuralTag)
              : grammar.syntax === 'json-schema'
                ? undefined
                : await compileEbnf(grammar.grammar);
          const compile = cpuMs() - start;
          engine?.dispose();
          const chars =
            grammar.syntax === 'structural-tag'
              ? JSON.stringify(grammar.structuralTag).length
              : grammar.syntax === 'json-schema'
                ? JSON.stringify(grammar.schema).length
                : grammar.grammar.length;
          const entry = samples.get(key) ?? { chars, make: [], compile: [] };
          entry.make.push(make);
          entry.compile.push(compile);
          samples.set(key, entry);
        } catch (error) {
          if (round === 0) failures.push(`${key}: ${(error as Error).message.slice(0, 160)}`);
        }
      }
    }
  }
  const rows: GrammarRow[] = [];
  for (const [key, entry] of samples) {
    const [format = '', syntax = 'gbnf', toolChoice = '', size = '0'] = key.split('|');
    rows.push({
      format,
      syntax: syntax as GrammarSyntax,
      toolChoice,
      tools: Number(size),
      chars: entry.chars,
      makeMs: median(entry.make),
      compileMs: median(entry.compile),
    });
  }
  const targets: BenchTarget[] = rows
    .filter((row) => row.tools === 300 && row.syntax !== 'structural-tag')
    .map((row) => ({
      target: `${row.format} ${row.syntax} ${row.toolChoice}, 300 tools: xgrammar compile under ${GRAMMAR_TARGET_MS} ms`,
      value: `${formatMs(row.compileMs)} ms`,
      pass: row.compileMs < GRAMMAR_TARGET_MS,
    }));
  return {
    rows,
    targetMs: GRAMMAR_TARGET_MS,
    targets,
    failures,
    seconds: (performance.now() - started) / 1000,
  };
}

export function grammarTables(result: GrammarBenchResult): string {
  const rows = result.rows.map((row) => [
    row.format,
    row.syntax,
    row.toolChoice,
    String(row.tools),
    String(row.chars),
    formatMs(row.makeMs),
    formatMs(row.compileMs),
  ]);
  return [
    'Grammars from the spec (grammarFor) and their xgrammar compile time, in CPU ms (median of',
    `   ${ROUNDS} interleaved runs; web-xgrammar 0.1.27, one thread, byte vocabulary, no cache). Each tool`,
    '   has its own schema (4 properties, one nested object). Structural tags have no target: xgrammar',
    `   emits one JSON grammar per tool for them. Target: 300 tools compile under ${result.targetMs} ms.`,
    formatTable(['format', 'syntax', 'choice', 'tools', 'chars', 'make ms', 'compile ms'], rows),
    ...targetLines(result.targets),
    ...failureLines(result.failures),
    `   (${result.seconds.toFixed(0)} s)`,
  ].join('\n');
}

/** This section in a child process of its own (xgrammar's WebAssembly memory stays there). */
export function benchGrammarInChild(): Promise<GrammarBenchResult> {
  return benchInChild<GrammarBenchResult>('grammar.ts');
}

export function reportGrammarFailures(result: GrammarBenchResult): void {
  reportSectionFailures('grammar', result.failures);
}

/** `TOOLWIRE_BENCH=grammar`: this part alone, its key of the results file replaced. */
export function benchGrammarOnly(resultsFile: URL): Promise<void> {
  return runSectionAlone(resultsFile, 'grammar', benchGrammarInChild, grammarTables);
}

if (import.meta.main) {
  const result = await benchGrammar();
  console.log(
    process.argv.includes('--json') ? JSON.stringify(result, null, 2) : grammarTables(result),
  );
  if (!process.argv.includes('--json')) reportGrammarFailures(result);
}
