import { parseArgs } from 'node:util';
import { createProxyApp, DEFAULT_PROXY_LIMITS, upstreamBaseURL } from '../proxy/index.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { hostSettings } from './host-settings.ts';
import { protocolSetting, wholeNumber } from './model-settings.ts';
import { listenOrSay, untilStopped } from './server-lifetime.ts';
import { PROXY_USAGE } from './usage.ts';
import { UsageError } from './usage-error.ts';

export { PROXY_USAGE };

export const DEFAULT_PROXY_PORT = 8788;

interface Output {
  write(text: string): void;
}

/** The value of the environment variable a flag names; it must be set and not empty. */
function secretFrom(variable: string | undefined, flag: string): string | undefined {
  if (variable === undefined) return undefined;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable))
    throw new UsageError(`${flag} takes the name of an environment variable, not "${variable}"`);
  const value = process.env[variable];
  if (value === undefined || value === '')
    throw new UsageError(`${flag} ${variable}: the environment variable ${variable} is not set`);
  return value;
}

function upstreamSetting(value: string | undefined): string {
  if (value === undefined)
    throw new UsageError(
      'proxy needs --upstream <URL>, the base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:11434/v1)',
    );
  try {
    return upstreamBaseURL(value);
  } catch (error) {
    throw new UsageError(`--${(error as Error).message}`);
  }
}

/**
 * `toolwire proxy`: starts the proxy and keeps it up until SIGINT or SIGTERM. Resolves with the
 * exit status once it has closed.
 */
export async function proxyCommand(
  args: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...HELP_OPTION,
      upstream: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'allow-host': { type: 'string', multiple: true },
      protocol: { type: 'string' },
      'api-key-env': { type: 'string' },
      'upstream-api-key-env': { type: 'string' },
      'max-requests': { type: 'string' },
      'max-body-mb': { type: 'string' },
      'upstream-timeout': { type: 'string' },
      'tool-choice-retries': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    out.write(helpOf(PROXY_USAGE));
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`proxy takes no arguments besides options (got "${positionals[0]}")`);
  const upstream = upstreamSetting(values.upstream);
  const port = wholeNumber(values.port, '--port', 0) ?? DEFAULT_PROXY_PORT;
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  const host = values.host ?? '127.0.0.1';
  const hosts = hostSettings(host, values['allow-host'] ?? []);
  const choice = protocolSetting(values.protocol ?? process.env.TOOLWIRE_PROTOCOL ?? 'model');
  const apiKey = secretFrom(values['api-key-env'], '--api-key-env');
  const upstreamApiKey = secretFrom(values['upstream-api-key-env'], '--upstream-api-key-env');
  const maxRequests = wholeNumber(values['max-requests'], '--max-requests', 1);
  const maxBodyMb = wholeNumber(values['max-body-mb'], '--max-body-mb', 1);
  const timeoutSeconds = wholeNumber(values['upstream-timeout'], '--upstream-timeout', 1);
  const retries = wholeNumber(values['tool-choice-retries'], '--tool-choice-retries', 0);
  if (retries !== undefined && retries > 5)
    throw new UsageError(`--tool-choice-retries must be at most 5, not ${retries}`);

  const proxy = createProxyApp({
    upstream,
    protocol: choice,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(upstreamApiKey === undefined ? {} : { upstreamApiKey }),
    ...(retries === undefined ? {} : { toolChoiceRetries: retries }),
    allowedHostnames: hosts.allowedHostnames,
    allowIpAddressHosts: hosts.allowIpAddressHosts,
    limits: {
      maxConcurrentRequests: maxRequests ?? DEFAULT_PROXY_LIMITS.maxConcurrentRequests,
      maxBodyBytes:
        maxBodyMb === undefined ? DEFAULT_PROXY_LIMITS.maxBodyBytes : maxBodyMb * 1024 * 1024,
      upstreamTimeoutMs:
        timeoutSeconds === undefined
          ? DEFAULT_PROXY_LIMITS.upstreamTimeoutMs
          : Math.min(timeoutSeconds * 1000, 2 ** 31 - 1),
    },
  });
  const running = await listenOrSay(proxy, { port, host }, err);
  if (!running) return 1;
  // The first line ends with the base URL: scripts read it from there.
  out.write(
    `toolwire proxy: listening on ${running.url}/v1\n  upstream ${upstream}, protocol ${choice}${choice.toLowerCase() === 'model' ? " (each request's model's format)" : ''}${apiKey === undefined ? '' : ', API key required'}\n`,
  );
  if (!hosts.loopback && apiKey === undefined)
    err.write(
      `toolwire proxy: warning: ${host} is not a loopback address and no --api-key-env is set: anyone who can reach ${running.url} can use the model server through it.\n`,
    );
  await untilStopped();
  await running.close();
  return 0;
}
