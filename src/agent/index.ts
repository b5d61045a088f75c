export { ASK_USER_TOOL } from './ask-user.ts';
export { CompletionTextReader } from './completion-text.ts';
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
export {
  AG_UI_PROTOCOL_VERSION,
  type AgUiContentPart,
  AgUiEncoder,
  type AgUiEvent,
  type AgUiEventOptions,
  type AgUiFailure,
  AgUiInputError,
  type AgUiInputLimits,
  type AgUiMessage,
  type AgUiRunAgentInput,
  type AgUiRunOutcome,
  type AgUiRunRequest,
  type AgUiTokenUsage,
  type AgUiTool,
  type AgUiToolCall,
  type AgUiToolwireMetadata,
  agUiInputToRun,
  frameAgUiEvent,
  pendingToolResults,
  toAgUiEvents,
} from './ui/ag-ui.ts';
export {
  frameUIMessageChunk,
  type ToolwireFaultData,
  type ToolwireMessageMetadata,
  toUIMessageSse,
  toUIMessageStream,
  UI_MESSAGE_STREAM_DONE,
  UI_MESSAGE_STREAM_HEADERS,
  UIMessageChunkEncoder,
  type UIMessageStreamOptions,
  type UIMessagesRun,
  uiMessagesToRun,
} from './ui/ui-message-stream.ts';
