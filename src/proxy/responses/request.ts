import type { ToolCallToFormat, ToolDefinition } from '../../core/index.ts';
import { HttpError } from '../../http/http-error.ts';
import { DEFAULT_JSON_SHAPE_LIMITS, JsonTextReader } from '../../http/json-shape.ts';
import type { ChatRequest, ToolChoiceSetting, Turn, UserContent } from '../conversation.ts';
import {
  arrayAt,
  booleanAt,
  checkToolChoiceFits,
  checkUniqueNames,
  describeValue,
  type FieldRule,
  type Fields,
  fieldsAt,
  invalid,
  isFields,
  jsonTextAt,
  mustBe,
  nameAt,
  optionalStringAt,
  passedFields,
  schemaAt,
  stringAt,
} from '../request-fields.ts';

/**
 * What came before a `previous_response_id`: the conversation the stored response continued,
 * with its own reply as the last assistant turn.
 */
export interface EarlierConversation {
  readonly system: string;
  readonly turns: readonly Turn[];
}

/** A function tool declared inside a `namespace` entry: the model sees one joined name. */
export interface NamespacedTool {
  readonly namespace: string;
  readonly name: string;
}

/** A Responses request, read into the proxy's neutral request and what only this API needs. */
export interface ResponsesRequest {
  readonly chat: ChatRequest;
  /**
   * The system text from the input's (and the earlier conversation's) system and developer
   * messages, without `instructions`: what a stored response carries over.
   */
  readonly inputSystem: string;
  /** Tool types the proxy cannot serve, left out of the prompt (`web_search`, `mcp`, …), in order. */
  readonly leftOutTools: readonly string[];
  /** The model's name of each namespaced tool, to give a call its namespace and name back. */
  readonly namespacedTools: ReadonlyMap<string, NamespacedTool>;
  /** Whether the response may be kept for a later `previous_response_id` (default true). */
  readonly store: boolean;
  readonly previousResponseId: string | undefined;
  /** `max_output_tokens`, when given. */
  readonly maxOutputTokens: number | undefined;
  /** The request fields OpenAI echoes in its response, as the client sent them. */
  readonly echo: Readonly<Record<string, unknown>>;
}

export interface ResponsesReading {
  /** Reads the JSON texts inside the request (calls' arguments) within the request's limits. */
  readonly texts?: JsonTextReader;
  /** The conversation a stored response holds, or undefined for an unknown or forgotten id. */
  readonly earlier?: (responseId: string) => EarlierConversation | undefined;
}

/** What the proxy does with each Responses field: the rest goes upstream as sent (`temperature`, `top_p`). */
const RESPONSES_FIELDS: ReadonlyMap<string, FieldRule> = new Map<string, FieldRule>([
  ...(
    [
      'model',
      'input',
      'instructions',
      'tools',
      'tool_choice',
      'parallel_tool_calls',
      'stream',
      'store',
      'previous_response_id',
      'max_output_tokens',
    ] as const
  ).map((key): [string, FieldRule] => [key, 'read']),
  // OpenAI's own services and output options: nothing a chat completions server reads.
  ...(
    [
      'include',
      'reasoning',
      'text',
      'metadata',
      'prompt_cache_key',
      'prompt_cache_retention',
      'client_metadata',
      'user',
      'safety_identifier',
      'truncation',
      'service_tier',
      'stream_options',
      'background',
      'max_tool_calls',
      'top_logprobs',
    ] as const
  ).map((key): [string, FieldRule] => [key, 'dropped']),
  [
    'prompt',
    {
      refuse: (value) =>
        value === undefined || value === null
          ? undefined
          : "names a prompt template stored at OpenAI, which the proxy cannot read: send the prompt's text as input",
    },
  ],
  [
    'conversation',
    {
      refuse: (value) =>
        value === undefined || value === null
          ? undefined
          : 'names a stored conversation, which the proxy does not keep: send previous_response_id or the whole input',
    },
  ],
]);

