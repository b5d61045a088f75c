import type { ToolCallProtocol } from '../core/index.ts';
import { type AutoProtocolOptions, autoProtocol } from './auto/index.ts';
import {
  FORMATS,
  formatEntry,
  formatForModel,
  PROTOCOL_NAMES,
  type ProtocolName,
} from './registry.ts';

export {
  BY_MODEL,
  isProtocolChoice,
  type ProtocolChoice,
  protocolChoices,
  protocolNameFor,
  unknownProtocolMessage,
} from './choice.ts';
export type { AgentConventions, FormatEntry } from './define/format-entry.ts';
export {
  type ApertusProtocolOptions,
  apertusProtocol,
  type CommandRProtocolOptions,
  commandRProtocol,
  type DeepseekProtocolOptions,
  deepseekProtocol,
  executeProtocol,
  type FirefunctionProtocolOptions,
  type FunctionaryProtocolOptions,
  firefunctionProtocol,
  functionaryProtocol,
  functionGemmaProtocol,
  type GraniteProtocolOptions,
  glmProtocol,
  gptOssProtocol,
  graniteProtocol,
  type HermesProtocolOptions,
  hermesProtocol,
  kimiK2Protocol,
  type Llama3ProtocolOptions,
  llama3Protocol,
  type MistralProtocolOptions,
  type MistralStyle,
  minimaxProtocol,
  mistralProtocol,
  type PythonicPromptStyle,
  type PythonicProtocolOptions,
  pythonicProtocol,
  qwen3CoderProtocol,
  seedOssProtocol,
  type XlamProtocolOptions,
  xlamProtocol,
  xmlProtocol,
} from './formats.ts';
export { formatForModel, isProtocolName } from './registry.ts';
export {
  type AutoProtocolOptions,
  autoProtocol,
  FORMATS,
  formatEntry,
  PROTOCOL_NAMES,
  type ProtocolName,
};

/**
 * The protocol of that name (or alias, any case) with its default settings; `auto` reads every
 * format. Throws on a name no format has, listing the names.
 */
export function protocolByName(name: ProtocolName | (string & {})): ToolCallProtocol {
  if (name.toLowerCase() === 'auto') return autoProtocol();
  const entry = formatEntry(name);
  if (!entry) {
    throw new TypeError(`unknown protocol "${name}": expected one of ${PROTOCOL_NAMES.join(', ')}`);
  }
  return entry.create();
}

/** `formatForModel(modelId).create()`: the protocol a model is trained on. */
export function protocolForModel(modelId: string): ToolCallProtocol {
  return formatForModel(modelId).create();
}
