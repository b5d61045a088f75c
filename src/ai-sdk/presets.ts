import type { LanguageModelV4Middleware } from '@ai-sdk/provider';
import { createToolMiddleware } from './middleware.ts';
import type { PresetOptions } from './options.ts';
import {
  presetExecuteProtocol,
  presetHermesProtocol,
  presetXmlProtocol,
} from './preset-protocols.ts';

/** Calls as XML elements named after the tool, one child element per parameter. */
export function xmlToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: presetXmlProtocol() });
}

/** Calls as `<tool_call>{"name": …, "arguments": …}</tool_call>` (Hermes, Qwen). */
export function hermesToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: presetHermesProtocol() });
}

/** `<think>` then one `<execute>[{"name": …, "args": …}, …]</execute>` batch per step. */
export function executeToolMiddleware(options: PresetOptions = {}): LanguageModelV4Middleware {
  return createToolMiddleware({ ...options, protocol: presetExecuteProtocol() });
}
