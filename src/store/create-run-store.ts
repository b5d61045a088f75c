import { ToolwireError } from '../core/errors.ts';
import { MemoryRunStore } from './memory/index.ts';
import type { RunStore, RunStoreLimits } from './run-store.ts';

/** What every store takes besides where it is. */
export interface RunStoreOptions {
  /** This instance's id; default: a random one per store. */
  readonly instanceId?: string;
  /** Bounds; default: `DEFAULT_RUN_STORE_LIMITS`. */
  readonly limits?: Partial<RunStoreLimits>;
  /** Redis only: the prefix of every key (`TOOLWIRE_STORE_PREFIX`); default `tw:`. */
  readonly prefix?: string;
}

/** Where runs are kept: in this process, or in the Redis at `url`. */
export type RunStoreSpec =
  | { readonly kind: 'memory' }
  | { readonly kind: 'redis'; readonly url: string; readonly database: number };

/** A `--store` value that names no store. */
export class RunStoreSpecError extends ToolwireError {
  declare readonly kind: 'usage';

  constructor(reason: string) {
    super('usage', `--store takes memory or redis://HOST:PORT[/DB]: ${reason}`);
  }
}

const DATABASE = /^\/([0-9]{1,5})?$/;

/**
 * Reads a `--store` value (`TOOLWIRE_STORE`): `memory`, or `redis://HOST:PORT[/DB]` (a user and
 * password may precede the host, as Redis URLs allow). Throws `RunStoreSpecError` otherwise;
 * the message never repeats a password.
 */
export function parseRunStoreSpec(spec: string): RunStoreSpec {
  const text = spec.trim();
  if (text.toLowerCase() === 'memory') return { kind: 'memory' };
  if (!/^redis:\/\//i.test(text)) {
    return refuse(
      `${JSON.stringify(shownSpec(text))} is neither (rediss:// and other schemes are not supported)`,
    );
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refuse('the Redis address is not a URL');
  }
  if (url.hostname === '') return refuse('the Redis address has no host');
  if (url.search !== '' || url.hash !== '')
    return refuse('the Redis address takes no query or fragment');
  const database = DATABASE.exec(url.pathname === '' ? '/' : url.pathname);
  if (database === null)
    return refuse('the database after the port must be a number (redis://HOST:PORT/2)');
  return { kind: 'redis', url: text, database: Number(database[1] ?? 0) };
}

/**
 * A refused value as an error may show it: a scheme alone (what follows may hold a password),
 * else what follows the last `@` (a password before it), at most 40 characters.
 */
function shownSpec(text: string): string {
  const scheme = text.indexOf('://');
  if (scheme !== -1) return `${text.slice(0, Math.min(scheme, 40))}://…`;
  const at = text.lastIndexOf('@');
  const rest = at === -1 ? text : `…@${text.slice(at + 1)}`;
  return rest.length > 40 ? `${rest.slice(0, 40)}…` : rest;
}

function refuse(reason: string): never {
  throw new RunStoreSpecError(reason);
}

/**
 * The store a `--store` value names: `memory` (the default: nothing to run beside the server) or
 * `redis://HOST:PORT[/DB]`, whose code and the optional `redis` package load only then.
 */
export async function createRunStore(
  spec: string,
  options: RunStoreOptions = {},
): Promise<RunStore> {
  const parsed = parseRunStoreSpec(spec);
  if (parsed.kind === 'memory') {
    return new MemoryRunStore({
      ...(options.instanceId === undefined ? {} : { instanceId: options.instanceId }),
      ...(options.limits === undefined ? {} : { limits: options.limits }),
    });
  }
  // Loaded here only: the Redis store's code and the optional `redis` package it needs.
  const { createRedisRunStore } = await import('./redis/index.ts');
  return createRedisRunStore(parsed.url, options);
}
