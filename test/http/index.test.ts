import { describe, expect, it } from 'vitest';
import * as http from '../../src/http/index.ts';
import * as proxy from '../../src/proxy/index.ts';
import * as server from '../../src/server/index.ts';

describe('src/http: the layer the server and the proxy share', () => {
  it('exports its parts by name', () => {
    expect(Object.keys(http).sort()).toEqual(
      [
        'DEFAULT_JSON_SHAPE_LIMITS',
        'HEADERS_TIMEOUT_MS',
        'HttpError',
        'JsonTextReader',
        'LOOPBACK_HOSTNAMES',
        'REQUEST_TIMEOUT_MS',
        'canonicalBindHost',
        'canonicalHost',
        'estimateBytes',
        'estimateJsonCost',
        'formatBytes',
        'hostGuard',
        'hostPolicy',
        'isIpAddress',
        'isLoopbackHostname',
        'listenAddress',
        'measureJson',
        'readJsonBody',
        'sameOriginGuard',
        'sseResponse',
        'startServer',
      ].sort(),
    );
  });

  it('gives the server and the proxy faces one HttpError and one startServer', () => {
    expect(server.HttpError).toBe(http.HttpError);
    expect(proxy.HttpError).toBe(http.HttpError);
    expect(server.startServer).toBe(http.startServer);
    expect(proxy.startServer).toBe(http.startServer);
    expect(server.LOOPBACK_HOSTNAMES).toBe(http.LOOPBACK_HOSTNAMES);
  });
});
