import type { ToolCallToFormat, ToolDefinition, ToolResponseToFormat } from '../../core/index.ts';
import { DEFAULT_JSON_SHAPE_LIMITS, JsonTextReader } from '../../http/json-shape.ts';
import type { ChatRequest, Turn, UserContent } from '../conversation.ts';
import {
  arrayAt,
  booleanAt,
  chatFunctionToolsAt,
  type Fields,
  fieldsAt,
  invalid,
  isFields,
  jsonTextAt,
  mustBe,
  nameAt,
  optionalStringAt,
  stringAt,
} from '../request-fields.ts';

/**
 * An Ollama `/api/chat` request, read: a chat for the model server, or (no messages) Ollama's
 * request to load or unload the model, which the proxy answers at once: the model server loads
 * its models itself.
 */
export type OllamaChatRequest =
  | {
      readonly kind: 'chat';
      readonly chat: ChatRequest;
      /** Names of `options` the proxy does not send on (a chat completions server has none of them). */
      readonly leftOutOptions: readonly string[];
    }
  | {
      readonly kind: 'load';
      readonly model: string;
      /** `load`, or `unload` when `keep_alive` is 0, as Ollama answers. */
      readonly doneReason: 'load' | 'unload';
      readonly stream: boolean;
    };

/** Put in a message's text where it carried images that cannot go there (only user messages show them). */
export const IMAGES_NOT_SHOWN = '[image — not shown, this model reads text only here]';

/** The leading bytes of each image type, as base64 (`iVBORw0KGgo` is PNG's signature). */
const IMAGE_SIGNATURES: ReadonlyArray<readonly [string, string]> = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['R0lGOD', 'image/gif'],
  ['UklGR', 'image/webp'],
  ['Qk', 'image/bmp'],
];

/**
 * One of a message's `images` (base64, as Ollama takes them) as a chat completions image part:
 * a data URL whose media type is read from the image's first bytes. A data URL is taken as sent.
 */
function imagePart(value: unknown, path: string): Readonly<Record<string, unknown>> {
  const data = stringAt(value, path, 'a base64-encoded image (a string)');
  if (data.length === 0) throw invalid(path, 'must not be empty');
  if (data.startsWith('data:')) return { type: 'image_url', image_url: { url: data } };
  const mediaType =
    IMAGE_SIGNATURES.find(([signature]) => data.startsWith(signature))?.[1] ?? 'image/png';
  return { type: 'image_url', image_url: { url: `data:${mediaType};base64,${data}` } };
}

function imagesOf(message: Fields, path: string): Readonly<Record<string, unknown>>[] {
  if (message.images === undefined || message.images === null) return [];
  return arrayAt(message.images, `${path}.images`, 'an array of base64-encoded images').map(
    (image, index) => imagePart(image, `${path}.images[${index}]`),
  );
}

/** A message's `content`: Ollama's is a string (absent or null reads as empty). */
function contentOf(message: Fields, path: string): string {
  const content = message.content;
  if (content === undefined || content === null) return '';
  return stringAt(content, `${path}.content`);
}

/** Text with a note for the images that came with it but cannot be shown in its place. */
function withImageNote(text: string, images: number): string {
  if (images === 0) return text;
  const note = Array.from({ length: images }, () => IMAGES_NOT_SHOWN).join('\n');
  return text.length === 0 ? note : `${text}\n${note}`;
}

/**
 * A call's arguments: an object, as Ollama sends them; JSON text is read too (clients written
 * for chat completions send it), within the request's limits.
 */
function argumentsOf(value: unknown, path: string, texts: JsonTextReader): unknown {
  if (value === undefined || value === null || value === '') return {};
  if (typeof value === 'string') {
    const parsed = jsonTextAt(value, path, texts);
    if (!isFields(parsed)) throw mustBe(parsed, path, 'an object of arguments');
    return parsed;
  }
  return fieldsAt(value, path, 'an object of arguments');
}

