import type { LanguageModelV4Prompt } from '@ai-sdk/provider';
import { demandSentence, TOOLS_UNAVAILABLE } from '../../core/tool-choice.ts';
import type { CallPlan } from '../call-plan.ts';
import type { ResolvedOptions, ToolPromptPlacement } from '../options.ts';

export { TOOLS_UNAVAILABLE };

/** The text injected into the prompt for this call, or undefined when there is nothing to say. */
export function toolPromptText(plan: CallPlan, options: ResolvedOptions): string | undefined {
  const { prompt, offered, demand } = plan.toolChoice;
  if (prompt === 'no-tools') return undefined;
  if (prompt === 'tools-unavailable') return TOOLS_UNAVAILABLE;
  const section = options.systemPromptTemplate(options.protocol.formatTools(offered), offered, {
    toolChoice: demand?.type ?? 'auto',
    ...(demand?.toolName === undefined ? {} : { toolName: demand.toolName }),
  });
  return demand ? `${section}\n\n${demandSentence(demand)}` : section;
}

function joinText(first: string, second: string): string {
  if (first.length === 0) return second;
  if (second.length === 0) return first;
  return `${first}\n\n${second}`;
}

/** Puts the tool prompt where `placement` says, keeping the user's own system text. */
export function insertToolPrompt(
  prompt: LanguageModelV4Prompt,
  text: string,
  placement: ToolPromptPlacement,
): LanguageModelV4Prompt {
  const result = [...prompt];
  if (placement === 'user') {
    const index = result.findIndex((message) => message.role === 'user');
    const message = result[index];
    if (message?.role === 'user') {
      const [first, ...rest] = message.content;
      const content =
        first?.type === 'text'
          ? [{ ...first, text: joinText(text, first.text) }, ...rest]
          : [{ type: 'text' as const, text }, ...message.content];
      result[index] = { ...message, content };
      return result;
    }
    // No user message to carry it: fall through to a system message.
  }
  // The system messages at the head of the prompt; the tool prompt joins the first or the last.
  let leading = 0;
  while (result[leading]?.role === 'system') leading++;
  if (leading === 0) {
    result.unshift({ role: 'system', content: text });
    return result;
  }
  const index = placement === 'system-start' ? 0 : leading - 1;
  const message = result[index];
  if (message?.role === 'system') {
    result[index] = {
      ...message,
      content:
        placement === 'system-start'
          ? joinText(text, message.content)
          : joinText(message.content, text),
    };
  }
  return result;
}
