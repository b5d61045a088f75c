export { ASK_USER_TOOL } from './ask-user.ts';
export {
  type ConversationEntry,
  parseConversation,
  type RenderedMessage,
  renderConversation,
  type ToolOutcome,
} from './conversation.ts';
export {
  ResumeMismatchError,
  resumeAgent,
  runAgent,
  type ToolResultInput,
} from './run-agent.ts';
export { describeRunError, type ErrorPayload, type ModelEndpoint } from './run-error-report.ts';
export type {
  AgentEvent,
  AgentResult,
  AgentRun,
  AgentTool,
  AgentTools,
  AgentUsage,
  PendingCall,
  RunAgentOptions,
  RunState,
  StopReason,
  ToolErrorKind,
  ToolExecutionContext,
} from './types.ts';
