import type { IncomingMessage } from 'node:http';
import { type JsonBody, readJsonBody } from '../http/json-body.ts';
import { estimateJsonCost } from '../http/json-shape.ts';
import type { MemoryReservation } from './memory-budget.ts';

/** The proxy's limits on a request body (see `ProxyLimits`). */
export interface BodyLimits {
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly maxJsonDepth: number;
  readonly maxJsonValues: number;
}

/**
 * A request's JSON body, read within the proxy's limits (refusals name the `limits.…` setting
 * to raise), with what answering it will cost reserved in the shared memory budget as it
 * arrives and once it is measured: 413 when it never fits, 503 when it does not fit now.
 */
export function readRequestJson(
  request: Request | IncomingMessage,
  limits: BodyLimits,
  reservation: MemoryReservation,
  anyContentType = false,
): Promise<JsonBody> {
  return readJsonBody(
    request,
    {
      maxBytes: limits.maxBodyBytes,
      timeoutMs: limits.bodyTimeoutMs,
      maxDepth: limits.maxJsonDepth,
      maxValues: limits.maxJsonValues,
    },
    {
      reader: 'the proxy',
      anyContentType,
      settings: {
        maxBytes: 'limits.maxBodyBytes',
        timeoutMs: 'limits.bodyTimeoutMs',
        maxDepth: 'limits.maxJsonDepth',
        maxValues: 'limits.maxJsonValues',
      },
      onBytes: (bytes) => reservation.grow(bytes),
      onMeasured: (bytes, shape) => reservation.growTo(estimateJsonCost(bytes, shape)),
    },
  );
}
