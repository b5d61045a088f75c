/**
 * What toolwire's HTTP apps (the server and the proxy) share: the guards on who may send a
 * request, reading a JSON body within limits, the one HTTP error, the SSE response, and serving
 * an app on Node. Node only.
 */

export {
  type CanonicalHost,
  canonicalBindHost,
  canonicalHost,
  isIpAddress,
  isLoopbackHostname,
  LOOPBACK_HOSTNAMES,
  listenAddress,
} from './host-names.ts';
export { HttpError, type HttpErrorDetails } from './http-error.ts';
export {
  type JsonBody,
  type JsonBodyLimits,
  type JsonBodyOptions,
  readJsonBody,
} from './json-body.ts';
export {
  DEFAULT_JSON_SHAPE_LIMITS,
  estimateJsonCost,
  type JsonShape,
  type JsonShapeExcess,
  type JsonShapeLimits,
  JsonTextReader,
  measureJson,
} from './json-shape.ts';
export { estimateBytes, formatBytes } from './memory-estimate.ts';
export {
  HEADERS_TIMEOUT_MS,
  REQUEST_TIMEOUT_MS,
  type RunningServer,
  type ServableApp,
  startServer,
} from './node-server.ts';
export { type HostPolicy, hostGuard, hostPolicy, sameOriginGuard } from './request-guard.ts';
export { sseResponse } from './sse-response.ts';
