/** Produces ids that are unique within a process and unlikely to collide across processes. */
export type IdGenerator = () => string;

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

function randomPrefix(length: number): string {
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
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
