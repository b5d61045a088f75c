/**
 * What the end-to-end client runs share: the command line, installing a client from the registry
 * into a temp prefix, the scripted model and `toolwire proxy` on free ports, running the client
 * in a temp work dir with a temp HOME, the checks and the summary. Every child runs in its own
 * process group and is killed (SIGKILL to the group) on every path out.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { type RecordingTap, startRecordingTap } from './recording-tap.ts';
import { type ScriptedFormat, type ScriptedReply, startScriptedModel } from './scripted-model.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
const PROXY_CLI = join(REPO_ROOT, 'dist/cli/main.js');
const PROTOCOLS: readonly ScriptedFormat[] = ['hermes', 'qwen3-coder'];
/** A model id whose family names the same format, so `--protocol model` would agree. */
const MODEL_FOR_PROTOCOL: Record<ScriptedFormat, string> = {
  hermes: 'qwen3-8b',
  'qwen3-coder': 'qwen3-coder-30b',
};

export interface E2eOptions {
  protocols: ScriptedFormat[];
  /** The client's version on the registry (`latest` by default). */
  version: string;
  /** Keep the client's install (and say where) instead of removing it at the end. */
  keep: boolean;
  /** An existing install prefix to reuse instead of installing. */
  prefix: string | undefined;
  timeoutMs: number;
}

const USAGE = `Options:
  --protocol hermes|qwen3-coder|all   the proxy's format (default hermes)
  --version V                         the client's version on npm (default latest)
  --prefix DIR                        reuse a client installed there (npm install --prefix DIR)
  --keep                              keep the temp install
  --timeout SECONDS                   longest one client run may take (default 180)
Needs dist/: run \`npm run build\` first.`;

export function parseE2eOptions(argv: readonly string[]): E2eOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      protocol: { type: 'string', default: 'hermes' },
      version: { type: 'string', default: 'latest' },
      prefix: { type: 'string' },
      keep: { type: 'boolean', default: false },
      timeout: { type: 'string', default: '180' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const protocols =
    values.protocol === 'all'
      ? [...PROTOCOLS]
      : PROTOCOLS.filter((protocol) => protocol === values.protocol);
  if (protocols.length === 0)
    throw new Error(`--protocol ${values.protocol}: not one of\n${USAGE}`);
  const timeoutSeconds = Number(values.timeout);
  if (!(timeoutSeconds > 0)) throw new Error(`--timeout ${values.timeout}: not a positive number`);
  return {
    protocols,
    version: values.version,
    keep: values.keep,
    prefix: values.prefix ? resolve(values.prefix) : undefined,
    timeoutMs: timeoutSeconds * 1000,
  };
}

// ---------------------------------------------------------------------------------------------
// Children, killed on every path out

const children = new Set<ChildProcess>();

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

export function killAllChildren(): void {
  for (const child of children) killGroup(child);
  children.clear();
}

process.on('exit', killAllChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllChildren();
    process.exit(130);
  });
}

