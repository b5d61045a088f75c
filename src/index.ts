/**
 * `toolwire`: the streaming parsers of every tool-call format, the registry that picks one, what
 * writing a format of your own takes, and the types and errors they share. Listed by name, so
 * what is public is decided here and nothing internal leaks through a re-export.
 */

// Errors: one base class, its kinds, and the errors the parsers and model calls throw.
export {
  isErrorOfKind,
  TOOLWIRE_ERROR_KINDS,
  ToolwireError,
  type ToolwireErrorKind,
  type ToolwireErrorOptions,
} from './core/errors.ts';
// What a parser takes and gives.
export type { ParseEvent, ParseEventType, ToolCallEvent } from './core/events.ts';
export type { IdGenerator } from './core/ids.ts';
export {
  ModelCallError,
  type ModelCallErrorFields,
  type ModelCallErrorKind,
} from './core/model-call-error.ts';
export type { ProtocolFault, ProtocolFaultCode, ValidationProblem } from './core/problems.ts';
export {
  DEFAULT_MAX_CALL_CHARS,
  DEFAULT_MAX_DEPTH,
  type EndOptions,
  type ParsedContent,
  type ParseOptions,
  type StreamParser,
  type ToolCallProtocol,
} from './core/protocol.ts';
export type {
  JsonSchema,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from './core/tool.ts';
export type { StreamableKind, ValuePolicy } from './core/value-policy.ts';
// Writing a format of your own (docs/formats.md).
export {
  CallAssembler,
  type CallBody,
  type CallContext,
  type CallHeader,
  type CallOutcome,
  COMMAND_R_THINK_TAGS,
  createValuePolicy,
  defineProtocol,
  FencedCallBody,
  HARMONY_THINK_TAGS,
  type JsonCallShape,
  JsonCallsBody,
  type JsonCallsBodyConfig,
  jsonForPrompt,
  MarkupBody,
  MISTRAL_THINK_TAGS,
  type Opener,
  ParameterTagsBody,
  type ParameterTagsOpener,
  type ParameterTagsSyntax,
  type ProtocolDefinition,
  type ProtocolGrammar,
  PythonCallsBody,
  type PythonCallsConfig,
  pythonCall,
  pythonLiteral,
  type ReasoningTag,
  type ResolvedParseOptions,
  resultJsonForPrompt,
  SEED_THINK_TAGS,
  THINK_TAGS,
} from './protocols/authoring.ts';
// The protocols, one factory per format, and the ways to pick one.
export { type AutoProtocolOptions, autoProtocol } from './protocols/auto/index.ts';
export {
  BY_MODEL,
  isProtocolChoice,
  type ProtocolChoice,
  protocolChoices,
  protocolNameFor,
} from './protocols/choice.ts';
export type { AgentConventions, FormatEntry } from './protocols/define/format-entry.ts';
// Formats as data: a FormatSpec becomes a protocol; chat and response templates become formats.
export {
  analyzeChatTemplate,
  type ChatTemplateAnalysis,
  ChatTemplateError,
  type ChatTemplateEvidence,
  type ChatTemplateOptions,
  chatTemplateFromFile,
  protocolFromChatTemplate,
} from './protocols/derive/chat-template.ts';
export {
  formatSpecFromResponseTemplate,
  protocolFromResponseTemplate,
  ResponseTemplateError,
  type ResponseTemplateOptions,
} from './protocols/derive/response-template.ts';
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
} from './protocols/formats.ts';
// Grammars for constrained decoding, made from a format's spec (GBNF, xgrammar, JSON Schema).
export {
  type EbnfGrammar,
  type GbnfGrammar,
  type GeneratedGrammar,
  GRAMMAR_SYNTAXES,
  type GrammarOptions,
  type GrammarSyntax,
  type GrammarToolChoice,
  GrammarUnsupportedError,
  grammarFor,
  type JsonSchemaGrammar,
  type StructuralTag,
  type StructuralTagFormat,
  type StructuralTagGrammar,
} from './protocols/grammar/index.ts';
export { protocolByName, protocolForModel } from './protocols/index.ts';
export {
  FORMATS,
  formatEntry,
  formatForModel,
  isProtocolName,
  PROTOCOL_NAMES,
  type ProtocolName,
} from './protocols/registry.ts';
export {
  defineFormat,
  type FormatEntryExtras,
  type FormatHooks,
  FormatSpecError,
  formatEntryFromSpec,
  readFormatSpec,
  specOf,
} from './protocols/spec/define.ts';
export type {
  CallFormSpec,
  DialectCallForm,
  FormatSpec,
  JsonCallForm,
  PromptSpec,
  PythonCallForm,
  ReasoningSpec,
  ResultSpec,
  TaggedCallForm,
  WriteSpec,
} from './protocols/spec/types.ts';
export { UnsupportedPatternError } from './schema/pattern.ts';
