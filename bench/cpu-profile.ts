/**
 * Where a `node --cpu-prof` profile spent its time: self time per function and per source file,
 * the largest first, so a bench that misses a target can say what to look at.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` read here. */
export interface CpuProfile {
  readonly nodes: readonly {
    readonly id: number;
    readonly children?: readonly number[];
    readonly callFrame: {
      readonly functionName: string;
      readonly url: string;
      readonly lineNumber: number;
    };
  }[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileEntry {
  /** `name (file:line)` for a function; the file for a file. */
  readonly label: string;
  /** Self time or total time, as the list it is in says. */
  readonly ms: number;
  /** Share of the busy time (idle left out). */
  readonly percent: number;
}

export interface ProfileSummary {
  readonly totalMs: number;
  /** Time the process waited for work (V8's `(idle)`). */
  readonly idleMs: number;
  /** Self time: the function itself was running. */
  readonly functions: readonly ProfileEntry[];
  readonly files: readonly ProfileEntry[];
  /**
   * Total time of the project's own functions (`src/`): they or what they called were running,
   * which says which stage of the work the time belongs to.
   */
  readonly projectTotals: readonly ProfileEntry[];
}

/** The path from the project or node_modules on, or the URL as it is (node: internals). */
function shortFile(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + 1);
  for (const folder of ['/src/', '/bench/']) {
    const at = url.lastIndexOf(folder);
    if (at >= 0) return url.slice(at + 1);
  }
  return url.replace(/^file:\/\//, '');
}

function ranked(totals: Map<string, number>, busyMs: number, top: number): ProfileEntry[] {
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([label, ms]) => ({
      label,
      ms,
      percent: busyMs > 0 ? (ms / busyMs) * 100 : 0,
    }));
}

function labelOf(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const name = frame.functionName || '(anonymous)';
  return frame.url === '' ? name : `${name} (${shortFile(frame.url)}:${frame.lineNumber + 1})`;
}

/** The `top` functions and files by self time, and the project's functions by total time. */
export function summariseProfile(profile: CpuProfile, top = 15): ProfileSummary {
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node.id);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const projectTotals = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, index) => {
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    totalMs += ms;
    const frame = frames.get(id);
    if (!frame) return;
    if (frame.functionName === '(idle)') {
      idleMs += ms;
      return;
    }
    const label = labelOf(frame);
    const file = shortFile(frame.url);
    byFunction.set(label, (byFunction.get(label) ?? 0) + ms);
    byFile.set(file, (byFile.get(file) ?? 0) + ms);
    // Each function on the stack once, however often it recurs.
    const onStack = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const caller = frames.get(at);
      if (caller && shortFile(caller.url).startsWith('src/')) onStack.add(labelOf(caller));
    }
    for (const name of onStack) projectTotals.set(name, (projectTotals.get(name) ?? 0) + ms);
  });
  const busyMs = totalMs - idleMs;
  return {
    totalMs,
    idleMs,
    functions: ranked(byFunction, busyMs, top),
    files: ranked(byFile, busyMs, top),
    projectTotals: ranked(projectTotals, busyMs, top),
  };
}

/** The newest `.cpuprofile` in a folder, or undefined when it holds none. */
export function newestProfile(folder: string): string | undefined {
  const files = readdirSync(folder)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(folder, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return files[0];
}

export function readProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}
