/**
 * Where `serve` and `proxy` keep what must outlive a request: `--store memory|redis://…`
 * (`TOOLWIRE_STORE`) and `--store-prefix` (`TOOLWIRE_STORE_PREFIX`), read into settings, shown
 * without a password, and opened as a `RunStore`. A Redis URL may hold a password: no message,
 * startup line or help text here repeats what stands before its `@`.
 */
import { isErrorOfKind } from '../core/errors.ts';
import { redactCredentials } from '../proxy/index.ts';
import { createRunStore, parseRunStoreSpec, RunStoreSpecError } from '../store/create-run-store.ts';
import type { RunStore, RunStoreLimits } from '../store/run-store.ts';
import { neutraliseControls } from './terminal-text.ts';
import { UsageError } from './usage-error.ts';

/** The `parseArgs` options both commands take. */
export const STORE_FLAGS = {
  store: { type: 'string' },
  'store-prefix': { type: 'string' },
} as const;

const DEFAULT_STORE = 'memory';

/** The longest `--store-prefix`: it is put before every Redis key. */
const MAX_PREFIX_LENGTH = 64;
/** Printable ASCII without spaces: a prefix is part of every key and of the abort channel's name. */
const PREFIX = /^[\x21-\x7e]+$/;

/** The store chosen on the command line or in the environment, checked but not opened. */
export interface StoreSettings {
  readonly kind: 'memory' | 'redis';
  /** What `createRunStore` takes (the Redis URL with its credentials, if any). */
  readonly spec: string;
  /** The key prefix (Redis only); undefined: createRunStore's default. */
  readonly prefix?: string;
  /** For messages and the startup line: `memory`, or `redis://HOST:PORT/DB` without credentials. */
  readonly shown: string;
}

/** What `openStore` passes on to the store besides where it is. */
export interface OpenStoreOptions {
  readonly limits?: Partial<RunStoreLimits>;
  /** This instance's id; default: a random one. */
  readonly instanceId?: string;
}

/**
 * `--store`, else `TOOLWIRE_STORE`, else `memory`; `--store-prefix`, else `TOOLWIRE_STORE_PREFIX`.
 * Throws a `UsageError` (status 2) that never quotes a password.
 */
export function storeSetting(
  flags: { readonly store?: string | undefined; readonly 'store-prefix'?: string | undefined },
  env: Readonly<Record<string, string | undefined>> = process.env,
): StoreSettings {
  const fromEnv = (name: string) => (env[name] === '' ? undefined : env[name]);
  const spec = (flags.store ?? fromEnv('TOOLWIRE_STORE') ?? DEFAULT_STORE).trim();
  const source = flags.store === undefined ? 'TOOLWIRE_STORE' : '--store';
  const prefixFlag = flags['store-prefix'];
  const prefix = prefixFlag ?? fromEnv('TOOLWIRE_STORE_PREFIX');
  if (spec.toLowerCase() === 'memory') {
    // An environment prefix may be meant for other commands; a flag given here is a mistake.
    if (prefixFlag !== undefined)
      throw new UsageError('--store-prefix applies to a redis:// store, not to --store memory');
    return { kind: 'memory', spec: 'memory', shown: 'memory' };
  }
  const redis = redisAddress(spec, source);
  if (prefix !== undefined) checkPrefix(prefix, prefixFlag === undefined);
  return { kind: 'redis', spec, shown: redis, ...(prefix === undefined ? {} : { prefix }) };
}

/**
 * Opens the store the settings name: a memory store, or a connection to Redis that fails within
 * its connect deadline (the Redis store's, 5 s) with a `store-unavailable` error.
 */
export async function openStore(
  settings: StoreSettings,
  options: OpenStoreOptions = {},
): Promise<RunStore> {
  return createRunStore(settings.spec, {
    ...(settings.prefix === undefined ? {} : { prefix: settings.prefix }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.instanceId === undefined ? {} : { instanceId: options.instanceId }),
  });
}

interface Output {
  write(text: string): void;
}

/**
 * `openStore`, or one line on `err` saying why the store cannot be used (Redis not there, or
 * the `redis` package not installed) and undefined: the command then exits with status 1.
 * Anything else is a bug and is thrown.
 */
export async function openStoreOrSay(
  settings: StoreSettings,
  options: OpenStoreOptions,
  err: Output,
): Promise<RunStore | undefined> {
  try {
    return await openStore(settings, options);
  } catch (error) {
    if (!isErrorOfKind(error, 'store-unavailable') && !isErrorOfKind(error, 'missing-package'))
      throw error;
    // The store's messages name it (host, port, database), never the credentials; one line.
    err.write(`toolwire: ${neutraliseControls(error.message.replace(/\s+/g, ' '))}\n`);
    return undefined;
  }
}

/**
 * The store for a command that keeps its own memory otherwise: `{}` for `memory`, `{ store }`
 * for Redis (the caller closes it), or undefined when it cannot be opened (`openStoreOrSay` said
 * why on `err`).
 */
export async function sharedStoreOrSay(
  settings: StoreSettings,
  options: OpenStoreOptions,
  err: Output,
): Promise<{ readonly store?: RunStore } | undefined> {
  if (settings.kind === 'memory') return {};
  const store = await openStoreOrSay(settings, options, err);
  return store === undefined ? undefined : { store };
}

/** `redis://HOST:PORT/DB` of a valid `--store` value, or a UsageError that shows no credentials. */
function redisAddress(spec: string, source: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(spec);
  if (scheme === null || scheme[0].toLowerCase() !== 'redis://') {
    // Said here, not by parseRunStoreSpec, which quotes the value: it may hold a password.
    const shown = neutraliseControls(withoutCredentials(spec));
    throw new UsageError(
      `${source} takes memory or redis://HOST:PORT[/DB]: ${
        scheme === null
          ? `"${shown.length > 40 ? `${shown.slice(0, 40)}…` : shown}" is neither`
          : `the scheme ${scheme[0]} is not supported`
      }`,
    );
  }
  try {
    // Its other reasons name what is wrong, never the value.
    parseRunStoreSpec(spec);
  } catch (error) {
    if (!RunStoreSpecError.isInstance(error)) throw error;
    const reason = error.message.replace(
      /^--store takes memory or redis:\/\/HOST:PORT\[\/DB\]: /,
      '',
    );
    throw new UsageError(`${source} takes memory or redis://HOST:PORT[/DB]: ${reason}`, {
      cause: error,
    });
  }
  const url = new URL(spec);
  const database = url.pathname.replace(/^\//, '') || '0';
  return `redis://${url.hostname}:${url.port || '6379'}/${Number(database)}`;
}

/**
 * The text with a URL's credentials redacted (`redactCredentials`); text that is no URL but has
 * an `@` may still hold a password before it, and is shown as nothing.
 */
function withoutCredentials(text: string): string {
  const redacted = redactCredentials(text);
  return redacted === text && text.includes('@') ? '…' : redacted;
}

function checkPrefix(prefix: string, fromEnv: boolean): void {
  const name = fromEnv ? 'TOOLWIRE_STORE_PREFIX' : '--store-prefix';
  if (prefix.length > MAX_PREFIX_LENGTH || !PREFIX.test(prefix))
    throw new UsageError(
      `${name} must be 1 to ${MAX_PREFIX_LENGTH} printable characters without spaces, e.g. toolwire:`,
    );
}
