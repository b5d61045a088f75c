/**
 * A cache that holds at most `maxEntries` entries. Keys often come from input (tool lists, key
 * names, schema patterns), so every cache of the parsers is bounded; when full, adding an entry
 * evicts the oldest one (the first added: a Map iterates in insertion order), so the entries in
 * use stay and a burst of new keys costs one eviction each rather than the whole cache.
 * Reading an entry does not make it younger: the hot path stays a single Map lookup.
 */
export class BoundedCache<K, V> {
  readonly maxEntries: number;
  readonly #entries = new Map<K, V>();

  constructor(maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(`a bounded cache holds at least one entry, not ${maxEntries}`);
    }
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /** Stores `value` under `key`; a new key evicts the oldest entry when the cache is full. */
  set(key: K, value: V): this {
    if (!this.#entries.has(key) && this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(key, value);
    return this;
  }

  /** The value under `key`, made by `make` and stored the first time it is asked for. */
  getOrCreate(key: K, make: (key: K) => V): V {
    const found = this.#entries.get(key);
    if (found !== undefined || this.#entries.has(key)) return found as V;
    const made = make(key);
    this.set(key, made);
    return made;
  }
}
