/**
 * Runs the store's scripts by their SHA1 (`EVALSHA`), loading them once; a Redis that lost them
 * (restarted, flushed) answers NOSCRIPT and the script is loaded again and run once more.
 */
import { isNoScript, type RedisConnection } from './connect.ts';
import { type ScriptName, scriptText } from './scripts.ts';

export class RedisScripts {
  readonly connection: RedisConnection;
  readonly #prefix: string;
  readonly #shas = new Map<ScriptName, string>();

  constructor(connection: RedisConnection, prefix: string) {
    this.connection = connection;
    this.#prefix = prefix;
  }

  /** Runs `name` with ARGV = [prefix, ...args]. */
  async run<T>(name: ScriptName, args: readonly string[]): Promise<T> {
    const argv = [this.#prefix, ...args];
    const sha = this.#shas.get(name) ?? (await this.#load(name));
    try {
      return await this.#evalSha<T>(name, sha, argv);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return this.#evalSha<T>(name, await this.#load(name), argv);
    }
  }

  #evalSha<T>(name: ScriptName, sha: string, argv: readonly string[]): Promise<T> {
    return this.connection.call<T>(name, ['EVALSHA', sha, '0', ...argv]);
  }

  async #load(name: ScriptName): Promise<string> {
    const sha = await this.connection.call<string>(`loading the ${name} script`, [
      'SCRIPT',
      'LOAD',
      scriptText(name),
    ]);
    this.#shas.set(name, sha);
    return sha;
  }
}
