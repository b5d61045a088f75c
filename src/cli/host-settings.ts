// The HTTP layer's face, which serve and proxy share: importing either app's face here would
// load the other app with it (the server's brings the agent and the code tools).
import {
  canonicalBindHost,
  canonicalHost,
  isIpAddress,
  isLoopbackHostname,
  LOOPBACK_HOSTNAMES,
} from '../http/index.ts';
import { UsageError } from './usage-error.ts';

/** Who may address the server (the Host check), for `--host` and the `--allow-host` names. */
export interface HostSettings {
  /** `--host` is a loopback address, in whatever spelling. */
  readonly loopback: boolean;
  readonly allowedHostnames: readonly string[];
  readonly allowIpAddressHosts: boolean;
}

/**
 * The Host check is on for every `--host`: on loopback only loopback names (any spelling) and
 * the `--allow-host` names are admitted; elsewhere also IP addresses and `--host`'s own name.
 * Throws a UsageError for a host or name that is not one.
 */
export function hostSettings(host: string, allowHosts: readonly string[]): HostSettings {
  const bind = canonicalBindHost(host);
  if (!bind) throw new UsageError(`--host "${host}" is not a host name or an IP address`);
  for (const name of allowHosts)
    if (!canonicalHost(name))
      throw new UsageError(`--allow-host "${name}" is not a host name (e.g. devbox.lan)`);
  const loopback = isLoopbackHostname(bind.hostname);
  // A name to listen on is a name clients use; an address is admitted as one anyway.
  const ownName = loopback || isIpAddress(bind.hostname) ? [] : [bind.hostname];
  return {
    loopback,
    allowedHostnames: [...LOOPBACK_HOSTNAMES, ...ownName, ...allowHosts],
    allowIpAddressHosts: !loopback,
  };
}
