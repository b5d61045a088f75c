import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import type { ToolCallProtocol } from '../core/index.ts';
import { executeProtocol, hermesProtocol, xmlProtocol } from '../protocols/index.ts';
import { createToolMiddleware } from './middleware.ts';
import type { PresetOptions } from './options.ts';

/**
 * One protocol per preset, made on first use and shared by every middleware the preset makes.
 * A protocol keeps no state of a call, and its caches (the rendered tools section, the compiled
 * call openers) then serve an application that makes a middleware per request.
 */
function sharedProtocol(create: () => ToolCallProtocol): () => ToolCallProtocol {
  let protocol: ToolCallProtocol | undefined;
  return () => {
    protocol ??= create();
    return protocol;
  };
}

const sharedXml = sharedProtocol(() => xmlProtocol());
const sharedHermes = sharedProtocol(() => hermesProtocol());
const sharedExecute = sharedProtocol(() => executeProtocol());

/** Calls as XML elements named after the tool, one child element per parameter. */
export function xmlToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: sharedXml() });
}

/** Calls as `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen). */
export function hermesToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: sharedHermes() });
}

/** `<think>` then one `<execute>[{"name": …, "args": …}, …]</execute>` batch per step. */
export function executeToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: sharedExecute() });
}
