/**
 * A harmony-style header mode, as data: the output is a run of messages, each opened by a header
 * that names its role, its channel and its recipient (gpt-oss's
 * `<|start|>assistant<|channel|>commentary to=functions.NAME <|constrain|>json<|message|>{…}<|call|>`,
 * Muse Glimmer's `<|start|>assistant to=RECIPIENT<|message|>…<|eom|>`). What a message is follows
 * from its header: reasoning, the answer, or a call of the recipient.
 */
/** What a message that is not a call is: reasoning, or the answer's text. */
export type MessageMeaning = 'reasoning' | 'text';

export interface HeaderModeSpec {
  /** The literal that opens a header (`<|start|>`). */
  readonly open: string;
  /** The roles a header of the output names after `open` (`assistant`). */
  readonly roles: readonly string[];
  /** What comes before the recipient (`to=`), after white space. */
  readonly recipient: string;
  /** Dropped from the front of a recipient to give the tool's name (`functions.`). */
  readonly namePrefixes?: readonly string[];
  /**
   * Harmony's channels: the marker before the channel's name (`<|channel|>`), which may also open
   * a header whose role the prompt wrote, and what a message on each channel is when it names no
   * recipient (`analysis`: reasoning, `final`: text). A channel not listed is no header.
   */
  readonly channel?: {
    readonly marker: string;
    readonly names: Readonly<Record<string, MessageMeaning>>;
  };
  /**
   * The marker of the message's content type (`<|constrain|>`), a word after it (`json`); a bare
   * word after the channel's name is read as one too (`commentary json`, the marker stripped).
   */
  readonly constrain?: string;
  /** The literal that ends the header (`<|message|>`). */
  readonly message: string;
  /** Literals that end a message that is not a call (`<|end|>`, `<|return|>`); the next `open` ends one too. */
  readonly ends: readonly string[];
  /** What a message to one of these recipients is (`self`: reasoning, `user`: text). */
  readonly recipients?: Readonly<Record<string, MessageMeaning>>;
  /** What a message that names no recipient nor channel is. Default `text`. */
  readonly noRecipient?: MessageMeaning;
  /** A message to any other recipient is a call, read as this says. */
  readonly toolMessage: ToolMessageSpec;
  /**
   * The chat template's generation prompt wrote `open` and the role, so the output may begin
   * inside its first header, at the recipient (` to=…`, ` to` being one token): a line that
   * begins with a space and the recipient prefix is such a header.
   */
  readonly startInHeader?: boolean;
}

/** How a message to a tool is read. */
export type ToolMessageSpec =
  /** The recipient names the tool, the message is its JSON arguments, up to `close` (`<|call|>`). */
  | { readonly arguments: 'json'; readonly close: string }
  /**
   * The message holds calls in the spec's tagged call form number `form` (its own opener and
   * closer dropped between them), up to `close` (`<|eom|>`): the calls name their tools. A
   * message that holds none is text.
   */
  | { readonly form: number; readonly close: string };

/** Longest literal, role, channel or recipient name. */
const MAX_LITERAL = 256;

/** What is wrong with a header mode, and where (`header.channel.marker`). */
export interface HeaderModeProblem {
  readonly path: string;
  readonly problem: string;
}

type Fields = Readonly<Record<string, unknown>>;
type Found = HeaderModeProblem | undefined;

const KEYS = [
  'open',
  'roles',
  'recipient',
  'namePrefixes',
  'channel',
  'constrain',
  'message',
  'ends',
  'recipients',
  'noRecipient',
  'toolMessage',
  'startInHeader',
];

/**
 * The first thing wrong with the header mode at `path` of a spec, or undefined when it is one.
 * `forms` are the spec's call forms, which `toolMessage.form` refers to. (The spec's validation
 * turns a problem into its FormatSpecError.)
 */
export function headerModeProblem(
  value: unknown,
  forms: readonly { readonly codec: string }[],
  path = 'header',
): HeaderModeProblem | undefined {
  if (!isFields(value)) return { path, problem: 'must be an object' };
  const unknown = Object.keys(value).find((key) => !KEYS.includes(key));
  if (unknown !== undefined)
    return {
      path: `${path}.${unknown}`,
      problem: `unknown field (expected one of ${KEYS.join(', ')})`,
    };
  return (
    literal(value, 'open', path) ??
    literal(value, 'recipient', path) ??
    literal(value, 'message', path) ??
    literals(value, 'roles', path, true) ??
    literals(value, 'ends', path, true) ??
    literals(value, 'namePrefixes', path, false) ??
    (value.constrain === undefined ? undefined : literal(value, 'constrain', path)) ??
    channelProblem(value.channel, `${path}.channel`) ??
    (value.recipients === undefined
      ? undefined
      : meanings(value.recipients, `${path}.recipients`, false)) ??
    (value.noRecipient === undefined
      ? undefined
      : meaning(value.noRecipient, `${path}.noRecipient`)) ??
    (value.startInHeader === undefined || typeof value.startInHeader === 'boolean'
      ? undefined
      : { path: `${path}.startInHeader`, problem: 'must be true or false' }) ??
    toolMessageProblem(value.toolMessage, forms, `${path}.toolMessage`)
  );
}

function channelProblem(value: unknown, path: string): Found {
  if (value === undefined) return undefined;
  if (!isFields(value)) return { path, problem: 'must be an object' };
  return literal(value, 'marker', path) ?? meanings(value.names, `${path}.names`, true);
}

function toolMessageProblem(
  value: unknown,
  forms: readonly { readonly codec: string }[],
  path: string,
): Found {
  if (!isFields(value)) return { path, problem: 'must be an object' };
  const close = literal(value, 'close', path);
  if (close) return close;
  if (value.arguments !== undefined) {
    return value.arguments === 'json' && value.form === undefined
      ? undefined
      : { path, problem: 'takes `arguments: "json"` or a `form`, not both' };
  }
  const form = value.form;
  return typeof form === 'number' && Number.isInteger(form) && forms[form]?.codec === 'tagged'
    ? undefined
    : {
        path: `${path}.form`,
        problem: 'must be the index of a tagged call form (or give `arguments: "json"`)',
      };
}

function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isLiteral(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_LITERAL;
}

function literal(fields: Fields, key: string, path: string): Found {
  return isLiteral(fields[key])
    ? undefined
    : {
        path: `${path}.${key}`,
        problem: `must be a non-empty string of at most ${MAX_LITERAL} characters`,
      };
}

function literals(fields: Fields, key: string, path: string, required: boolean): Found {
  const value = fields[key];
  if (value === undefined && !required) return undefined;
  return Array.isArray(value) && value.length > 0 && value.every(isLiteral)
    ? undefined
    : { path: `${path}.${key}`, problem: 'must be a list of non-empty strings' };
}

function meanings(value: unknown, path: string, required: boolean): Found {
  if (!isFields(value)) return { path, problem: 'must be an object' };
  const entries = Object.entries(value);
  if (required && entries.length === 0) return { path, problem: 'must name at least one' };
  for (const [name, item] of entries) {
    if (!isLiteral(name)) return { path, problem: 'names must be non-empty strings' };
    const found = meaning(item, `${path}.${name}`);
    if (found) return found;
  }
  return undefined;
}

function meaning(value: unknown, path: string): Found {
  return value === 'reasoning' || value === 'text'
    ? undefined
    : { path, problem: 'must be "reasoning" or "text"' };
}