/** A child in its own process group (so the whole group can be killed), tracked until it ends. */
function spawnTracked(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcess {
  const child = spawn(command, args, {
    ...options,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

// ---------------------------------------------------------------------------------------------
// Install, proxy, client

export function requireDist(): void {
  if (!existsSync(PROXY_CLI)) {
    throw new Error(
      `${PROXY_CLI} is missing: run \`npm run build\` first (this script builds nothing)`,
    );
  }
}

/** `npm install --prefix DIR PACKAGE@VERSION`; the installed version. */
export function installFromRegistry(packageName: string, version: string, prefix: string): string {
  mkdirSync(prefix, { recursive: true });
  console.log(`installing ${packageName}@${version} into ${prefix} …`);
  const npm = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-audit', '--no-fund', `${packageName}@${version}`],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (npm.status !== 0)
    throw new Error(`npm install ${packageName}@${version} failed (${npm.status})`);
  return installedVersion(packageName, prefix);
}

export function installedVersion(packageName: string, prefix: string): string {
  const manifest = join(prefix, 'node_modules', packageName, 'package.json');
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

interface RunningProxy {
  baseUrl: string;
  child: ChildProcess;
}

/** `toolwire proxy --port 0`, its output into `logFile`; resolves with the URL it prints first. */
async function startProxy(
  upstream: string,
  protocol: string,
  logFile: string,
): Promise<RunningProxy> {
  const child = spawnTracked(
    process.execPath,
    [PROXY_CLI, 'proxy', '--upstream', upstream, '--protocol', protocol, '--port', '0'],
    { cwd: REPO_ROOT, env: { ...process.env, TOOLWIRE_PROTOCOL: undefined } },
  );
  const log = createWriteStream(logFile);
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const baseUrl = await new Promise<string>((resolvePromise, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the proxy did not start:\n${seen}`)), 15_000);
    const onData = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const line = seen.split('\n')[0] ?? '';
      const at = line.indexOf('http://');
      if (seen.includes('\n') && at >= 0) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolvePromise(line.slice(at).trim());
      }
    };
    child.stdout?.on('data', onData);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the proxy exited (${code}) before it listened:\n${seen}`));
    });
  });
  return { baseUrl, child };
}

export interface ClientRun {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  stdout: string;
  stderr: string;
}

async function runClient(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; logPrefix: string },
): Promise<ClientRun> {
  const child = spawnTracked(command, args, { cwd: options.cwd, env: options.env });
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdout?.pipe(createWriteStream(`${options.logPrefix}.stdout`));
  child.stderr?.pipe(createWriteStream(`${options.logPrefix}.stderr`));
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, options.timeoutMs);
  const [exitCode, signal] = await new Promise<[number | null, string | null]>((resolvePromise) =>
    child.on('close', (code, signalName) => resolvePromise([code, signalName])),
  );
  clearTimeout(timer);
  killGroup(child); // anything it left running in its group
  return {
    exitCode,
    signal,
    timedOut,
    stdout: Buffer.concat(stdout).toString('utf8'),
    stderr: Buffer.concat(stderr).toString('utf8'),
  };
}

// ---------------------------------------------------------------------------------------------
// One scenario: the client, through the proxy, against the scripted model

export interface ClientContext {
  /** The proxy's base URL, `/v1` included (reached through the recording tap). */
  proxyUrl: string;
  home: string;
  work: string;
  runDir: string;
  protocol: ScriptedFormat;
  model: string;
  prompt: string;
}

export interface ClientSpec {
  label: string;
  packageName: string;
  /** The installed client's command, under the prefix. */
  command(prefix: string): string;
  /** Arguments and environment (added to a minimal PATH/HOME) for one run. */
  prepare(context: ClientContext): { args: string[]; env: Record<string, string> };
  /** The final answer the client printed, read from its output (or a file it wrote). */
  finalAnswer(run: ClientRun, context: ClientContext): string | undefined;
}

export interface ScenarioResult {
  protocol: ScriptedFormat;
  pass: boolean;
  checks: { name: string; ok: boolean; detail: string }[];
  replies: readonly ScriptedReply[];
  /** The client's requests to the proxy: method, path, status. */
  exchanges: RecordingTap['exchanges'];
  run: ClientRun | undefined;
  runDir: string;
  error?: string;
}

const PROMPT =
  'Use your shell tool to write a marker to marker.txt in the current directory, then tell me the marker.';

