import type { ProtocolFault, ValidationProblem } from './problems.ts';

/**
 * What a stream parser emits. The names are the AI SDK's stream-part names, so the middleware is
 * a thin adapter; the agent, the SSE encoder and the page use the same vocabulary.
 */
export type ParseEvent =
  | { readonly type: 'text-start'; readonly id: string }
  | { readonly type: 'text-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'text-end'; readonly id: string }
  | { readonly type: 'reasoning-start'; readonly id: string }
  | { readonly type: 'reasoning-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'reasoning-end'; readonly id: string }
  | { readonly type: 'tool-input-start'; readonly id: string; readonly toolName: string }
  | { readonly type: 'tool-input-delta'; readonly id: string; readonly delta: string }
  | { readonly type: 'tool-input-end'; readonly id: string }
  | ToolCallEvent
  | { readonly type: 'error'; readonly error: ProtocolFault };

export interface ToolCallEvent {
  readonly type: 'tool-call';
  readonly toolCallId: string;
  readonly toolName: string;
  /** JSON text of the arguments after coercion by the tool's schema. */
  readonly input: string;
  /** Present (non-empty) only when the input fails the tool's schema. The call still comes out. */
  readonly problems?: readonly ValidationProblem[];
}

export type ParseEventType = ParseEvent['type'];