/** The fields OpenAI's response object repeats from its request. */
const ECHOED_FIELDS = [
  'instructions',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'max_output_tokens',
  'temperature',
  'top_p',
  'metadata',
  'previous_response_id',
  'reasoning',
  'text',
  'truncation',
  'user',
  'store',
  'prompt_cache_key',
] as const;

/** History items of tools the proxy cannot serve: the model never saw those tools, so they stay out. */
const LEFT_OUT_ITEMS = new Set([
  'web_search_call',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'code_interpreter_call',
  'image_generation_call',
  'local_shell_call',
  'local_shell_call_output',
  'shell_call',
  'shell_call_output',
  'apply_patch_call',
  'apply_patch_call_output',
  'mcp_call',
  'mcp_list_tools',
  'mcp_approval_request',
  'mcp_approval_response',
  'custom_tool_call',
  'custom_tool_call_output',
  'tool_search_call',
  'tool_search_output',
  'compaction',
  'item_reference',
]);

/**
 * The name the model sees for a namespaced tool. Codex's namespaces end in `__`
 * (`mcp__docs__`), and its chat wire joined them as `mcp__docs__search`: kept so.
 */
export function namespacedName(namespace: string, name: string): string {
  return namespace.endsWith('_') || namespace.endsWith('.')
    ? `${namespace}${name}`
    : `${namespace}__${name}`;
}

function functionTool(tool: Fields, path: string, name: string): ToolDefinition {
  const description = optionalStringAt(tool.description, `${path}.description`);
  // Only an explicit true is kept for the proxy's constrained decoding: OpenAI takes a tool
  // without `strict` as strict, and a client that never asked for a grammar gets none.
  const strict = booleanAt(tool.strict, `${path}.strict`, false);
  return {
    name,
    ...(description === undefined ? {} : { description }),
    inputSchema: schemaAt(tool.parameters, `${path}.parameters`),
    ...(strict ? { strict } : {}),
  };
}

function toolsOf(value: unknown): {
  tools: ToolDefinition[];
  leftOut: string[];
  namespaced: Map<string, NamespacedTool>;
} {
  const tools: ToolDefinition[] = [];
  const leftOut: string[] = [];
  const namespaced = new Map<string, NamespacedTool>();
  if (value === undefined || value === null) return { tools, leftOut, namespaced };
  for (const [index, entry] of arrayAt(value, 'tools', 'an array of tools').entries()) {
    const path = `tools[${index}]`;
    const tool = fieldsAt(entry, path, 'a tool object ({type, name, parameters})');
    const type = stringAt(tool.type, `${path}.type`, 'a tool type (a string)');
    if (type === 'function') {
      tools.push(functionTool(tool, path, nameAt(tool.name, `${path}.name`)));
    } else if (type === 'namespace') {
      const namespace = nameAt(tool.name, `${path}.name`, 'a namespace name (a string)');
      const members = arrayAt(tool.tools, `${path}.tools`, 'an array of function tools');
      for (const [memberIndex, memberEntry] of members.entries()) {
        const memberPath = `${path}.tools[${memberIndex}]`;
        const member = fieldsAt(memberEntry, memberPath, 'a tool object ({type, name})');
        if (member.type !== 'function') {
          // A custom (grammar) tool inside a namespace: no more servable than one outside.
          leftOut.push(stringAt(member.type, `${memberPath}.type`, 'a tool type (a string)'));
          continue;
        }
        const name = nameAt(member.name, `${memberPath}.name`);
        const joined = namespacedName(namespace, name);
        namespaced.set(joined, { namespace, name });
        tools.push(functionTool(member, memberPath, joined));
      }
    } else {
      leftOut.push(type);
    }
  }
  checkUniqueNames(
    tools.map((tool) => tool.name),
    'tools',
  );
  return { tools, leftOut, namespaced };
}

function choiceOf(value: unknown): ToolChoiceSetting {
  if (value === undefined || value === null || value === 'auto') return { type: 'auto' };
  if (value === 'none') return { type: 'none' };
  if (value === 'required') return { type: 'required' };
  if (!isFields(value) || value.type !== 'function')
    throw invalid(
      'tool_choice',
      `must be "auto", "none", "required" or {"type": "function", "name": …}, not ${describeValue(value)}`,
    );
  return { type: 'tool', toolName: nameAt(value.name, 'tool_choice.name') };
}