/** A call made in the conversation, and whether a result answered it yet. */
interface MadeCall {
  readonly toolName: string;
  readonly toolCallId: string;
  answered: boolean;
}

/**
 * Pairs tool results with the calls they answer. Ollama's calls and results may carry no ids
 * (its own `tool_call_id` and a call's `id` are recent, and optional): a result names its call by
 * `tool_call_id` where one matches, else it answers the first unanswered call of the last
 * assistant message named `tool_name`, else the first unanswered one, in order.
 */
class CallLedger {
  private readonly byId = new Map<string, MadeCall>();
  /** The calls of the last assistant message that made any, in order. */
  private latest: MadeCall[] = [];

  made(calls: readonly ToolCallToFormat[]): void {
    if (calls.length === 0) return;
    this.latest = calls.map((call) => ({
      toolName: call.toolName,
      toolCallId: call.toolCallId!,
      answered: false,
    }));
    for (const call of this.latest) this.byId.set(call.toolCallId, call);
  }

  answer(message: Fields, path: string, output: string): ToolResponseToFormat {
    const id = optionalStringAt(message.tool_call_id, `${path}.tool_call_id`);
    const name = optionalStringAt(message.tool_name, `${path}.tool_name`);
    const call =
      (id === undefined ? undefined : this.byId.get(id)) ??
      this.latest.find((made) => !made.answered && (name === undefined || made.toolName === name));
    if (call !== undefined) {
      call.answered = true;
      return { toolName: call.toolName, toolCallId: call.toolCallId, output };
    }
    // A result of a call the conversation does not show: its tool name is enough to render it.
    if (name !== undefined)
      return {
        toolName: nameAt(name, `${path}.tool_name`),
        ...(id === undefined ? {} : { toolCallId: id }),
        output,
      };
    throw invalid(
      path,
      id === undefined
        ? 'is a tool result, but every call of the assistant message before it has its result already: give its tool_name or tool_call_id'
        : `is a tool result for the call "${id}", which no earlier assistant message's tool_calls has, and it names no tool (tool_name)`,
    );
  }
}

function assistantTurn(
  message: Fields,
  path: string,
  index: number,
  ledger: CallLedger,
  texts: JsonTextReader,
): Turn {
  const text = withImageNote(contentOf(message, path), imagesOf(message, path).length);
  const calls: ToolCallToFormat[] = [];
  if (message.tool_calls !== undefined && message.tool_calls !== null) {
    for (const [callIndex, entry] of arrayAt(
      message.tool_calls,
      `${path}.tool_calls`,
      'an array of tool calls',
    ).entries()) {
      const callPath = `${path}.tool_calls[${callIndex}]`;
      const call = fieldsAt(entry, callPath, 'a tool call object ({function: {name, arguments}})');
      const fn = fieldsAt(call.function, `${callPath}.function`, 'an object ({name, arguments})');
      const id = optionalStringAt(call.id, `${callPath}.id`);
      calls.push({
        toolName: nameAt(fn.name, `${callPath}.function.name`),
        // A call sent without an id gets one, so that its result can be paired with it.
        toolCallId: id === undefined || id.length === 0 ? `call_${index}_${callIndex}` : id,
        input: argumentsOf(fn.arguments, `${callPath}.function.arguments`, texts),
      });
    }
  }
  ledger.made(calls);
  // The model's earlier reasoning goes upstream beside the text, for the chat template to keep or drop.
  const reasoning = optionalStringAt(message.thinking, `${path}.thinking`);
  return {
    role: 'assistant',
    text,
    calls,
    ...(reasoning === undefined || reasoning.length === 0 ? {} : { reasoning }),
  };
}

