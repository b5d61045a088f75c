import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../core/index.ts';
import type { ChatRequest, ToolChoiceSetting, Turn } from './conversation.ts';
import {
  arrayAt,
  booleanAt,
  checkToolChoiceFits,
  checkUniqueNames,
  type FieldRule,
  type Fields,
  fieldsAt,
  invalid,
  MESSAGES_FIELDS,
  mustBe,
  nameAt,
  optionalStringAt,
  passedFields,
  schemaAt,
  stringAt,
  textOf,
} from './request-fields.ts';

/**
 * The Messages fields the proxy reads, refuses or drops, and more of Anthropic's own that mean
 * nothing to a model server (Claude Code sends `output_config` with every request): they stay
 * behind instead of reaching the model server as unknown settings.
 */
const MESSAGES_REQUEST_FIELDS: ReadonlyMap<string, FieldRule> = new Map([
  ...MESSAGES_FIELDS,
  ...(
    [
      'output_config',
      'output_format',
      'context_management',
      'thinking',
      'metadata',
      'service_tier',
      'container',
      'mcp_servers',
      'betas',
      'inference_geo',
      'cache_control',
    ] as const
  ).map((name): [string, FieldRule] => [name, 'dropped']),
]);

/** Put before each system message found inside `messages`, whose text joins the system text. */
export const LATER_INSTRUCTION = 'Later instruction from the system:';

/** Anthropic's sampling settings and their chat completions names (`top_k` is a common extension). */
const SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['max_tokens', 'max_tokens'],
  ['temperature', 'temperature'],
  ['top_p', 'top_p'],
  ['top_k', 'top_k'],
  ['stop_sequences', 'stop'],
];

/**
 * The tools the model is shown: each one read, those marked `defer_loading` left out. Anthropic
 * shows a deferred tool only once a tool search finds it, which the proxy has none of; Claude
 * Code sends a placeholder so marked ("never call this tool").
 */
function toolsOf(value: unknown): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const deferred = new Set<string>();
  const tools = arrayAt(value, 'tools', 'an array of tools').map((entry, index): ToolDefinition => {
    const path = `tools[${index}]`;
    const tool = fieldsAt(entry, path, 'a tool object ({name, description, input_schema})');
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom')
      throw invalid(
        `${path}.type`,
        `is ${JSON.stringify(tool.type)}, a server tool the model server cannot run: the proxy describes client tools ({name, description, input_schema}) only`,
      );
    const description = optionalStringAt(tool.description, `${path}.description`);
    const name = nameAt(tool.name, `${path}.name`);
    if (tool.defer_loading === true) deferred.add(name);
    // Kept for the proxy's constrained decoding (a strict tool is enforced by the server's grammar).
    const strict = booleanAt(tool.strict, `${path}.strict`, false);
    return {
      name,
      ...(description === undefined ? {} : { description }),
      ...(strict ? { strict } : {}),
      inputSchema: schemaAt(
        fieldsAt(tool.input_schema, `${path}.input_schema`, 'a JSON Schema object'),
        `${path}.input_schema`,
      ),
    };
  });
  checkUniqueNames(
    tools.map((tool) => tool.name),
    'tools',
  );
  return tools.filter((tool) => !deferred.has(tool.name));
}

/** Claude Code's billing line, sent as the first system block: metadata, not an instruction. */
const BILLING_HEADER = 'x-anthropic-billing-header:';

/**
 * The system text: its blocks' text, without a billing line (it changes with the client's
 * version, and a model server's prompt cache starts at the first character that differs).
 */
function systemTextOf(value: unknown): string {
  // Read as it came first, so a refusal names the block where it is.
  const text = textOf(value, 'system');
  if (!Array.isArray(value)) return text;
  const texts = (value as { text: string }[]).map((block) => block.text);
  const kept = texts.filter((block) => !block.startsWith(BILLING_HEADER));
  return kept.length === texts.length ? text : kept.join('\n');
}

