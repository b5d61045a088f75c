import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../core/index.ts';
import { DEFAULT_JSON_SHAPE_LIMITS, JsonTextReader } from '../http/json-shape.ts';
import type { ChatRequest, ToolChoiceSetting, Turn, UserContent } from './conversation.ts';
import {
  arrayAt,
  booleanAt,
  CHAT_COMPLETIONS_FIELDS,
  chatFunctionToolsAt,
  checkToolChoiceFits,
  describeValue,
  type Fields,
  fieldsAt,
  invalid,
  isFields,
  jsonTextAt,
  mustBe,
  nameAt,
  optionalStringAt,
  passedFields,
  stringAt,
  textOf,
} from './request-fields.ts';

/** Reads `tool_choice`; a choice the policy cannot follow with the declared tools is a 400. */
function toolChoiceOf(value: unknown, tools: readonly ToolDefinition[]): ToolChoiceSetting {
  const choice = choiceOf(value);
  checkToolChoiceFits(choice, tools, {
    requiredAt: 'tool_choice',
    required: '"required"',
    nameAt: 'tool_choice.function.name',
  });
  return choice;
}

function choiceOf(value: unknown): ToolChoiceSetting {
  if (value === undefined || value === null || value === 'auto') return { type: 'auto' };
  if (value === 'none') return { type: 'none' };
  if (value === 'required') return { type: 'required' };
  if (!isFields(value) || value.type !== 'function')
    throw invalid(
      'tool_choice',
      `must be "auto", "none", "required" or {"type": "function", "function": {"name": …}}, not ${describeValue(value)}`,
    );
  const toolName = nameAt(
    fieldsAt(value.function, 'tool_choice.function', 'an object ({name})').name,
    'tool_choice.function.name',
  );
  return { type: 'tool', toolName };
}

/**
 * A call's arguments from history: JSON text (as the API sends them), read within what the
 * request's limits leave, or already an object.
 */
function argumentsOf(value: unknown, path: string, texts: JsonTextReader): unknown {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value !== 'string') return fieldsAt(value, path);
  return jsonTextAt(value, path, texts);
}

function userContentOf(value: unknown, path: string): UserContent {
  if (typeof value === 'string') return value;
  return arrayAt(value, path, 'a string or an array of content parts').map((part, index) =>
    fieldsAt(part, `${path}[${index}]`, 'a content part object'),
  );
}

/** Reads `messages` into turns; the leading system (and developer) messages become the system text. */
function conversationOf(value: unknown, texts: JsonTextReader): { system: string; turns: Turn[] } {
  const messages = arrayAt(value, 'messages', 'an array of messages');
  if (messages.length === 0) throw invalid('messages', 'must hold at least one message');
  const system: string[] = [];
  const turns: Turn[] = [];
  /** Tool names by call id, so a `tool` message's result can name its tool. */
  const calledTools = new Map<string, string>();
  for (const [index, entry] of messages.entries()) {
    const path = `messages[${index}]`;
    const message = fieldsAt(entry, path, 'a message object ({role, content})');
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textOf(message.content, `${path}.content`);
        if (turns.length === 0) system.push(text);
        else turns.push({ role: 'system', content: text });
        break;
      }
      case 'user':
        turns.push({ role: 'user', content: userContentOf(message.content, `${path}.content`) });
        break;
      case 'assistant':
        turns.push(assistantTurn(message, path, calledTools, texts));
        break;
      case 'tool': {
        const result = toolResult(message, path, calledTools);
        const last = turns[turns.length - 1];
        if (last?.role === 'tool-results') {
          turns[turns.length - 1] = { role: 'tool-results', results: [...last.results, result] };
        } else {
          turns.push({ role: 'tool-results', results: [result] });
        }
        break;
      }
      case 'function':
        throw invalid(
          `${path}.role`,
          'is "function", the API\'s deprecated form: send results as role "tool" with a tool_call_id',
        );
      default:
        throw mustBe(
          message.role,
          `${path}.role`,
          '"system", "developer", "user", "assistant" or "tool"',
        );
    }
  }
  return { system: system.join('\n\n'), turns };
}

