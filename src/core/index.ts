/**
 * What the other layers of toolwire take from `core`. Internal: what users get is listed by name
 * in src/index.ts, which names the public parts of `core` itself.
 */
export type { ParseEvent, ParseEventType, ToolCallEvent } from './events.ts';
export { createIdGenerator, type IdGenerator } from './ids.ts';
export type { ProtocolFault, ProtocolFaultCode, ValidationProblem } from './problems.ts';
export {
  DEFAULT_MAX_CALL_CHARS,
  DEFAULT_MAX_DEPTH,
  type EndOptions,
  type ParsedContent,
  type ParseOptions,
  type StreamParser,
  type ToolCallProtocol,
} from './protocol.ts';
export { setOwnProperty } from './safe-object.ts';
export type {
  JsonSchema,
  ToolCallToFormat,
  ToolDefinition,
  ToolResponseToFormat,
} from './tool.ts';
export {
  correctionText,
  demandSentence,
  describeDemand,
  TOOLS_UNAVAILABLE,
  type ToolChoiceDemand,
} from './tool-choice.ts';
export { type StreamableKind, UNCONSTRAINED_POLICY, type ValuePolicy } from './value-policy.ts';
