/**
 * Host names as a browser sends them, in one canonical form. The WHATWG URL parser does the
 * normalising (it is what browsers use for the Host and Origin they send): `127.1`, `2130706433`,
 * `0x7f.1` and `0177.0.0.1` all become `127.0.0.1`, and `[0:0:0:0:0:0:0:1]` becomes `[::1]`.
 */

/** The names of loopback a client may use; one of them admits every spelling of loopback. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/** A host in canonical form: `hostname` without the port, `host` with it (when not default). */
export interface CanonicalHost {
  readonly hostname: string;
  readonly host: string;
}

/**
 * A `Host` header (or an allowed name) in canonical form, or undefined when it is not a bare
 * `host[:port]`: user info, a path, a query or a fragment make it invalid, not ignored (so
 * `evil.example@127.0.0.1` is refused rather than read as 127.0.0.1).
 */
export function canonicalHost(value: string): CanonicalHost | undefined {
  if (value === '' || /[@/\\?#\s]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '')
    return undefined;
  // `localhost.` is the fully qualified spelling of `localhost`: one trailing dot is dropped.
  const hostname = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  return { hostname, host: url.port === '' ? hostname : `${hostname}:${url.port}` };
}

/**
 * A host to listen on (`--host`), as written by a user: a bare IPv6 address (`::1`) or one in
 * brackets (`[::1]`), an IPv4 address in any form, or a name. Undefined when it is none of them.
 */
export function canonicalBindHost(host: string): CanonicalHost | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return canonicalHost(bare.includes(':') ? `[${bare}]` : bare);
}

/** The address to pass to `listen()`: IPv6 without brackets. */
export function listenAddress(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** An IPv4 address in canonical (dotted decimal) form: WHATWG turns every IPv4 spelling into it. */
function ipv4Octets(hostname: string): number[] | undefined {
  const parts = hostname.split('.');
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  return parts.map(Number);
}

/** The eight 16-bit pieces of a canonical bracketed IPv6 address (`[::ffff:7f00:1]`). */
function ipv6Pieces(hostname: string): number[] | undefined {
  if (!hostname.startsWith('[') || !hostname.endsWith(']')) return undefined;
  const address = hostname.slice(1, -1);
  const [head = '', tail] = address.split('::');
  const parse = (text: string) =>
    text === '' ? [] : text.split(':').map((hex) => parseInt(hex, 16));
  const front = parse(head);
  const back = tail === undefined ? [] : parse(tail);
  const pieces = [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return pieces.length === 8 && pieces.every((piece) => piece >= 0 && piece <= 0xffff)
    ? pieces
    : undefined;
}

/** An IP address (v4 or v6), as opposed to a DNS name. A DNS-rebinding page needs a name. */
export function isIpAddress(hostname: string): boolean {
  return ipv4Octets(hostname) !== undefined || ipv6Pieces(hostname) !== undefined;
}

/**
 * The canonical hostname names this machine's loopback: `localhost` and `*.localhost`, IPv4
 * 127.0.0.0/8, IPv6 `::1`, and 127.0.0.0/8 mapped into IPv6 (`::ffff:127.0.0.1`).
 */
export function isLoopbackHostname(hostname: string): boolean {
  if (hostname === 'localhost' || hostname.endsWith('.localhost')) return true;
  const octets = ipv4Octets(hostname);
  if (octets) return octets[0] === 127;
  const pieces = ipv6Pieces(hostname);
  if (!pieces) return false;
  const zeros = (count: number) => pieces.slice(0, count).every((piece) => piece === 0);
  const isOne = zeros(7) && pieces[7] === 1;
  const isMappedLoopback = zeros(5) && pieces[5] === 0xffff && pieces[6]! >> 8 === 127;
  return isOne || isMappedLoopback;
}