/** Reads `tool_choice`; a choice the policy cannot follow with the declared tools is a 400. */
function toolChoiceOf(
  value: unknown,
  tools: readonly ToolDefinition[],
): { choice: ToolChoiceSetting; parallel: boolean } {
  if (value === undefined || value === null) return { choice: { type: 'auto' }, parallel: true };
  const fields = fieldsAt(value, 'tool_choice', 'an object ({type})');
  const parallel = !booleanAt(
    fields.disable_parallel_tool_use,
    'tool_choice.disable_parallel_tool_use',
    false,
  );
  const choice = choiceOf(fields);
  checkToolChoiceFits(choice, tools, {
    requiredAt: 'tool_choice.type',
    required: '"any"',
    nameAt: 'tool_choice.name',
  });
  return { choice, parallel };
}

function choiceOf(fields: Fields): ToolChoiceSetting {
  switch (fields.type) {
    case 'auto':
      return { type: 'auto' };
    case 'none':
      return { type: 'none' };
    case 'any':
      return { type: 'required' };
    case 'tool':
      return { type: 'tool', toolName: nameAt(fields.name, 'tool_choice.name') };
    default:
      throw mustBe(fields.type, 'tool_choice.type', '"auto", "any", "tool" or "none"');
  }
}

/** An image block as a chat completions image part (servers of vision models read these). */
function imagePart(block: Fields, path: string): Readonly<Record<string, unknown>> {
  const source = fieldsAt(block.source, `${path}.source`);
  if (source.type === 'base64') {
    const mediaType = stringAt(source.media_type, `${path}.source.media_type`);
    const data = stringAt(source.data, `${path}.source.data`);
    return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
  }
  if (source.type === 'url')
    return { type: 'image_url', image_url: { url: stringAt(source.url, `${path}.source.url`) } };
  throw mustBe(source.type, `${path}.source.type`, '"base64" or "url"');
}

/** What a tool result's content says, as text: images cannot be shown in a text result. */
function resultText(value: unknown, path: string): string {
  if (typeof value === 'string' || value === undefined || value === null)
    return textOf(value, path);
  return arrayAt(value, path)
    .map((entry, index) => {
      const block = fieldsAt(entry, `${path}[${index}]`);
      if (block.type === 'text') return stringAt(block.text, `${path}[${index}].text`);
      return `[${String(block.type)} content — not shown, this model reads text only]`;
    })
    .join('\n');
}

/** Reads one message's content blocks into turns (a user message may carry results and text). */
function messageTurns(
  message: Fields,
  path: string,
  calledTools: Map<string, string>,
  turns: Turn[],
): void {
  const role = message.role;
  if (role !== 'user' && role !== 'assistant')
    throw mustBe(role, `${path}.role`, '"user" or "assistant"');
  if (typeof message.content === 'string') {
    turns.push(
      role === 'user'
        ? { role: 'user', content: message.content }
        : { role: 'assistant', text: message.content, calls: [] },
    );
    return;
  }
  const blocks = arrayAt(
    message.content,
    `${path}.content`,
    'a string or an array of content blocks',
  );
  if (role === 'assistant') {
    const texts: string[] = [];
    const calls: ToolCallToFormat[] = [];
    const thoughts: string[] = [];
    for (const [index, entry] of blocks.entries()) {
      const blockPath = `${path}.content[${index}]`;
      const block = fieldsAt(entry, blockPath);
      if (block.type === 'text') texts.push(stringAt(block.text, `${blockPath}.text`));
      // The model's earlier reasoning; its `signature` (possibly empty) is Anthropic's to check.
      else if (block.type === 'thinking') {
        const thought = stringAt(block.thinking, `${blockPath}.thinking`);
        if (thought.length > 0) thoughts.push(thought);
      } else if (block.type === 'tool_use') {
        const id = stringAt(block.id, `${blockPath}.id`);
        const toolName = nameAt(block.name, `${blockPath}.name`);
        calledTools.set(id, toolName);
        calls.push({
          toolName,
          toolCallId: id,
          input: block.input === undefined ? {} : fieldsAt(block.input, `${blockPath}.input`),
        });
      }
      // Redacted reasoning is encrypted for Anthropic's servers: no model server can read it.
      else if (block.type !== 'redacted_thinking')
        throw mustBe(
          block.type,
          `${blockPath}.type`,
          '"text", "tool_use" or "thinking" in an assistant message',
        );
    }
    turns.push({
      role: 'assistant',
      text: texts.join('\n'),
      calls,
      ...(thoughts.length > 0 ? { reasoning: thoughts.join('\n') } : {}),
    });
    return;
  }
  const results: ToolResponseToFormat[] = [];
  const parts: Readonly<Record<string, unknown>>[] = [];
  for (const [index, entry] of blocks.entries()) {
    const blockPath = `${path}.content[${index}]`;
    const block = fieldsAt(entry, blockPath);
    switch (block.type) {
      case 'tool_result': {
        const id = stringAt(block.tool_use_id, `${blockPath}.tool_use_id`);
        const toolName = calledTools.get(id);
        if (toolName === undefined)
          throw invalid(
            `${blockPath}.tool_use_id`,
            `is "${id}", which no earlier assistant message's tool_use block has: a tool_result answers a call made before it`,
          );
        results.push({
          toolName,
          toolCallId: id,
          output: resultText(block.content, `${blockPath}.content`),
          isError: booleanAt(block.is_error, `${blockPath}.is_error`, false),
        });
        break;
      }
      case 'text':
        parts.push({ type: 'text', text: stringAt(block.text, `${blockPath}.text`) });
        break;
      case 'image':
        parts.push(imagePart(block, blockPath));
        break;
      case 'document':
        parts.push({ type: 'text', text: '[document — not shown, this model reads text only]' });
        break;
      default:
        throw mustBe(
          block.type,
          `${blockPath}.type`,
          '"text", "image", "document" or "tool_result" in a user message',
        );
    }
  }
  if (results.length > 0) turns.push({ role: 'tool-results', results });
  if (parts.length === 0) return;
  const onlyText = parts.every((part) => part.type === 'text');
  turns.push({
    role: 'user',
    content: onlyText ? parts.map((part) => part.text as string).join('\n') : parts,
  });
}

