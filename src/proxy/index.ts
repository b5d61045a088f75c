/**
 * `toolwire proxy`: tool calling for OpenAI- and Anthropic-compatible clients in front of a model
 * server that cannot do tools. Node only.
 */

export {
  createProxyApp,
  DEFAULT_PROXY_LIMITS,
  type ProxyApp,
  type ProxyLimits,
  type ProxyOptions,
} from './app.ts';
export { type ClientApi, ProxyError } from './errors.ts';
export {
  redactCredentials,
  type UpstreamTarget,
  upstreamBaseURL,
  upstreamTarget,
} from './upstream.ts';
