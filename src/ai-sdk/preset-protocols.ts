import type { ToolCallProtocol } from '../core/index.ts';
import { executeProtocol, hermesProtocol, xmlProtocol } from '../protocols/index.ts';

/**
 * One protocol per preset, made on first use and shared by every middleware the presets make
 * (V4 and V3 alike). A protocol keeps no state of a call, and its caches (the rendered tools
 * section, the compiled call openers) then serve an application that makes a middleware per
 * request: with a fresh protocol each time, building the middleware and its first
 * `transformParams` cost about 10 µs instead of 2 (`.prof/build.ts`, the bench's five tools).
 */
function sharedProtocol(create: () => ToolCallProtocol): () => ToolCallProtocol {
  let protocol: ToolCallProtocol | undefined;
  return () => {
    protocol ??= create();
    return protocol;
  };
}

export const presetXmlProtocol = sharedProtocol(() => xmlProtocol());
export const presetHermesProtocol = sharedProtocol(() => hermesProtocol());
export const presetExecuteProtocol = sharedProtocol(() => executeProtocol());