/** Reads `tool_choice`; a choice the policy cannot follow with the declared tools is a 400. */
function toolChoiceOf(value: unknown, tools: readonly ToolDefinition[]): ToolChoiceSetting {
  const choice = choiceOf(value);
  checkToolChoiceFits(choice, tools, {
    requiredAt: 'tool_choice',
    required: '"required"',
    nameAt: 'tool_choice.name',
  });
  return choice;
}

/** A call's arguments: JSON text (as the API sends them), read within the request's limits. */
function argumentsOf(value: unknown, path: string, texts: JsonTextReader): unknown {
  if (value === undefined || value === null || value === '') return {};
  return jsonTextAt(stringAt(value, path, 'the arguments as JSON text (a string)'), path, texts);
}

const FILE_PLACEHOLDER = '[file — not shown, this model reads text only]';

/** An `input_image` part as a chat completions image part (servers of vision models read these). */
function imagePart(part: Fields, path: string): Readonly<Record<string, unknown>> {
  if (part.image_url === undefined || part.image_url === null) {
    if (part.file_id !== undefined && part.file_id !== null)
      throw invalid(
        `${path}.file_id`,
        'names an uploaded file, which the proxy cannot fetch: send the image as image_url',
      );
    throw mustBe(part.image_url, `${path}.image_url`, 'the image URL or data URL (a string)');
  }
  const url = stringAt(part.image_url, `${path}.image_url`);
  const detail = optionalStringAt(part.detail, `${path}.detail`);
  return { type: 'image_url', image_url: detail === undefined ? { url } : { url, detail } };
}

/** A message's content parts: texts and images, in order. */
function partsOf(value: unknown, path: string): Readonly<Record<string, unknown>>[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  const parts: Readonly<Record<string, unknown>>[] = [];
  for (const [index, entry] of arrayAt(
    value,
    path,
    'a string or an array of content parts',
  ).entries()) {
    const partPath = `${path}[${index}]`;
    const part = fieldsAt(entry, partPath, 'a content part object ({type, …})');
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        parts.push({ type: 'text', text: stringAt(part.text, `${partPath}.text`) });
        break;
      case 'refusal':
        // A refusal is what the assistant said, as far as the next turn is concerned.
        parts.push({ type: 'text', text: stringAt(part.refusal, `${partPath}.refusal`) });
        break;
      case 'input_image':
        parts.push(imagePart(part, partPath));
        break;
      case 'input_file':
        parts.push({ type: 'text', text: FILE_PLACEHOLDER });
        break;
      default:
        throw mustBe(
          part.type,
          `${partPath}.type`,
          '"input_text", "output_text", "refusal", "input_image" or "input_file"',
        );
    }
  }
  return parts;
}

function textOfParts(parts: readonly Readonly<Record<string, unknown>>[], path: string): string {
  return parts
    .map((part, index) => {
      if (part.type !== 'text')
        throw invalid(`${path}[${index}]`, 'is an image, and only text is accepted in this place');
      return part.text as string;
    })
    .join('\n');
}

function userContentOf(parts: readonly Readonly<Record<string, unknown>>[]): UserContent {
  return parts.every((part) => part.type === 'text')
    ? parts.map((part) => part.text as string).join('\n')
    : parts;
}

/** A function call's output: a string, or parts of which only text can reach the model. */
function outputOf(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  return partsOf(value, path)
    .map((part) => (part.type === 'text' ? (part.text as string) : '[image — not shown]'))
    .join('\n');
}

/** The text of a reasoning item (its content, else its summary); encrypted content stays opaque. */
export function reasoningTextOf(item: Fields, path: string): string {
  const texts = (value: unknown, at: string): string[] =>
    value === undefined || value === null
      ? []
      : arrayAt(value, at).map((entry, index) =>
          stringAt(fieldsAt(entry, `${at}[${index}]`).text, `${at}[${index}].text`),
        );
  const content = texts(item.content, `${path}.content`);
  return (content.length > 0 ? content : texts(item.summary, `${path}.summary`)).join('\n');
}

