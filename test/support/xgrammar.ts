/**
 * xgrammar (`@mlc-ai/web-xgrammar`, compiled to WebAssembly) in Node, for the tests that check a
 * generated grammar with a real engine: compile GBNF/EBNF, structural tags and JSON Schemas over a
 * byte-level vocabulary (token i is byte i, token 256 the stop token), ask whether a text is
 * accepted whole, and walk a grammar at random.
 *
 * The package is a UMD bundle inside a `"type": "module"` package: neither `import` nor
 * `require` runs it as CommonJS, so it is compiled as a CommonJS module by hand.
 */

import { readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type * as Xgrammar from '@mlc-ai/web-xgrammar';
import { GrammarUnsupportedError } from '../../src/protocols/grammar/index.ts';

type XgrammarModule = typeof Xgrammar;
type CompiledGrammar = Xgrammar.CompiledGrammar;

/** The stop token's id; ids 0–255 are the bytes. */
export const STOP_TOKEN = 256;
const VOCAB_SIZE = 257;

let loaded: XgrammarModule | undefined;

function loadXgrammar(): XgrammarModule {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve('@mlc-ai/web-xgrammar/lib/index.js');
  // `_compile` and `_nodeModulePaths` are underscore APIs, stable for a decade; the typings lack them.
  const ModuleClass = Module as unknown as {
    new (
      id: string,
    ): {
      filename: string;
      paths: string[];
      exports: unknown;
      _compile(source: string, file: string): void;
    };
    _nodeModulePaths(from: string): string[];
  };
  const module = new ModuleClass(file);
  module.filename = file;
  module.paths = ModuleClass._nodeModulePaths(dirname(file));
  module._compile(readFileSync(file, 'utf8'), file);
  loaded = module.exports as XgrammarModule;
  return loaded;
}

/** A compiler over the byte vocabulary, made once per process. */
let compilerPromise: Promise<Xgrammar.GrammarCompiler> | undefined;

function compiler(): Promise<Xgrammar.GrammarCompiler> {
  compilerPromise ??= (async () => {
    const xg = loadXgrammar();
    const vocab = Array.from(
      { length: 256 },
      (_, byte) => `<0x${byte.toString(16).toUpperCase().padStart(2, '0')}>`,
    );
    vocab.push('</s>');
    const tokenizer = await xg.TokenizerInfo.createTokenizerInfo(
      vocab,
      'byte_fallback',
      false,
      VOCAB_SIZE,
      [STOP_TOKEN],
    );
    return xg.GrammarCompiler.createGrammarCompiler(tokenizer, false);
  })();
  return compilerPromise;
}

/**
 * Runs `compile`, and turns an abort inside the WebAssembly into an error that says why: the
 * engine prints its reason to stderr and throws only "Aborted()" (or a bare number).
 */
async function withEngineMessage<T>(compile: () => Promise<T>): Promise<T> {
  let printed = '';
  const write = process.stderr.write;
  const error = console.error;
  process.stderr.write = ((chunk: unknown) => {
    printed += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  console.error = (...parts: unknown[]) => {
    printed += `${parts.map(String).join(' ')}\n`;
  };
  try {
    return await compile();
  } catch (cause) {
    throw new Error(`xgrammar refused the grammar: ${printed.trim() || String(cause)}`, { cause });
  } finally {
    process.stderr.write = write;
    console.error = error;
  }
}

/** A grammar compiled by xgrammar; `dispose()` frees it (WebAssembly memory is not collected). */
export interface EngineGrammar {
  readonly compiled: CompiledGrammar;
  dispose(): void;
}

/** GBNF or xgrammar EBNF text, compiled (root rule `root`). */
export async function compileEbnf(text: string): Promise<EngineGrammar> {
  const engine = await compiler();
  const compiled = await withEngineMessage(() => engine.compileGrammar(text));
  return { compiled, dispose: () => compiled.dispose() };
}

/** A structural tag (`{type: "structural_tag", format}`), compiled. */
export async function compileStructuralTag(tag: unknown): Promise<EngineGrammar> {
  const engine = await compiler();
  const compiled = await withEngineMessage(() =>
    engine.compileStructuralTag(tag as Xgrammar.StructuralTag),
  );
  return { compiled, dispose: () => compiled.dispose() };
}

/**
 * A JSON Schema for the whole text. `anyWhitespace` (default false: JSON.stringify's compact
 * layout) lets white space stand between any two tokens, as llama.cpp's and xgrammar's schema
 * grammars do by default.
 */
export async function compileJsonSchema(
  schema: unknown,
  options: { readonly anyWhitespace?: boolean } = {},
): Promise<EngineGrammar> {
  const engine = await compiler();
  const compiled = await withEngineMessage(() =>
    engine.compileJSONSchema(
      JSON.stringify(schema),
      options.anyWhitespace === true,
      -1,
      [',', ':'],
      true,
    ),
  );
  return { compiled, dispose: () => compiled.dispose() };
}

/** Whether the grammar accepts `text` whole (its UTF-8 bytes, then the stop token). */
export async function accepts(grammar: EngineGrammar, text: string): Promise<boolean> {
  const xg = loadXgrammar();
  const matcher = await xg.GrammarMatcher.createGrammarMatcher(grammar.compiled, undefined, false);
  try {
    for (const byte of Buffer.from(text, 'utf8')) if (!matcher.acceptToken(byte)) return false;
    return matcher.acceptToken(STOP_TOKEN) && matcher.isTerminated();
  } finally {
    matcher.dispose();
  }
}

/** How many bytes a UTF-8 sequence that starts with `byte` has (0: not a first byte). */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1;
  if (byte >= 0xc2 && byte <= 0xdf) return 2;
  if (byte >= 0xe1 && byte <= 0xec) return 3;
  if (byte >= 0xee && byte <= 0xef) return 3;
  return 0;
}

/**
 * A random text the grammar accepts, made by asking the engine which bytes may come next and
 * taking one, until the stop token is taken (`random()` in [0, 1) picks). Bytes are picked as
 * valid UTF-8 only: the engine's negated classes also allow overlong and surrogate sequences,
 * which no model writes. Undefined when the walk grows past `maxBytes` or reaches a dead end.
 */
export async function randomWalk(
  grammar: EngineGrammar,
  random: () => number,
  options: {
    readonly prefix?: string;
    readonly maxBytes?: number;
    /**
     * Literals the walk now and then tries to write whole where the grammar allows (a format's
     * closers): free text rarely ends on a closer by chance.
     */
    readonly hints?: readonly string[];
  } = {},
): Promise<string | undefined> {
  const { prefix = '', maxBytes = 1000, hints = [] } = options;
  const hintBytes = hints.map((hint) => [...Buffer.from(hint, 'utf8')]);
  let pending: number[] = [];
  const xg = loadXgrammar();
  const matcher = await xg.GrammarMatcher.createGrammarMatcher(grammar.compiled, undefined, false);
  const out: number[] = [];
  // A prefix the walk must begin with (a trigger, so a walk under `auto` reaches the calls).
  for (const byte of Buffer.from(prefix, 'utf8')) {
    if (!matcher.acceptToken(byte))
      throw new Error(`the grammar refused the prefix ${JSON.stringify(prefix)}`);
    out.push(byte);
  }
  // Continuation bytes still owed by a multi-byte character.
  let owed = 0;
  try {
    while (out.length < maxBytes) {
      const mask = await matcher.getNextTokenBitmask();
      const allowed: number[] = [];
      for (let id = 0; id < VOCAB_SIZE; id++) {
        if (((mask[id >> 5] ?? 0) >>> (id & 31)) & 1) allowed.push(id);
      }
      const bytes = allowed.filter((id) => {
        if (id === STOP_TOKEN) return false;
        if (owed > 0) return id >= 0x80 && id <= 0xbf;
        return sequenceLength(id) > 0;
      });
      // Plain ASCII mostly, other bytes now and then; punctuation often, so strings and
      // objects close and the walk ends.
      const ascii = bytes.filter((id) => id === 9 || id === 10 || (id >= 0x20 && id < 0x7f));
      const punctuation = ascii.filter((id) => id < 0x30 || (id > 0x39 && id < 0x41) || id > 0x7a);
      const roll = random();
      const pool =
        punctuation.length > 0 && roll < 0.25
          ? punctuation
          : ascii.length > 0 && roll < 0.95
            ? ascii
            : bytes;
      if (pending.length === 0 && hintBytes.length > 0 && random() < 0.03)
        pending = [...(hintBytes[Math.floor(random() * hintBytes.length)] as number[])];
      const hinted = pending.shift();
      if (hinted !== undefined && allowed.includes(hinted)) {
        if (!matcher.acceptToken(hinted))
          throw new Error(`the mask allowed ${hinted}, acceptToken refused it`);
        out.push(hinted);
        owed = owed > 0 ? owed - 1 : sequenceLength(hinted) - 1;
        continue;
      }
      pending = [];
      const mayStop = owed === 0 && allowed.includes(STOP_TOKEN);
      if (pool.length === 0 && !mayStop) return undefined;
      const id =
        mayStop && (pool.length === 0 || random() < 0.2)
          ? STOP_TOKEN
          : (pool[Math.floor(random() * pool.length)] as number);
      if (!matcher.acceptToken(id))
        throw new Error(`the mask allowed ${id}, acceptToken refused it`);
      if (id === STOP_TOKEN) return Buffer.from(out).toString('utf8');
      out.push(id);
      owed = owed > 0 ? owed - 1 : sequenceLength(id) - 1;
    }
    return undefined;
  } finally {
    matcher.dispose();
  }
}

/** A seeded generator of numbers in [0, 1) (a linear congruential one: enough to pick bytes). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * Whether `make` builds a grammar: false when it refuses with `GrammarUnsupportedError` (the
 * format gets no grammar of that kind yet); any other error is the test's failure.
 */
export function grammarSupported(make: () => unknown): boolean {
  try {
    make();
    return true;
  } catch (error) {
    if (!GrammarUnsupportedError.isInstance(error)) throw error;
    return false;
  }
}
