import { jsonrepair } from 'jsonrepair';

/**
 * JSON text parsed as written; undefined when it is not JSON (no JSON text parses to undefined).
 * `JSON.parse` defines `__proto__` keys as own properties, never as prototypes.
 */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * JSON text parsed as written or, failing that, as the repair library reads it (trailing commas,
 * single quotes, unquoted keys, a missing closing bracket); undefined when neither can.
 */
export function parseLenientJson(text: string): unknown {
  const parsed = parseJson(text);
  if (parsed !== undefined) return parsed;
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
}
