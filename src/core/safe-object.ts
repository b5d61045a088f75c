/**
 * Sets an own, enumerable property even for keys like `__proto__`, which a plain assignment would
 * turn into a prototype change. Model output is untrusted: its keys must never reach a prototype.
 */
export function setOwnProperty(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
