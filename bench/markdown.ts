/**
 * The page's Markdown renderer on hostile and ordinary texts, timed at two sizes so that growth
 * shows: a linear renderer takes about twice as long on twice the text.
 *
 *   node bench/markdown.ts                       this tree's renderer
 *   node bench/markdown.ts --baseline <git-rev>  side by side with web/src/markdown.ts at <git-rev>
 *   node bench/markdown.ts --sizes 25,100        sizes in KiB (default 50,100)
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  HOSTILE_MARKDOWN,
  KIB,
  type MarkdownInput,
  ORDINARY_MARKDOWN,
} from '../test/browser/markdown-inputs.ts';
import { renderMarkdown } from '../web/src/markdown.ts';
import { formatMs, formatTable, type SampleOptions, sample } from './measure.ts';

type Render = (markdown: string) => string;

const SAMPLING: SampleOptions = { warmupRuns: 2, minRuns: 5, maxRuns: 15, budgetMs: 1500 };

/** One renderer on one text: its median, or why it has none. */
async function time(render: Render, text: string): Promise<string> {
  try {
    render(text);
  } catch (error) {
    return `throws ${error instanceof Error ? error.name : String(error)}`;
  }
  const timing = await sample(() => render(text), SAMPLING);
  return `${formatMs(timing.medianMs)} ms`;
}

/** web/src/markdown.ts as committed at `revision`, loaded from a temporary copy. */
async function loadBaseline(revision: string): Promise<Render> {
  const source = execFileSync('git', ['show', `${revision}:web/src/markdown.ts`], {
    cwd: new URL('..', import.meta.url),
    encoding: 'utf8',
  });
  const file = join(mkdtempSync(join(tmpdir(), 'toolwire-markdown-')), 'markdown.ts');
  writeFileSync(file, source);
  try {
    const module = (await import(file)) as { renderMarkdown: Render };
    return module.renderMarkdown;
  } catch (error) {
    throw new Error(
      `the baseline web/src/markdown.ts at ${revision} could not be loaded from a copy outside the ` +
        `repository (it may import packages): ${String(error)}`,
    );
  }
}

function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((part) => Number(part.trim()));
  if (sizes.some((size) => !Number.isInteger(size) || size < 1)) {
    throw new Error(
      `--sizes takes whole KiB counts separated by commas, like 50,100; got "${text}"`,
    );
  }
  return sizes;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { baseline: { type: 'string' }, sizes: { type: 'string', default: '50,100' } },
  });
  const sizes = parseSizes(values.sizes);
  const renderers: [string, Render][] = [['this tree', (markdown) => renderMarkdown(markdown)]];
  if (values.baseline !== undefined) {
    renderers.unshift([values.baseline, await loadBaseline(values.baseline)]);
  }
  const header = ['input'];
  for (const size of sizes) for (const [name] of renderers) header.push(`${name} ${size} KiB`);
  const rows: string[][] = [];
  const inputs: readonly MarkdownInput[] = [...HOSTILE_MARKDOWN, ORDINARY_MARKDOWN];
  for (const input of inputs) {
    const row = [input.name];
    for (const size of sizes) {
      const text = input.build(size * KIB);
      for (const [, render] of renderers) row.push(await time(render, text));
    }
    rows.push(row);
    console.error(`measured ${input.name}`);
  }
  console.log(`Median render time (node ${process.version}; KiB = 1024 characters)\n`);
  console.log(formatTable(header, rows));
}

await main();
