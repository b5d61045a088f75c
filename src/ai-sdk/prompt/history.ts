import type {
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  LanguageModelV4TextPart,
  LanguageModelV4ToolResultPart,
} from '@ai-sdk/provider';
import type { ToolCallProtocol, ToolCallToFormat, ToolResponseToFormat } from '../../core/index.ts';
import { readCallMetadata } from '../metadata.ts';
import { type ToolResultOutput, toolResponseOf } from './tool-output.ts';

type AssistantMessage = Extract<LanguageModelV4Message, { role: 'assistant' }>;
type AssistantPart = AssistantMessage['content'][number];
type UserMessage = Extract<LanguageModelV4Message, { role: 'user' }>;

/** Joins two pieces of one message's text so that markup starts on its own line. */
function joinLines(first: string, second: string): string {
  if (first.length === 0 || first.endsWith('\n') || second.startsWith('\n')) return first + second;
  return `${first}\n${second}`;
}

/** What the model is told when a call it wrote could not be read (instead of the SDK's parse error). */
function unreadableCallResult(result: ToolResponseToFormat, reason: string): ToolResponseToFormat {
  return {
    toolName: result.toolName,
    ...(result.toolCallId === undefined ? {} : { toolCallId: result.toolCallId }),
    output: `The tool call could not be read, so nothing was run: ${reason}. Write the call again, exactly in the tool-call format you were given.`,
    isError: true,
  };
}

/**
 * Rewrites the conversation so that a text-only model sees its own format: earlier assistant tool
 * calls become the protocol's call markup inside the assistant's text, and `role: 'tool'` results
 * become a user message in the protocol's result format (the formatters escape results, so a
 * result can never be read back as a call). Calls and results the provider executed itself are
 * left as they are. Everything else (system and user text, reasoning, files) is untouched.
 */
export function renderHistory(
  prompt: LanguageModelV4Prompt,
  protocol: ToolCallProtocol,
): LanguageModelV4Prompt {
  const out: LanguageModelV4Message[] = [];
  /** User messages made from tool results: later results and user text join them. */
  const madeFromResults = new WeakSet<LanguageModelV4Message>();
  /** Calls that were malformed markup: their results say why instead of the SDK's parse error. */
  const unreadable = new Map<string, string>();
  const providerExecuted = new Set<string>();

  const isResultsMessage = (message: LanguageModelV4Message | undefined) =>
    message !== undefined && madeFromResults.has(message);

  /** Adds user content; tool results and the user text next to them share one message. */
  const appendUser = (
    content: UserMessage['content'],
    fromResults: boolean,
    providerOptions?: UserMessage['providerOptions'],
  ) => {
    const last = out[out.length - 1];
    if (last?.role === 'user' && (fromResults || isResultsMessage(last))) {
      const merged: UserMessage = {
        ...last,
        ...(providerOptions ? { providerOptions } : {}),
        content: [...last.content, ...content],
      };
      out[out.length - 1] = merged;
      madeFromResults.add(merged);
      return;
    }
    const message: UserMessage = {
      role: 'user',
      content,
      ...(providerOptions ? { providerOptions } : {}),
    };
    out.push(message);
    if (fromResults) madeFromResults.add(message);
  };

  for (const message of prompt) {
    switch (message.role) {
      case 'assistant':
        out.push(renderAssistant(message, protocol, unreadable, providerExecuted));
        break;
      case 'tool': {
        const results: ToolResponseToFormat[] = [];
        const kept: typeof message.content = [];
        for (const part of message.content) {
          if (part.type !== 'tool-result') continue; // approvals: the SDK adds the denial result
          if (providerExecuted.has(part.toolCallId)) {
            kept.push(part);
            continue;
          }
          results.push(resultOf(part, unreadable));
        }
        if (kept.length > 0) out.push({ ...message, content: kept });
        if (results.length > 0) {
          appendUser([{ type: 'text', text: protocol.formatToolResponse(results) }], true);
        }
        break;
      }
      case 'user':
        if (isResultsMessage(out.at(-1))) {
          appendUser(message.content, false, message.providerOptions);
        } else {
          out.push(message);
        }
        break;
      default:
        out.push(message);
    }
  }
  return out;
}

function resultOf(
  part: LanguageModelV4ToolResultPart,
  unreadable: ReadonlyMap<string, string>,
): ToolResponseToFormat {
  const result = toolResponseOf(
    part.toolName,
    part.toolCallId,
    part.output as unknown as ToolResultOutput,
  );
  const reason = unreadable.get(part.toolCallId);
  return reason === undefined ? result : unreadableCallResult(result, reason);
}

function renderAssistant(
  message: AssistantMessage,
  protocol: ToolCallProtocol,
  unreadable: Map<string, string>,
  providerExecuted: Set<string>,
): AssistantMessage {
  const content: AssistantPart[] = [];
  let batch: ToolCallToFormat[] = [];

  const pushText = (text: string, part?: LanguageModelV4TextPart) => {
    const last = content[content.length - 1];
    if (last?.type === 'text') {
      content[content.length - 1] = { ...last, text: joinLines(last.text, text) };
    } else {
      content.push(part ? { ...part, text } : { type: 'text', text });
    }
  };
  const flushBatch = () => {
    if (batch.length === 0) return;
    // One batch in one rendering: the execute protocol writes a batch as one block.
    pushText(protocol.formatToolCall(batch));
    batch = [];
  };

  for (const part of message.content) {
    if (part.type === 'tool-call') {
      if (part.providerExecuted) {
        providerExecuted.add(part.toolCallId);
        flushBatch();
        content.push(part);
        continue;
      }
      const metadata = readCallMetadata(part.providerOptions);
      if (metadata?.fault && typeof metadata.raw === 'string') {
        // The model's own unreadable markup, exactly as written (the SDK kept only `{}`).
        flushBatch();
        pushText(metadata.raw);
        unreadable.set(part.toolCallId, metadata.fault.message);
        continue;
      }
      batch.push({ toolName: part.toolName, input: part.input, toolCallId: part.toolCallId });
      continue;
    }
    // White space between calls of one batch does not split it.
    if (part.type === 'text' && batch.length > 0 && part.text.trim() === '') continue;
    flushBatch();
    if (part.type === 'text') pushText(part.text, part);
    else content.push(part);
  }
  flushBatch();
  return { ...message, content };
}