async function runScenario(
  spec: ClientSpec,
  prefix: string,
  protocol: ScriptedFormat,
  root: string,
  timeoutMs: number,
): Promise<ScenarioResult> {
  const runDir = join(root, protocol);
  const home = join(runDir, 'home');
  const work = join(runDir, 'work');
  mkdirSync(home, { recursive: true });
  mkdirSync(work, { recursive: true });
  const marker = `toolwire-e2e-${Math.floor(Math.random() * 1e9)}`;
  const model = await startScriptedModel({
    marker,
    format: protocol,
    logFile: join(runDir, 'model-requests.jsonl'),
  });
  let proxy: RunningProxy | undefined;
  let tap: RecordingTap | undefined;
  let run: ClientRun | undefined;
  const checks: ScenarioResult['checks'] = [];
  try {
    proxy = await startProxy(model.baseUrl, protocol, join(runDir, 'proxy.log'));
    tap = await startRecordingTap(proxy.baseUrl, join(runDir, 'client-requests.jsonl'));
    const context: ClientContext = {
      proxyUrl: `${tap.origin}${new URL(proxy.baseUrl).pathname}`,
      home,
      work,
      runDir,
      protocol,
      model: MODEL_FOR_PROTOCOL[protocol],
      prompt: PROMPT,
    };
    const { args, env } = spec.prepare(context);
    const path = [dirname(process.execPath), process.env.PATH ?? '/usr/bin:/bin'].join(delimiter);
    console.log(
      `[${protocol}] tap ${tap.origin} → proxy ${proxy.baseUrl} → model ${model.baseUrl}; running ${spec.label}`,
    );
    run = await runClient(spec.command(prefix), args, {
      cwd: work,
      env: { PATH: path, HOME: home, LANG: 'C.UTF-8', ...env },
      timeoutMs,
      logPrefix: join(runDir, 'client'),
    });
    const markerFile = join(work, 'marker.txt');
    const written = existsSync(markerFile) ? readFileSync(markerFile, 'utf8').trim() : undefined;
    checks.push({
      name: 'tool ran',
      ok: written === marker,
      detail:
        written === undefined ? 'work/marker.txt missing' : `work/marker.txt holds ${written}`,
    });
    const resultBack = model.replies.some((reply) => reply.kind === 'final');
    checks.push({
      name: 'result sent back',
      ok: resultBack,
      detail: resultBack
        ? 'a later request held the marker in a user (tool result) message'
        : 'no request held the tool result with the marker',
    });
    const answer = spec.finalAnswer(run, context);
    checks.push({
      name: 'final answer',
      ok: answer?.includes(marker) === true,
      detail: answer === undefined ? 'none found' : JSON.stringify(answer.slice(0, 200)),
    });
    checks.push({
      name: 'exit code',
      ok: run.exitCode === 0 && !run.timedOut,
      detail: run.timedOut
        ? `timed out after ${timeoutMs / 1000} s`
        : `${run.exitCode ?? run.signal}`,
    });
    return {
      protocol,
      pass: checks.every((check) => check.ok),
      checks,
      replies: model.replies,
      exchanges: tap.exchanges,
      run,
      runDir,
    };
  } catch (error) {
    return {
      protocol,
      pass: false,
      checks,
      replies: model.replies,
      exchanges: tap?.exchanges ?? [],
      run,
      runDir,
      error: error instanceof Error ? error.message : String(error),
    };
  } finally {
    if (proxy) killGroup(proxy.child);
    await tap?.close();
    await model.close();
  }
}

function printSummary(spec: ClientSpec, version: string, results: readonly ScenarioResult[]): void {
  console.log('');
  console.log(`== ${spec.packageName} ${version} through toolwire proxy ==`);
  for (const result of results) {
    const kinds = result.replies.map((reply) => reply.kind).join(', ');
    console.log(`protocol ${result.protocol}: ${result.pass ? 'PASS' : 'FAIL'}`);
    const exchanges = result.exchanges
      .map((exchange) => `${exchange.method} ${exchange.path} ${exchange.status}`)
      .join(', ');
    console.log(`  client → proxy: ${result.exchanges.length} request(s): ${exchanges || 'none'}`);
    console.log(`  model server saw ${result.replies.length} chat request(s): ${kinds || 'none'}`);
    for (const check of result.checks) {
      console.log(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name}: ${check.detail}`);
    }
    if (result.error) console.log(`  error: ${result.error}`);
    if (!result.pass && result.run) {
      const tail = (text: string) => text.trim().split('\n').slice(-12).join('\n    ');
      console.log(`  client stdout (end):\n    ${tail(result.run.stdout)}`);
      console.log(`  client stderr (end):\n    ${tail(result.run.stderr)}`);
    }
    console.log(
      `  logs: ${result.runDir}/{client-requests.jsonl,proxy.log,model-requests.jsonl,client.stdout,client.stderr}`,
    );
  }
}

/** The whole run: install (or reuse), each protocol in turn, the summary; exits 0 only if all pass. */
export async function runE2e(spec: ClientSpec, argv: readonly string[]): Promise<void> {
  const options = parseE2eOptions(argv);
  requireDist();
  const root = mkdtempSync(join(tmpdir(), `toolwire-e2e-${spec.label}-`));
  const prefix = options.prefix ?? join(root, 'install');
  const version = options.prefix
    ? installedVersion(spec.packageName, prefix)
    : installFromRegistry(spec.packageName, options.version, prefix);
  console.log(`${spec.packageName} ${version}`);
  const results: ScenarioResult[] = [];
  try {
    for (const protocol of options.protocols) {
      results.push(await runScenario(spec, prefix, protocol, root, options.timeoutMs));
    }
  } finally {
    killAllChildren();
    if (!options.prefix && !options.keep) rmSync(prefix, { recursive: true, force: true });
  }
  printSummary(spec, version, results);
  if (options.keep && !options.prefix) console.log(`install kept: --prefix ${prefix}`);
  process.exitCode = results.every((result) => result.pass) ? 0 : 1;
}
