/**
 * The entry points of the package: which packages each pulls in, and what each exports. A
 * parser-only user installs `dependencies` and nothing else, so every entry point may load only
 * those, plus the optional peers its own job needs (and then exactly those, so none is declared
 * needlessly). What an entry exports is listed by name in its source, so the public API is what
 * it says and no helper leaks through a re-export.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type Manifest,
  optionalPeers,
  packagesLoadedBy,
  ROOT,
  readManifest,
} from './loaded-packages.ts';

/** The optional peers each entry point needs. Every export of package.json must be listed. */
const PEERS_OF_ENTRY: Readonly<Record<string, readonly string[]>> = {
  '.': [],
  './ai-sdk': [],
  './ai-sdk/v3': [],
  './agent': [],
  './code-tools': ['@ast-grep/napi'],
  './stream': [],
  './server': ['@ast-grep/napi', '@hono/node-server', 'hono'],
  './proxy': ['@hono/node-server', 'hono'],
};

/** What a parser-only install must not bring: the server, the native parser, the model client. */
const HEAVY = ['hono', '@hono/node-server', '@ast-grep/napi', '@ai-sdk/openai-compatible'];

/** The source file an export's `import` target (`./dist/x/y.js`) is compiled from. */
function sourceOf(target: string): URL {
  const match = /^\.\/dist\/(.+)\.js$/.exec(target);
  if (match === null) throw new Error(`export target "${target}" is not a file under ./dist`);
  return new URL(`src/${match[1]}.ts`, ROOT);
}

/** Each export with an `import` target: its subpath (`./ai-sdk`) and the target. */
function importTargets(manifest: Manifest): [string, string][] {
  return Object.entries(manifest.exports).flatMap(([subpath, target]) => {
    const file = typeof target === 'string' ? undefined : target.import;
    return file === undefined ? [] : [[subpath, file] as [string, string]];
  });
}

/** What a user imports: `toolwire`, `toolwire/ai-sdk`. */
const importName = (subpath: string) => `toolwire${subpath.slice(1)}`;

const manifest = readManifest();
const peers = optionalPeers(manifest);
const dependencies = Object.keys(manifest.dependencies);

describe('the manifest', () => {
  it('declares the heavy packages as optional peers, not dependencies, and keeps them for tests', () => {
    for (const name of HEAVY) {
      expect(peers, name).toContain(name);
      expect(dependencies, name).not.toContain(name);
      expect(manifest.devDependencies[name], name).toBe(manifest.peerDependencies[name]);
    }
  });

  it('classifies every entry point', () => {
    expect(Object.keys(PEERS_OF_ENTRY).sort()).toEqual(
      importTargets(manifest)
        .map(([subpath]) => subpath)
        .sort(),
    );
  });
});

describe('each entry point loads only its own packages', () => {
  it.each(
    importTargets(manifest).map(([subpath, target]) => [importName(subpath), subpath, target]),
  )('%s', (name, subpath, target) => {
    const loaded = packagesLoadedBy(sourceOf(target));
    const allowed = PEERS_OF_ENTRY[subpath] ?? [];
    for (const pkg of loaded)
      expect([...dependencies, ...allowed], `${name} loads ${pkg}`).toContain(pkg);
    expect(
      loaded.filter((name) => peers.includes(name)),
      'the optional peers it loads',
    ).toEqual([...allowed].sort());
  });

  it('the parser entry point loads no heavy package', () => {
    const loaded = packagesLoadedBy(sourceOf('./dist/index.js'));
    expect(loaded.filter((name) => HEAVY.includes(name))).toEqual([]);
    expect(loaded).toContain('ajv');
  });
});

