/**
 * `toolwire/server`: the web server of `toolwire serve`: the agent loop over HTTP, streamed as
 * the content-block stream, and the page that shows them. Node only (the stream encoder itself
 * is in src/stream; what the server shares with the proxy is in src/http).
 */

export {
  type CanonicalHost,
  canonicalBindHost,
  canonicalHost,
  isIpAddress,
  isLoopbackHostname,
} from '../http/host-names.ts';
export { HttpError, type HttpErrorDetails } from '../http/http-error.ts';
export { type RunningServer, type ServableApp, startServer } from '../http/node-server.ts';
// The run store the app takes (`store`): memory, or Redis shared by instances.
export {
  createRunStore,
  DEFAULT_RUN_STORE_LIMITS,
  MemoryRunStore,
  MemoryRunStoreBacking,
  type MemoryRunStoreOptions,
  parseRunStoreSpec,
  type RunStore,
  type RunStoreLimits,
  type RunStoreOptions,
  type RunStoreSpec,
  RunStoreSpecError,
} from '../store/index.ts';
export { AgentBlockAdapter, type AgentBlockOptions, resultContent } from './agent-blocks.ts';
export {
  createServerApp,
  DEFAULT_LIMITS,
  DEFAULT_REPLAY_DELAY_MS,
  LOOPBACK_HOSTNAMES,
  REPLAY_HEADER,
  type ReplaySettings,
  RUN_ID_HEADER,
  type RunSettings,
  runStoreLimits,
  type ServerApp,
  type ServerAppOptions,
  type ServerLimits,
} from './app.ts';
export { BlocksWire } from './blocks-wire.ts';
export {
  type ConversationLimits,
  DEFAULT_CONVERSATION_LIMITS,
  parseConversationInput,
} from './conversation-input.ts';
export { LiveRuns, type OwnedRun, RunLimitError } from './live-runs.ts';
export { logResponse, resumeAfter } from './log-stream.ts';
export {
  checkModelServer,
  type ModelServerCheck,
  type ModelServerProbe,
  openAICompatibleProbe,
} from './model-server-probe.ts';
export { parseRecording, type Recording } from './replay.ts';
export { type DriveRun, RunDriver, type RunDriverOptions } from './run-driver.ts';
export { RunHeartbeat, type RunHeartbeatOptions } from './run-heartbeat.ts';
export { defaultWebRoot } from './static-page.ts';
export { ASK_USER_TOOL, serverSystemPrompt, serverTools } from './tools.ts';
export type { WireEncoder } from './wire-encoder.ts';