/** Reads `messages` into turns; the leading system messages become the system text. */
function conversationOf(
  messages: readonly unknown[],
  texts: JsonTextReader,
): { system: string; turns: Turn[] } {
  const system: string[] = [];
  const turns: Turn[] = [];
  const ledger = new CallLedger();
  for (const [index, entry] of messages.entries()) {
    const path = `messages[${index}]`;
    const message = fieldsAt(entry, path, 'a message object ({role, content})');
    // Ollama reads roles in any case.
    const role = typeof message.role === 'string' ? message.role.toLowerCase() : message.role;
    switch (role) {
      case 'system': {
        const text = withImageNote(contentOf(message, path), imagesOf(message, path).length);
        if (turns.length === 0) system.push(text);
        else turns.push({ role: 'system', content: text });
        break;
      }
      case 'user': {
        const text = contentOf(message, path);
        const images = imagesOf(message, path);
        const content: UserContent =
          images.length === 0
            ? text
            : // Ollama shows a message's images before its text.
              [...images, ...(text.length === 0 ? [] : [{ type: 'text', text }])];
        turns.push({ role: 'user', content });
        break;
      }
      case 'assistant':
        turns.push(assistantTurn(message, path, index, ledger, texts));
        break;
      case 'tool': {
        const output = withImageNote(contentOf(message, path), imagesOf(message, path).length);
        const result = ledger.answer(message, path, output);
        const last = turns[turns.length - 1];
        if (last?.role === 'tool-results')
          turns[turns.length - 1] = { role: 'tool-results', results: [...last.results, result] };
        else turns.push({ role: 'tool-results', results: [result] });
        break;
      }
      default:
        throw mustBe(message.role, `${path}.role`, '"system", "user", "assistant" or "tool"');
    }
  }
  return { system: system.join('\n\n'), turns };
}

/**
 * `format`: `"json"` or a JSON Schema, as chat completions' `response_format`. With tools it is
 * refused: the model writes its calls as text in its format, which a constraint to one JSON
 * shape would forbid.
 */
function responseFormatOf(
  value: unknown,
  tools: readonly ToolDefinition[],
): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  let format: Record<string, unknown>;
  if (value === 'json') format = { type: 'json_object' };
  else if (isFields(value))
    format = { type: 'json_schema', json_schema: { name: 'response', schema: value } };
  else throw mustBe(value, 'format', '"json" or a JSON Schema (an object)');
  if (tools.length > 0)
    throw invalid(
      'format',
      'cannot be given with tools: the model writes its tool calls as text in its own format, which a JSON format would forbid; send one or the other',
    );
  return format;
}

/**
 * `think` as chat completions settings. True is the model's default (a model that thinks does):
 * nothing is sent. A level is `reasoning_effort`, and false is its `none` (vLLM and Ollama's own
 * chat completions API read both, `max` too); false also asks the chat template itself not to
 * think (`enable_thinking`, which Qwen3's and other templates read), for servers that pass
 * `chat_template_kwargs` on (llama.cpp, vLLM) but do not read `reasoning_effort`.
 */
function thinkSettings(value: unknown): Record<string, unknown> {
  if (value === undefined || value === null || value === true) return {};
  if (value === false)
    return { reasoning_effort: 'none', chat_template_kwargs: { enable_thinking: false } };
  if (value === 'low' || value === 'medium' || value === 'high' || value === 'max')
    return { reasoning_effort: value };
  throw mustBe(value, 'think', 'true, false, "low", "medium", "high" or "max"');
}

type OptionKind = 'number' | 'integer';

/** Ollama's options that chat completions has too, with its name for each. */
const SAMPLING_OPTIONS: ReadonlyArray<readonly [string, string, OptionKind]> = [
  ['temperature', 'temperature', 'number'],
  ['top_p', 'top_p', 'number'],
  // Not OpenAI's, but vLLM, llama.cpp and Ollama's own chat completions API read these.
  ['top_k', 'top_k', 'integer'],
  ['min_p', 'min_p', 'number'],
  ['seed', 'seed', 'integer'],
  ['presence_penalty', 'presence_penalty', 'number'],
  ['frequency_penalty', 'frequency_penalty', 'number'],
];