/** Builds turns from input items: calls join the assistant turn before them, results their neighbours. */
class Conversation {
  readonly system: string[] = [];
  readonly turns: Turn[];
  /** Tool names by call id, so a `function_call_output` can name its tool. */
  private readonly calledTools = new Map<string, string>();

  constructor(earlier: EarlierConversation | undefined) {
    this.turns = [...(earlier?.turns ?? [])];
    if (earlier !== undefined && earlier.system.length > 0) this.system.push(earlier.system);
    for (const turn of this.turns)
      if (turn.role === 'assistant')
        for (const call of turn.calls)
          if (call.toolCallId !== undefined) this.calledTools.set(call.toolCallId, call.toolName);
  }

  private last(): Turn | undefined {
    return this.turns[this.turns.length - 1];
  }

  systemText(text: string): void {
    if (this.turns.length === 0) this.system.push(text);
    else this.turns.push({ role: 'system', content: text });
  }

  assistantText(text: string): void {
    const last = this.last();
    // A message after the same reply's calls starts a new turn; before them, it is the reply's text.
    if (last?.role === 'assistant' && last.calls.length === 0)
      this.turns[this.turns.length - 1] = {
        ...last,
        text: last.text.length > 0 ? `${last.text}\n${text}` : text,
      };
    else this.turns.push({ role: 'assistant', text, calls: [] });
  }

  /**
   * A reasoning item opens the reply it belongs to (OpenAI sends it before the reply's message
   * and calls): it starts an assistant turn, or joins one that holds only reasoning so far.
   */
  reasoning(text: string): void {
    if (text.length === 0) return;
    const last = this.last();
    if (last?.role === 'assistant' && last.text.length === 0 && last.calls.length === 0)
      this.turns[this.turns.length - 1] = {
        ...last,
        reasoning: last.reasoning === undefined ? text : `${last.reasoning}\n${text}`,
      };
    else this.turns.push({ role: 'assistant', text: '', calls: [], reasoning: text });
  }

  call(call: ToolCallToFormat & { readonly toolCallId: string }): void {
    this.calledTools.set(call.toolCallId, call.toolName);
    const last = this.last();
    if (last?.role === 'assistant')
      this.turns[this.turns.length - 1] = { ...last, calls: [...last.calls, call] };
    else this.turns.push({ role: 'assistant', text: '', calls: [call] });
  }

  result(callId: string, output: string, path: string): void {
    const toolName = this.calledTools.get(callId);
    if (toolName === undefined)
      throw invalid(
        `${path}.call_id`,
        `is "${callId}", which no earlier function_call has: an output answers a call made before it`,
      );
    const result = { toolName, toolCallId: callId, output };
    const last = this.last();
    if (last?.role === 'tool-results')
      this.turns[this.turns.length - 1] = {
        role: 'tool-results',
        results: [...last.results, result],
      };
    else this.turns.push({ role: 'tool-results', results: [result] });
  }
}

function readItem(
  entry: unknown,
  path: string,
  conversation: Conversation,
  texts: JsonTextReader,
): void {
  const item = fieldsAt(entry, path, 'an input item object ({type, …})');
  // A message may leave out its type (the easy input message form).
  const type = item.type ?? (item.role === undefined ? undefined : 'message');
  switch (type) {
    case 'message': {
      const parts = partsOf(item.content, `${path}.content`);
      switch (item.role) {
        case 'system':
        case 'developer':
          conversation.systemText(textOfParts(parts, `${path}.content`));
          return;
        case 'user':
          conversation.turns.push({ role: 'user', content: userContentOf(parts) });
          return;
        case 'assistant':
          conversation.assistantText(textOfParts(parts, `${path}.content`));
          return;
        default:
          throw mustBe(item.role, `${path}.role`, '"user", "system", "developer" or "assistant"');
      }
    }
    case 'function_call': {
      const name = nameAt(item.name, `${path}.name`);
      const namespace = optionalStringAt(item.namespace, `${path}.namespace`);
      conversation.call({
        toolName: namespace === undefined ? name : namespacedName(namespace, name),
        toolCallId: stringAt(item.call_id, `${path}.call_id`),
        input: argumentsOf(item.arguments, `${path}.arguments`, texts),
      });
      return;
    }
    case 'function_call_output':
      conversation.result(
        stringAt(item.call_id, `${path}.call_id`),
        outputOf(item.output, `${path}.output`),
        path,
      );
      return;
    case 'reasoning':
      // Its summary or text joins the reply it opens; `encrypted_content` is OpenAI's only.
      conversation.reasoning(reasoningTextOf(item, path));
      return;
    default:
      if (typeof type === 'string' && LEFT_OUT_ITEMS.has(type)) return;
      throw mustBe(
        type,
        `${path}.type`,
        '"message", "function_call", "function_call_output" or "reasoning"',
      );
  }
}