function assistantTurn(
  message: Fields,
  path: string,
  calledTools: Map<string, string>,
  texts: JsonTextReader,
): Turn {
  // A refusal is what the assistant said, as far as the next turn is concerned.
  const text = textOrRefusal(message, path);
  const calls: ToolCallToFormat[] = [];
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    for (const [index, entry] of arrayAt(message.tool_calls, `${path}.tool_calls`).entries()) {
      const callPath = `${path}.tool_calls[${index}]`;
      const call = fieldsAt(entry, callPath);
      const fn = fieldsAt(call.function, `${callPath}.function`);
      const id = stringAt(call.id, `${callPath}.id`);
      const toolName = nameAt(fn.name, `${callPath}.function.name`);
      calledTools.set(id, toolName);
      calls.push({
        toolName,
        toolCallId: id,
        input: argumentsOf(fn.arguments, `${callPath}.function.arguments`, texts),
      });
    }
  }
  const reasoning = reasoningOf(message, path);
  return { role: 'assistant', text, calls, ...(reasoning === undefined ? {} : { reasoning }) };
}

/**
 * The reasoning an assistant message carries back: `reasoning_content` (DeepSeek's name, which
 * llama.cpp and vLLM answer with), else `reasoning` (newer vLLM's, Ollama's and OpenRouter's)
 * when it is text. Empty reasoning is none.
 */
function reasoningOf(message: Fields, path: string): string | undefined {
  const reasoning =
    optionalStringAt(message.reasoning_content, `${path}.reasoning_content`) ??
    (typeof message.reasoning === 'string' ? message.reasoning : undefined);
  return reasoning === undefined || reasoning.length === 0 ? undefined : reasoning;
}

function textOrRefusal(message: Fields, path: string): string {
  const content = message.content;
  if (Array.isArray(content)) {
    return content
      .map((part, index) => {
        const fields = fieldsAt(part, `${path}.content[${index}]`);
        if (fields.type === 'refusal')
          return stringAt(fields.refusal, `${path}.content[${index}].refusal`);
        return textOf([fields], `${path}.content[${index}]`);
      })
      .join('\n');
  }
  const text = textOf(content, `${path}.content`);
  const refusal = optionalStringAt(message.refusal, `${path}.refusal`);
  return refusal === undefined || text.length > 0 ? text : refusal;
}

function toolResult(
  message: Fields,
  path: string,
  calledTools: ReadonlyMap<string, string>,
): ToolResponseToFormat {
  const id = stringAt(message.tool_call_id, `${path}.tool_call_id`);
  const toolName = calledTools.get(id);
  if (toolName === undefined)
    throw invalid(
      `${path}.tool_call_id`,
      `is "${id}", which no earlier assistant message's tool_calls has: a tool message answers a call made before it`,
    );
  return { toolName, toolCallId: id, output: textOf(message.content, `${path}.content`) };
}

/**
 * Reads and checks a chat completions request body; throws a 400 `HttpError` naming the field.
 * `texts` reads the JSON texts inside it (calls' arguments) within the request's limits.
 */
export function readChatCompletionsRequest(
  body: unknown,
  texts: JsonTextReader = new JsonTextReader(DEFAULT_JSON_SHAPE_LIMITS),
): ChatRequest {
  const fields = fieldsAt(body, 'the request body');
  const model = nameAt(fields.model, 'model', 'a model id (a string)');
  const settings = passedFields(fields, CHAT_COMPLETIONS_FIELDS);
  const tools = chatFunctionToolsAt(fields.tools, { typeMayBeLeftOut: false });
  const { system, turns } = conversationOf(fields.messages, texts);
  const stream = booleanAt(fields.stream, 'stream', false);
  const streamOptions =
    fields.stream_options === undefined || fields.stream_options === null
      ? {}
      : fieldsAt(fields.stream_options, 'stream_options');
  return {
    model,
    system,
    turns,
    tools,
    toolChoice: toolChoiceOf(fields.tool_choice, tools),
    parallelToolCalls: booleanAt(fields.parallel_tool_calls, 'parallel_tool_calls', true),
    stream,
    includeUsage: booleanAt(streamOptions.include_usage, 'stream_options.include_usage', false),
    settings,
  };
}