/**
 * Reads and checks an Anthropic Messages request body; throws a 400 `HttpError` naming the field.
 * A `count_tokens` body (`forCounting`) has no `max_tokens`.
 */
export function readMessagesRequest(
  body: unknown,
  { forCounting = false }: { readonly forCounting?: boolean } = {},
): ChatRequest {
  const fields = fieldsAt(body, 'the request body');
  const model = nameAt(fields.model, 'model', 'a model id (a string)');
  const settings = passedFields(fields, MESSAGES_REQUEST_FIELDS);
  const maxTokens = fields.max_tokens;
  if (
    !(forCounting && maxTokens === undefined) &&
    (!Number.isInteger(maxTokens) || (maxTokens as number) < 1)
  )
    throw mustBe(maxTokens, 'max_tokens', 'a whole number of at least 1');
  const tools = toolsOf(fields.tools);
  const { choice, parallel } = toolChoiceOf(fields.tool_choice, tools);
  const messages = arrayAt(fields.messages, 'messages', 'an array of messages');
  if (messages.length === 0) throw invalid('messages', 'must hold at least one message');
  const turns: Turn[] = [];
  const calledTools = new Map<string, string>();
  // Claude Code puts system messages inside `messages` (its environment, after the first user
  // message). Chat templates often refuse a system turn anywhere but first, so their text joins
  // the system text, in order, each marked as given later.
  const system = [systemTextOf(fields.system)];
  for (const [index, entry] of messages.entries()) {
    const path = `messages[${index}]`;
    const message = fieldsAt(entry, path, 'a message object ({role, content})');
    if (message.role === 'system')
      system.push(`${LATER_INSTRUCTION}\n${textOf(message.content, `${path}.content`)}`);
    else messageTurns(message, path, calledTools, turns);
  }
  if (turns.length === 0)
    throw invalid(
      'messages',
      'holds only system messages: it must hold a user or assistant message too',
    );
  for (const [from, to] of SETTINGS) {
    if (fields[from] !== undefined && fields[from] !== null) settings[to] = fields[from];
  }
  const stream = booleanAt(fields.stream, 'stream', false);
  return {
    model,
    system: system.filter((text) => text.length > 0).join('\n\n'),
    turns,
    tools,
    toolChoice: choice,
    parallelToolCalls: parallel,
    stream,
    // Anthropic's stream always ends with the usage: ask the model server for it.
    includeUsage: stream,
    settings,
  };
}
