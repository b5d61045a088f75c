/** Produces ids that are unique within a process and unlikely to collide across processes. */
export type IdGenerator = () => string;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Random bytes drawn at once: a proxy makes a generator per request, and each draw is a system call. */
const POOL_BYTES = 4096;
let pool = new Uint8Array(0);
let drawn = 0;

function randomPrefix(length: number): string {
  if (drawn + length > pool.length) {
    pool = new Uint8Array(Math.max(POOL_BYTES, length));
    globalThis.crypto.getRandomValues(pool);
    drawn = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[pool[drawn + i]! % ALPHABET.length];
  drawn += length;
  return out;
}

/**
 * A random prefix per generator plus a counter: one `getRandomValues` call per parser instead of
 * one per id, which keeps id generation off the hot path.
 */
export function createIdGenerator(kind: string): IdGenerator {
  const prefix = `${kind}_${randomPrefix(10)}_`;
  let counter = 0;
  // Decimal: a small number's string is cached by the engine, where base 36 is computed each time.
  return () => prefix + counter++;
}
