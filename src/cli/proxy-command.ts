import type { ToolCallProtocol } from '../core/index.ts';
import { protocolFromChatTemplate } from '../protocols/derive/chat-template.ts';
import type { ProtocolChoice } from '../protocols/index.ts';
import {
  CONSTRAIN_MODES,
  type ConstrainMode,
  createProxyApp,
  DEFAULT_PROXY_LIMITS,
  type ProxyLimits,
  UPSTREAM_KINDS,
  type UpstreamKind,
  type UpstreamTarget,
  upstreamTarget,
} from '../proxy/index.ts';
import { parseCommandLine } from './command-line.ts';
import { FORMAT_FILE_FLAGS, formatFileChoice } from './format-flags.ts';
import { oneLine, readFormatFile } from './format-source.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { hostSettings } from './host-settings.ts';
import { protocolSetting, wholeNumber } from './model-settings.ts';
import { serverChatTemplate } from './server-chat-template.ts';
import { listenOrSay, untilStopped } from './server-lifetime.ts';
import { STORE_FLAGS, sharedStoreOrSay, storeSetting } from './store-flag.ts';
import { neutraliseControls } from './terminal-text.ts';
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

/** The upstream URL; its credentials, if any, are kept out of everything printed. */
function upstreamSetting(value: string | undefined): UpstreamTarget {
  if (value === undefined)
    throw new UsageError(
      'proxy needs --upstream <URL>, the base URL of an OpenAI-compatible server (e.g. http://127.0.0.1:11434/v1)',
    );
  try {
    return upstreamTarget(value);
  } catch (error) {
    throw new UsageError(`--${(error as Error).message}`, { cause: error });
  }
}

const MiB = 1024 * 1024;

/** `--chat-template auto`: ask the model server for its template. */
export const FROM_MODEL_SERVER = 'auto';

/** The proxy's format, and how its startup line names it. */
interface ProxyProtocol {
  readonly protocol: ProtocolChoice | ToolCallProtocol;
  readonly described: string;
}

function choiceDescribed(choice: ProtocolChoice): ProxyProtocol {
  return {
    protocol: choice,
    described: choice.toLowerCase() === 'model' ? "model (each request's model's format)" : choice,
  };
}

/**
 * `--chat-template auto`: the format of the model server's own chat template, or, when it has
 * none, the request fails, or the template cannot be analysed, each request's model's format.
 * Asked once, at start, before the proxy listens: the proxy then reads one format for its whole
 * life and says which in its startup lines, no request waits on (or races) the question, and a
 * template that cannot be analysed is reported before a client arrives. A model server started
 * after the proxy is not asked again: restart the proxy.
 */
async function formatOfModelServer(
  baseURL: string,
  authorization: string | undefined,
  err: Output,
): Promise<ProxyProtocol> {
  const answer = await serverChatTemplate(baseURL, {
    ...(authorization === undefined ? {} : { authorization }),
  });
  let fallback: string;
  if (answer.found) {
    try {
      const protocol = protocolFromChatTemplate(answer.template);
      err.write(
        `toolwire proxy: --chat-template auto: read the model server's chat template (${answer.url}): format ${protocol.name}\n`,
      );
      return { protocol, described: `${protocol.name} (the model server's chat template)` };
    } catch (error) {
      fallback = `a chat template that cannot be analysed: ${(error as Error).message}`;
    }
  } else {
    fallback = `no chat template: ${answer.reason}`;
  }
  // What the server or its template says is shown, not acted on, by the terminal; on one line.
  const why = neutraliseControls(oneLine(fallback));
  err.write(
    `toolwire proxy: --chat-template auto: ${answer.url} gave ${why}; reading each request's model's format instead (--protocol model)\n`,
  );
  return choiceDescribed('model');
}

/** The format `--chat-template`, `--format-file`, `--response-template` or `--protocol` gives. */
async function proxyProtocol(
  values: Parameters<typeof formatFileChoice>[0],
  upstream: { readonly baseURL: string; readonly authorization: string | undefined },
  err: Output,
): Promise<ProxyProtocol> {
  const fromFile = formatFileChoice(values);
  if (fromFile?.flag === 'chat-template' && fromFile.file === FROM_MODEL_SERVER)
    return formatOfModelServer(upstream.baseURL, upstream.authorization, err);
  if (fromFile) {
    const { protocol, source } = await readFormatFile(fromFile);
    return { protocol, described: `${protocol.name} (${source})` };
  }
  const flag = values.protocol as string | undefined;
  return choiceDescribed(protocolSetting(flag ?? process.env.TOOLWIRE_PROTOCOL ?? 'model'));
}

