import type { CallContext } from '../../engine/call-body.ts';
import type { JsonCallsBodyConfig } from './json-call-config.ts';
import { JsonCallsBody } from './json-calls-body.ts';

/** A call whose header names the tool before its JSON arguments (Kimi-K2, DeepSeek, harmony). */
export interface NamedJsonConfig {
  /** The literal that ends the header (`<|tool_call_argument_begin|>`, `<|message|>`). */
  readonly terminator: string;
  /** Header text the opener already consumed, put before what follows. */
  readonly consumed?: string;
  /** The tool's name in the header, or undefined when the header is not a call's. */
  readName(header: string): string | undefined;
  /** A header longer than this is not a call. Default 256. */
  readonly maxLength?: number;
  /** How the JSON after the header is read (`closer`, `speculative`, `fencedJson`). */
  readonly json: Pick<JsonCallsBodyConfig, 'closer' | 'speculative' | 'fencedJson'>;
}

const NO_SHAPE = { nameKeys: [], argumentKeys: [] };

/** One `JsonCallsBody` configuration per named config, so `auto` can tell equal readers apart. */
const configs = new WeakMap<NamedJsonConfig, JsonCallsBodyConfig>();

/** `JsonCallsBody` reading the name from the header, then the arguments from the JSON. */
export function namedJsonBody(context: CallContext, named: NamedJsonConfig): JsonCallsBody {
  let config = configs.get(named);
  if (config === undefined) {
    const { json, ...header } = named;
    config = { ...json, shape: NO_SHAPE, header };
    configs.set(named, config);
  }
  return new JsonCallsBody(context, config);
}