function wholeNumberAt(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || (value as number) < 1)
    throw mustBe(value, path, 'a whole number of at least 1');
  return value as number;
}

/**
 * Reads and checks a Responses request body into the proxy's neutral request; throws a 400
 * `HttpError` naming the field, or OpenAI's 404 for a `previous_response_id` not kept.
 */
export function readResponsesRequest(
  body: unknown,
  reading: ResponsesReading = {},
): ResponsesRequest {
  const texts = reading.texts ?? new JsonTextReader(DEFAULT_JSON_SHAPE_LIMITS);
  const fields = fieldsAt(body, 'the request body');
  const model = nameAt(fields.model, 'model', 'a model id (a string)');
  const settings = passedFields(fields, RESPONSES_FIELDS);
  const { tools, leftOut, namespaced } = toolsOf(fields.tools);
  const previousResponseId = optionalStringAt(fields.previous_response_id, 'previous_response_id');
  let earlier: EarlierConversation | undefined;
  if (previousResponseId !== undefined) {
    earlier = reading.earlier?.(previousResponseId);
    if (earlier === undefined)
      throw new HttpError(404, `Previous response with id '${previousResponseId}' not found.`, {
        param: 'previous_response_id',
        // OpenAI's error code for it, for the error body to carry.
        extra: { code: 'previous_response_not_found' },
      });
  }
  const conversation = new Conversation(earlier);
  const instructions = optionalStringAt(fields.instructions, 'instructions');
  const input = fields.input;
  if (typeof input === 'string') conversation.turns.push({ role: 'user', content: input });
  else {
    const items = arrayAt(input, 'input', 'a string or an array of input items');
    for (const [index, entry] of items.entries())
      readItem(entry, `input[${index}]`, conversation, texts);
  }
  if (conversation.turns.length === 0) throw invalid('input', 'must hold at least one item');
  const maxOutputTokens = wholeNumberAt(fields.max_output_tokens, 'max_output_tokens');
  if (maxOutputTokens !== undefined) settings.max_tokens = maxOutputTokens;
  const stream = booleanAt(fields.stream, 'stream', false);
  const echo: Record<string, unknown> = {};
  for (const key of ECHOED_FIELDS) if (fields[key] !== undefined) echo[key] = fields[key];
  return {
    chat: {
      model,
      // Instructions are this request's only: a later one continuing it does not inherit them.
      system: [
        ...(instructions === undefined || instructions.length === 0 ? [] : [instructions]),
        ...conversation.system,
      ].join('\n\n'),
      turns: conversation.turns,
      tools,
      toolChoice: toolChoiceOf(fields.tool_choice, tools),
      parallelToolCalls: booleanAt(fields.parallel_tool_calls, 'parallel_tool_calls', true),
      stream,
      // A Responses stream always ends with the usage: ask the model server for it.
      includeUsage: stream,
      settings,
    },
    inputSystem: conversation.system.join('\n\n'),
    leftOutTools: leftOut,
    namespacedTools: namespaced,
    store: booleanAt(fields.store, 'store', true),
    previousResponseId,
    maxOutputTokens,
    echo,
  };
}
