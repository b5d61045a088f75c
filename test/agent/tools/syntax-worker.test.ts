import { Lang } from '@ast-grep/napi';
import { describe, expect, it } from 'vitest';
import { fileOutline } from '../../../src/agent/tools/extract/file-outline.ts';
import { Pacer } from '../../../src/agent/tools/pacer.ts';
import { findMatches } from '../../../src/agent/tools/query/find-matches.ts';
import {
  runOnSyntaxWorker,
  SyntaxJobError,
} from '../../../src/agent/tools/syntax/syntax-client.ts';

const SOURCE = [
  'export class Store {',
  '  get(key: string) {',
  '    console.log("get", key);',
  '    return this.items[key];',
  '  }',
  '}',
  'export const load = async (path) => {',
  '  console.log(path);',
  '};',
].join('\n');

/** A TypeScript file of about 1 MB: a few hundred milliseconds of parsing. */
const LARGE = Array.from(
  { length: 12_000 },
  (_, index) => `export function f${index}(a: number) {\n  return g(a, ${index});\n}\n`,
).join('');

describe('the syntax worker', () => {
  it('gives what the same job gives on the main thread: outlines and matches', async () => {
    const pacer = new Pacer();
    expect(
      await runOnSyntaxWorker({ kind: 'outline', grammar: Lang.TypeScript, text: SOURCE }, pacer),
    ).toEqual(fileOutline(Lang.TypeScript, SOURCE));
    const python = 'class A:\n    def run(self):\n        pass\n';
    expect(
      await runOnSyntaxWorker({ kind: 'outline', grammar: undefined, text: python }, pacer),
    ).toEqual(fileOutline(undefined, python));
    const job = {
      kind: 'matches',
      grammar: Lang.TypeScript,
      text: SOURCE,
      pattern: 'console.log($$$ARGS)',
      maxShown: 1,
    } as const;
    const found = await runOnSyntaxWorker(job, pacer);
    expect(found).toEqual(findMatches(Lang.TypeScript, SOURCE, 'console.log($$$ARGS)', 1));
    expect(found).toEqual({
      total: 2,
      shown: [{ first: 3, last: 3, captures: ['$$$ARGS = "get", key'] }],
    });
  });

  it('reports what a job threw as a SyntaxJobError, and goes on with the next job', async () => {
    const pacer = new Pacer();
    const refused = runOnSyntaxWorker(
      { kind: 'matches', grammar: Lang.TypeScript, text: SOURCE, pattern: 'a; b', maxShown: 5 },
      pacer,
    );
    await expect(refused).rejects.toBeInstanceOf(SyntaxJobError);
    const found = await runOnSyntaxWorker(
      { kind: 'matches', grammar: Lang.TypeScript, text: SOURCE, pattern: '$A.log', maxShown: 0 },
      pacer,
    );
    expect(found.total).toBe(2);
  });

  it('stops a running job at once on abort, drops a queued one, and serves the next', async () => {
    const running = new AbortController();
    const queued = new AbortController();
    // Seconds of parsing: a rejection that waited for the job would come seconds late.
    const long = { kind: 'outline', grammar: Lang.TypeScript, text: LARGE.repeat(8) } as const;
    const first = runOnSyntaxWorker(long, new Pacer(running.signal));
    const second = runOnSyntaxWorker(long, new Pacer(queued.signal));
    queued.abort(new Error('not needed'));
    await expect(second).rejects.toThrow('not needed');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const abortedAt = performance.now();
    running.abort(new Error('stop'));
    await expect(first).rejects.toThrow('stop');
    // Generous, for a busy machine: far under the seconds the job itself takes.
    expect(performance.now() - abortedAt).toBeLessThan(1_000);
    const after = await runOnSyntaxWorker(
      { kind: 'outline', grammar: Lang.TypeScript, text: SOURCE },
      new Pacer(),
    );
    expect(after.map((definition) => definition.qualified)).toEqual(['Store', 'Store.get', 'load']);
  });

  it('refuses a job whose signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('too late'));
    await expect(
      runOnSyntaxWorker(
        { kind: 'outline', grammar: Lang.Css, text: 'a { color: red }' },
        new Pacer(controller.signal),
      ),
    ).rejects.toThrow('too late');
  });
});
