/**
 * What writing a format of your own takes (see docs/formats.md): `defineProtocol`, the grammar
 * and call-body contract the engine drives, and the argument readers the built-in formats share.
 */

export type { Opener } from '../scan/opener-trie.ts';
export { createValuePolicy } from '../schema/index.ts';
export { FencedCallBody } from './codecs/json/fenced-call-body.ts';
export type {
  CallHeader,
  JsonCallShape,
  JsonCallsBodyConfig,
} from './codecs/json/json-call-config.ts';
export { JsonCallsBody } from './codecs/json/json-calls-body.ts';
export { jsonForPrompt, resultJsonForPrompt } from './codecs/json/json-text.ts';
export { PythonCallsBody, type PythonCallsConfig } from './codecs/python/python-call-body.ts';
export { pythonCall, pythonLiteral } from './codecs/python/python-call-format.ts';
export {
  ParameterTagsBody,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
} from './codecs/tagged/parameter-tags-body.ts';
export { defineProtocol, type ProtocolDefinition } from './define/define-protocol.ts';
export type { AgentConventions, FormatEntry } from './define/format-entry.ts';
export { CallAssembler } from './engine/call-assembler.ts';
export type {
  CallBody,
  CallContext,
  CallOutcome,
  ResolvedParseOptions,
} from './engine/call-body.ts';
export { MarkupBody } from './engine/markup-body.ts';
export {
  COMMAND_R_THINK_TAGS,
  HARMONY_THINK_TAGS,
  MISTRAL_THINK_TAGS,
  SEED_THINK_TAGS,
  THINK_TAGS,
} from './engine/reasoning-tags.ts';
export type { ProtocolGrammar, ReasoningTag } from './engine/stream-engine.ts';