function optionAt(value: unknown, path: string, kind: OptionKind): number {
  if (kind === 'integer' ? !Number.isSafeInteger(value) : !Number.isFinite(value))
    throw mustBe(value, path, kind === 'integer' ? 'a whole number' : 'a number');
  return value as number;
}

/**
 * `options`: those chat completions has, in its names, into `settings`; the names of the rest
 * (the model's loading and Ollama's own sampling options) are returned, left out.
 */
function readOptions(value: unknown, settings: Record<string, unknown>): string[] {
  if (value === undefined || value === null) return [];
  const options = fieldsAt(value, 'options', 'an object of model options');
  const read = new Set<string>();
  for (const [name, chatName, kind] of SAMPLING_OPTIONS) {
    const option = options[name];
    read.add(name);
    if (option === undefined || option === null) continue;
    settings[chatName] = optionAt(option, `options.${name}`, kind);
  }
  read.add('num_predict');
  if (options.num_predict !== undefined && options.num_predict !== null) {
    const limit = optionAt(options.num_predict, 'options.num_predict', 'integer');
    // -1 (no limit) and -2 (fill the context) are the model server's own default.
    if (limit > 0) settings.max_tokens = limit;
  }
  read.add('stop');
  if (options.stop !== undefined && options.stop !== null) {
    const stop =
      typeof options.stop === 'string'
        ? [options.stop]
        : arrayAt(options.stop, 'options.stop', 'an array of strings').map((entry, index) =>
            stringAt(entry, `options.stop[${index}]`),
          );
    if (stop.length > 0) settings.stop = stop;
  }
  return Object.keys(options).filter((name) => !read.has(name));
}

/** `keep_alive` of 0 (`0`, `"0"`, `"0s"`): Ollama unloads the model. */
function isZeroDuration(value: unknown): boolean {
  return value === 0 || (typeof value === 'string' && Number.parseFloat(value) === 0);
}

/**
 * Reads and checks an Ollama `/api/chat` request body; throws a 400 `HttpError` naming the field.
 * `texts` reads JSON texts inside it (arguments sent as text) within the request's limits.
 * Fields Ollama defines that mean nothing to a chat completions server (`keep_alive`,
 * `truncate`, `shift`, `logprobs`…) are accepted and left behind, as Ollama leaves fields it
 * does not know.
 */
export function readOllamaChatRequest(
  body: unknown,
  texts: JsonTextReader = new JsonTextReader(DEFAULT_JSON_SHAPE_LIMITS),
): OllamaChatRequest {
  const fields = fieldsAt(body, 'the request body');
  const model = nameAt(fields.model, 'model', 'a model id (a string)');
  // Ollama streams unless told not to.
  const stream = booleanAt(fields.stream, 'stream', true);
  const messages =
    fields.messages === undefined || fields.messages === null
      ? []
      : arrayAt(fields.messages, 'messages', 'an array of messages');
  if (messages.length === 0)
    return {
      kind: 'load',
      model,
      doneReason: isZeroDuration(fields.keep_alive) ? 'unload' : 'load',
      stream,
    };
  const tools = chatFunctionToolsAt(fields.tools, { typeMayBeLeftOut: true });
  const { system, turns } = conversationOf(messages, texts);
  const settings: Record<string, unknown> = {};
  const leftOutOptions = readOptions(fields.options, settings);
  const responseFormat = responseFormatOf(fields.format, tools);
  if (responseFormat !== undefined) settings.response_format = responseFormat;
  Object.assign(settings, thinkSettings(fields.think));
  return {
    kind: 'chat',
    chat: {
      model,
      system,
      turns,
      tools,
      // Ollama's API has no tool choice and no limit on calls per reply.
      toolChoice: { type: 'auto' },
      parallelToolCalls: true,
      stream,
      // Ollama's last line carries the token counts: ask the model server for them.
      includeUsage: true,
      settings,
    },
    leftOutOptions,
  };
}