/** What `toolwire` exports at run time (its types are listed beside them in src/index.ts). */
const ROOT_EXPORTS = [
  // grammars for constrained decoding, from a format's spec
  'grammarFor',
  'GRAMMAR_SYNTAXES',
  'GrammarUnsupportedError',
  // protocols and the ways to pick one
  'autoProtocol',
  'apertusProtocol',
  'commandRProtocol',
  'deepseekProtocol',
  'executeProtocol',
  'firefunctionProtocol',
  'functionaryProtocol',
  'functionGemmaProtocol',
  'glmProtocol',
  'gptOssProtocol',
  'graniteProtocol',
  'hermesProtocol',
  'kimiK2Protocol',
  'llama3Protocol',
  'minimaxProtocol',
  'mistralProtocol',
  'pythonicProtocol',
  'qwen3CoderProtocol',
  'seedOssProtocol',
  'xlamProtocol',
  'xmlProtocol',
  // formats as data
  'analyzeChatTemplate',
  'ChatTemplateError',
  'chatTemplateFromFile',
  'protocolFromChatTemplate',
  'defineFormat',
  'FormatSpecError',
  'formatEntryFromSpec',
  'readFormatSpec',
  'specOf',
  'formatSpecFromResponseTemplate',
  'protocolFromResponseTemplate',
  'ResponseTemplateError',
  'protocolByName',
  'protocolForModel',
  'formatForModel',
  'formatEntry',
  'FORMATS',
  'PROTOCOL_NAMES',
  'isProtocolName',
  'BY_MODEL',
  'isProtocolChoice',
  'protocolChoices',
  'protocolNameFor',
  // writing a format of your own
  'defineProtocol',
  'CallAssembler',
  'FencedCallBody',
  'JsonCallsBody',
  'MarkupBody',
  'ParameterTagsBody',
  'PythonCallsBody',
  'createValuePolicy',
  'jsonForPrompt',
  'resultJsonForPrompt',
  'pythonCall',
  'pythonLiteral',
  'THINK_TAGS',
  'COMMAND_R_THINK_TAGS',
  'HARMONY_THINK_TAGS',
  'MISTRAL_THINK_TAGS',
  'SEED_THINK_TAGS',
  // limits
  'DEFAULT_MAX_CALL_CHARS',
  'DEFAULT_MAX_DEPTH',
  // errors
  'ToolwireError',
  'TOOLWIRE_ERROR_KINDS',
  'isErrorOfKind',
  'ModelCallError',
  'UnsupportedPatternError',
];

/** Helpers the library uses inside, which no entry point offers. */
const INTERNAL_HELPERS = [
  'setOwnProperty',
  'createIdGenerator',
  'correctionText',
  'demandSentence',
  'describeDemand',
  'TOOLS_UNAVAILABLE',
  'UNCONSTRAINED_POLICY',
  'unknownProtocolMessage',
];

const exportsOf = async (subpath: string): Promise<string[]> => {
  const target = importTargets(manifest).find(([entry]) => entry === subpath)?.[1];
  if (target === undefined) throw new Error(`no export ${subpath} in package.json`);
  return Object.keys(await import(sourceOf(target).href)).sort();
};

describe('what each entry point exports', () => {
  it('lists its exports by name: no entry point re-exports a whole module', () => {
    for (const [subpath, target] of importTargets(manifest)) {
      const source = readFileSync(sourceOf(target), 'utf8');
      expect(source, subpath).not.toMatch(/^export \*/m);
    }
  });

  it('toolwire: the protocols, the registry, the authoring API and the errors, no helper', async () => {
    const names = await exportsOf('.');
    expect(names).toEqual([...ROOT_EXPORTS].sort());
    for (const helper of INTERNAL_HELPERS) expect(names, helper).not.toContain(helper);
  });

  it('toolwire/ai-sdk does not repeat what toolwire/ai-sdk/v3 exports', async () => {
    const [current, v3] = await Promise.all([exportsOf('./ai-sdk'), exportsOf('./ai-sdk/v3')]);
    expect(v3).toContain('xmlToolMiddlewareV3');
    expect(current).toContain('xmlToolMiddleware');
    expect(current.filter((name) => v3.includes(name))).toEqual([]);
  });

  it('toolwire/ai-sdk has the fullStream adapter beside the middleware', async () => {
    const names = await exportsOf('./ai-sdk');
    for (const name of ['fullStreamToBlocks', 'encodeFullStream', 'FullStreamAdapter'])
      expect(names, name).toContain(name);
  });

  it('toolwire/server and toolwire/proxy export their apps', async () => {
    expect(await exportsOf('./server')).toContain('createServerApp');
    expect(await exportsOf('./proxy')).toContain('createProxyApp');
    // And the run store they take, so several instances can share one Redis.
    for (const entry of ['./server', './proxy'] as const) {
      expect(await exportsOf(entry)).toEqual(
        expect.arrayContaining(['createRunStore', 'MemoryRunStore', 'DEFAULT_RUN_STORE_LIMITS']),
      );
    }
  });

  it('no entry point offers an internal helper', async () => {
    for (const [subpath] of importTargets(manifest)) {
      const names = await exportsOf(subpath);
      for (const helper of INTERNAL_HELPERS)
        expect(names, `${subpath} exports ${helper}`).not.toContain(helper);
    }
  });
});
