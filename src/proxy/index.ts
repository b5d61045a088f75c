/**
 * `toolwire/proxy`: tool calling for OpenAI- and Anthropic-compatible clients in front of a model
 * server that cannot do tools. Node only (what the proxy shares with the server is in src/http).
 */

export {
  type CanonicalHost,
  canonicalBindHost,
  canonicalHost,
  isIpAddress,
  isLoopbackHostname,
  LOOPBACK_HOSTNAMES,
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
export {
  createProxyApp,
  DEFAULT_PROXY_LIMITS,
  type ProxyApp,
  type ProxyLimits,
  type ProxyOptions,
} from './app.ts';
export { type BoundedAnswer, type BoundedGetOptions, boundedGet } from './bounded-get.ts';
export type { ClientApi } from './errors.ts';
export {
  redactCredentials,
  type UpstreamTarget,
  upstreamBaseURL,
  upstreamTarget,
} from './upstream.ts';
export {
  CLIENT_CONSTRAINT_FIELDS,
  CONSTRAIN_MODES,
  type ConstrainedTool,
  type ConstrainMode,
  type ConstraintFields,
  type ConstraintOption,
  type ConstraintRequest,
  constraintFields,
  constraintOptions,
} from './upstream-constraint.ts';
export {
  type DetectedUpstream,
  detectUpstreamKind,
  UPSTREAM_KINDS,
  type UpstreamKind,
} from './upstream-kind.ts';
