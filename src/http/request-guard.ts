import type { MiddlewareHandler } from 'hono';
import { canonicalHost, isIpAddress, isLoopbackHostname } from './host-names.ts';
import { HttpError } from './http-error.ts';

/**
 * Which `Host` a request may be addressed to. A DNS-rebinding page reaches this server under a
 * DNS name of its own, so refusing unknown names keeps such pages out even on loopback.
 */
export interface HostPolicy {
  /** Canonical names admitted besides loopback and IP addresses. */
  readonly names: ReadonlySet<string>;
  /** Every spelling of loopback is admitted (some name given was a loopback one). */
  readonly loopback: boolean;
  /** Any IP address is admitted (a server on a network address: a rebinding page needs a name). */
  readonly ipAddresses: boolean;
  /** How to address the server, for the refusal message. */
  readonly described: string;
}

/**
 * The policy for these names (any spelling; a loopback name admits every loopback spelling).
 * Throws a TypeError naming an entry that is not a host name.
 */
export function hostPolicy(names: readonly string[], ipAddresses: boolean): HostPolicy {
  const canonical = names.map((name) => {
    const host = canonicalHost(name);
    if (!host) throw new TypeError(`allowedHostnames: ${JSON.stringify(name)} is not a host name`);
    return host.hostname;
  });
  const loopback = canonical.some(isLoopbackHostname);
  const others = canonical.filter((name) => !isLoopbackHostname(name));
  const ways = [
    ...(loopback ? ['localhost', '127.0.0.1', '[::1]'] : []),
    ...others,
    ...(ipAddresses ? ['its IP address'] : []),
  ];
  return {
    names: new Set(others),
    loopback,
    ipAddresses,
    described: ways.join(', ') || 'nothing (no host name is allowed)',
  };
}

function admits(policy: HostPolicy, hostname: string): boolean {
  if (isLoopbackHostname(hostname)) return policy.loopback;
  if (policy.ipAddresses && isIpAddress(hostname)) return true;
  return policy.names.has(hostname);
}

/**
 * Refuses (403) a request whose `Host` header, or the host of its URL (an absolute-form request
 * target wins over the header in Node), is not one the policy admits.
 */
export function hostGuard(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('host');
    // Node serves an origin-form target (`/path`) at the URL it builds from the Host header:
    // checking the header checks both, and the URL need not be parsed on every request.
    const target = (c.env as { incoming?: { url?: unknown } } | undefined)?.incoming?.url;
    const originForm = header !== undefined && typeof target === 'string' && target.startsWith('/');
    const hosts = originForm
      ? [header]
      : [...(header === undefined ? [] : [header]), new URL(c.req.url).host];
    for (const host of hosts) {
      const canonical = canonicalHost(host);
      if (canonical === undefined || !admits(policy, canonical.hostname))
        throw new HttpError(
          403,
          `requests for host ${JSON.stringify(host)} are refused (DNS rebinding protection); address this server as ${policy.described}`,
        );
    }
    await next();
  };
}

/**
 * Refuses (403) an API request that a page on another origin sent: a foreign or `null` Origin,
 * or a browser's `Sec-Fetch-Site` other than same-origin (covers reads without an Origin too).
 * A rebinding page's Origin matches its Host, so this works together with `hostGuard`.
 */
export function sameOriginGuard(): MiddlewareHandler {
  return async (c, next) => {
    const site = c.req.header('sec-fetch-site');
    if (site !== undefined && site !== 'same-origin' && site !== 'none')
      throw new HttpError(
        403,
        `a ${site} request is refused: only the page this server serves may use its API`,
      );
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      const own = canonicalHost(c.req.header('host') ?? new URL(c.req.url).host);
      const from = originHost(origin);
      if (own === undefined || from === undefined || from !== own.host)
        throw new HttpError(
          403,
          `requests from ${JSON.stringify(origin)} are refused: only the page this server serves may use its API`,
        );
    }
    await next();
  };
}

/** The canonical host of an http(s) Origin, or undefined (`null`, other schemes, not an origin). */
function originHost(origin: string): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  // Only a scheme and a host: user info, a path or a query mean this is no browser's Origin.
  if (url.href !== `${url.origin}/`) return undefined;
  return canonicalHost(url.host)?.host;
}