/** `value` if it is one of `choices`, else a usage error naming `flag` and what it takes. */
function oneOf<T extends string>(value: string, flag: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} takes ${choices.join(', ')}, not "${neutraliseControls(value)}"`);
}

/** `--constrain` and `--upstream-kind`, checked (their defaults: demanded, auto). */
function constraintSettings(
  constrainFlag: string | undefined,
  kindFlag: string | undefined,
): { constrain: ConstrainMode; upstreamKind: UpstreamKind | 'auto' } {
  const constrain = oneOf(constrainFlag ?? 'demanded', '--constrain', CONSTRAIN_MODES);
  const upstreamKind = oneOf<UpstreamKind | 'auto'>(kindFlag ?? 'auto', '--upstream-kind', [
    'auto',
    ...UPSTREAM_KINDS,
  ]);
  return { constrain, upstreamKind };
}

/** How the startup line names constrained decoding. */
function constraintDescribed(
  constrain: ConstrainMode,
  upstreamKind: UpstreamKind | 'auto',
): string {
  if (constrain === 'off') return 'constrain off';
  const kind =
    upstreamKind === 'auto'
      ? 'upstream kind auto (asked at the first request that needs it)'
      : `upstream kind ${upstreamKind}`;
  return `constrain ${constrain}, ${kind}`;
}

/** A size flag in `unit` bytes, as a limit in bytes (undefined: the default). */
function bytesSetting(value: string | undefined, flag: string, unit: number): number | undefined {
  const number = wholeNumber(value, flag, 1);
  if (number === undefined) return undefined;
  if (!Number.isSafeInteger(number * unit)) throw new UsageError(`${flag} is too large: ${value}`);
  return number * unit;
}

/** A time flag in seconds, as milliseconds a timer can take (undefined: the default). */
function secondsSetting(value: string | undefined, flag: string): number | undefined {
  const seconds = wholeNumber(value, flag, 1);
  return seconds === undefined ? undefined : Math.min(seconds * 1000, 2 ** 31 - 1);
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
  const { values } = parseCommandLine('proxy', args, {
    ...HELP_OPTION,
    upstream: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-host': { type: 'string', multiple: true },
    protocol: { type: 'string' },
    ...FORMAT_FILE_FLAGS,
    'api-key-env': { type: 'string' },
    'upstream-api-key-env': { type: 'string' },
    'max-requests': { type: 'string' },
    'max-body-mb': { type: 'string' },
    'body-timeout': { type: 'string' },
    'memory-budget-mb': { type: 'string' },
    'upstream-timeout': { type: 'string' },
    'max-upstream-reply-mb': { type: 'string' },
    'max-upstream-event-kb': { type: 'string' },
    'tool-choice-retries': { type: 'string' },
    constrain: { type: 'string' },
    'upstream-kind': { type: 'string' },
    'max-stored-responses': { type: 'string' },
    'max-stored-response-mb': { type: 'string' },
    ...STORE_FLAGS,
  });
  if (values.help) {
    out.write(helpOf(PROXY_USAGE));
    return 0;
  }
  const upstream = upstreamSetting(values.upstream);
  const port = wholeNumber(values.port, '--port', 0) ?? DEFAULT_PROXY_PORT;
  if (port > 65_535) throw new UsageError(`--port must be at most 65535, not ${port}`);
  const host = values.host ?? '127.0.0.1';
  const hosts = hostSettings(host, values['allow-host'] ?? []);
  const apiKey = secretFrom(values['api-key-env'], '--api-key-env');
  const upstreamApiKey = secretFrom(values['upstream-api-key-env'], '--upstream-api-key-env');
  if (upstream.authorization !== undefined && upstreamApiKey !== undefined)
    throw new UsageError(
      '--upstream carries credentials (user:password@) and --upstream-api-key-env is set: the model server takes one Authorization, give one of them',
    );
  const given: Partial<Record<keyof ProxyLimits, number | undefined>> = {
    maxConcurrentRequests: wholeNumber(values['max-requests'], '--max-requests', 1),
    maxBodyBytes: bytesSetting(values['max-body-mb'], '--max-body-mb', MiB),
    bodyTimeoutMs: secondsSetting(values['body-timeout'], '--body-timeout'),
    memoryBudgetBytes: bytesSetting(values['memory-budget-mb'], '--memory-budget-mb', MiB),
    upstreamTimeoutMs: secondsSetting(values['upstream-timeout'], '--upstream-timeout'),
    maxUpstreamReplyBytes: bytesSetting(
      values['max-upstream-reply-mb'],
      '--max-upstream-reply-mb',
      MiB,
    ),
    maxUpstreamEventBytes: bytesSetting(
      values['max-upstream-event-kb'],
      '--max-upstream-event-kb',
      1024,
    ),
  };
  const limits: Partial<ProxyLimits> = Object.fromEntries(
    Object.entries(given).filter(([, value]) => value !== undefined),
  );
  const maxStoredResponses = wholeNumber(
    values['max-stored-responses'],
    '--max-stored-responses',
    0,
  );
  const maxStoredResponseBytes = bytesSetting(
    values['max-stored-response-mb'],
    '--max-stored-response-mb',
    MiB,
  );
  const storeSettings = storeSetting(values);
  const retries = wholeNumber(values['tool-choice-retries'], '--tool-choice-retries', 0);
  if (retries !== undefined && retries > 5)
    throw new UsageError(`--tool-choice-retries must be at most 5, not ${retries}`);
  const { constrain, upstreamKind } = constraintSettings(
    values.constrain as string | undefined,
    values['upstream-kind'] as string | undefined,
  );
  // Last: every other setting is checked before the model server is asked for its template.
  const { protocol, described } = await proxyProtocol(
    values,
    {
      baseURL: upstream.baseURL,
      authorization:
        upstreamApiKey === undefined ? upstream.authorization : `Bearer ${upstreamApiKey}`,
    },
    err,
  );

  // The stored-response limits: of a shared store, or of the proxy's own memory.
  const stored = definedOnly({ maxStoredResponses, maxStoredResponseBytes });
  const shared = await sharedStoreOrSay(storeSettings, { limits: stored }, err);
  if (shared === undefined) return 1;
  try {
    const proxy = createProxyApp({
      // The URL as given: createProxyApp takes its credentials out for the Authorization header.
      upstream: values.upstream as string,
      protocol,
      ...(apiKey === undefined ? {} : { apiKey }),
      ...(upstreamApiKey === undefined ? {} : { upstreamApiKey }),
      ...(retries === undefined ? {} : { toolChoiceRetries: retries }),
      constrain,
      upstreamKind,
      // What the proxy learns (the server's kind, a refused constraint), shown, not acted on, by
      // the terminal.
      log: (line) => err.write(`toolwire proxy: ${neutraliseControls(oneLine(line))}\n`),
      ...(shared.store === undefined ? stored : shared),
      allowedHostnames: hosts.allowedHostnames,
      allowIpAddressHosts: hosts.allowIpAddressHosts,
      limits: { ...DEFAULT_PROXY_LIMITS, ...limits },
    });
    const running = await listenOrSay(proxy, { port, host }, err);
    if (!running) return 1;
    // The first line ends with the base URL: scripts read it from there.
    out.write(
      `toolwire proxy: listening on ${running.url}/v1\n  upstream ${upstream.baseURL}${upstream.authorization === undefined ? '' : ' (with the credentials of its URL)'}, protocol ${described}${apiKey === undefined ? '' : ', API key required'}\n  ${constraintDescribed(constrain, upstreamKind)}\n  store ${storeSettings.shown} (stored responses for previous_response_id)\n`,
    );
    if (!hosts.loopback && apiKey === undefined)
      err.write(
        `toolwire proxy: warning: ${host} is not a loopback address and no --api-key-env is set: anyone who can reach ${running.url} can use the model server through it.\n`,
      );
    await untilStopped();
    await running.close();
    return 0;
  } finally {
    // The proxy leaves a given store open: it is closed here, on every way out.
    await shared.store?.close();
  }
}

/** The options among `options` that were given. */
function definedOnly<T extends object>(options: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}
