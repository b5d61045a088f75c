/**
 * The proxy's stored Responses in Redis: JSON text by id with a TTL, bounded by count and bytes
 * (oldest first), kept in one script so two instances never overshoot the bounds.
 */
import type { RunStoreLimits, StoredResponses } from '../run-store.ts';
import type { RedisScripts } from './script-runner.ts';

export class RedisStoredResponses implements StoredResponses {
  readonly #scripts: RedisScripts;
  readonly #prefix: string;
  readonly #limits: RunStoreLimits;

  constructor(scripts: RedisScripts, prefix: string, limits: RunStoreLimits) {
    this.#scripts = scripts;
    this.#prefix = prefix;
    this.#limits = limits;
  }

  get(id: string): Promise<string | undefined> {
    return this.#scripts.connection
      .call<string | null>('responses.get', ['GET', `${this.#prefix}resp:${id}`])
      .then((json) => json ?? undefined);
  }

  async put(id: string, json: string): Promise<boolean> {
    const kept = await this.#scripts.run<number>('putResponse', [
      id,
      json,
      String(Math.max(1, this.#limits.storedResponseTtlMs)),
      String(this.#limits.maxStoredResponses),
      String(this.#limits.maxStoredResponseBytes),
    ]);
    return kept === 1;
  }
}
