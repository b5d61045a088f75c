import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4ProviderTool,
  LanguageModelV4ToolChoice,
} from '@ai-sdk/provider';
import type { JsonSchema, ParseOptions, ToolDefinition } from '../core/index.ts';
import {
  isToolChoiceConflict,
  planToolChoice,
  type ToolChoicePlan,
} from '../core/tool-choice-policy.ts';
import { type ToolChoiceDemand, ToolMiddlewareError } from './errors.ts';
import type { ResolvedOptions } from './options.ts';

/** What one model call needs from the middleware, decided once in `transformParams`. */
export interface CallPlan {
  /** The declared function tools, as the protocol sees them. */
  readonly tools: readonly ToolDefinition[];
  /** The function tools' part of the tool-choice policy: demand, tools offered and read. */
  readonly toolChoice: ToolChoicePlan<ToolDefinition>;
  /** Parse options for the output: only the tools whose calls are read (none for `none`). */
  readonly parseOptions: ParseOptions;
  /** Set when `toolChoice` demands a call (`required`, or a named function tool). */
  readonly demand: ToolChoiceDemand | undefined;
  /** What stays in the inner model's `tools`: provider tools when they are passed through. */
  readonly innerTools: LanguageModelV4ProviderTool[] | undefined;
  /** What stays in the inner model's `toolChoice`: only a choice about passed-through tools. */
  readonly innerToolChoice: LanguageModelV4ToolChoice | undefined;
}

function toolDefinition(tool: LanguageModelV4FunctionTool): ToolDefinition {
  return {
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    inputSchema: (tool.inputSchema ?? {}) as JsonSchema,
  };
}

function parseOptionsFor(tools: readonly ToolDefinition[], options: ResolvedOptions): ParseOptions {
  return {
    tools,
    // The middleware reports a malformed call's raw text itself (as text or as an invalid call).
    emitRawTextOnError: false,
    startInReasoning: options.startInReasoning,
    ...(options.maxCallChars === undefined ? {} : { maxCallChars: options.maxCallChars }),
    ...(options.generateId === undefined ? {} : { generateId: options.generateId }),
  };
}

/** Splits the call's tools, checks `toolChoice` against them, and decides what to parse. */
export function planCall(params: LanguageModelV4CallOptions, options: ResolvedOptions): CallPlan {
  const functionTools: ToolDefinition[] = [];
  const providerTools: LanguageModelV4ProviderTool[] = [];
  for (const tool of params.tools ?? []) {
    if (tool.type === 'function') functionTools.push(toolDefinition(tool));
    else providerTools.push(tool);
  }
  if (providerTools.length > 0 && options.providerTools === 'refuse') {
    const names = providerTools.map((tool) => `"${tool.name}" (${tool.id})`).join(', ');
    throw new ToolMiddlewareError(
      'provider-tool-refused',
      `the tool middleware cannot describe provider-defined tools to the model: ${names}. ` +
        `Remove them from the call, or create the middleware with providerTools: 'pass-through' ` +
        'to leave them to the provider.',
    );
  }
  const passed = providerTools.length > 0 ? providerTools : undefined;
  const choice: LanguageModelV4ToolChoice = params.toolChoice ?? { type: 'auto' };
  let planned = planToolChoice(choice, functionTools);
  let innerToolChoice: LanguageModelV4ToolChoice | undefined;
  // `none` also holds for the provider's own tools.
  if (choice.type === 'none' && passed) innerToolChoice = choice;
  if (isToolChoiceConflict(planned)) {
    const conflict = planned;
    if (
      conflict.conflict === 'unknown-tool' &&
      !providerTools.some((tool) => tool.name === conflict.toolName)
    ) {
      const known = [...functionTools, ...providerTools].map((tool) => `"${tool.name}"`);
      throw new ToolMiddlewareError(
        'unknown-tool-choice',
        `toolChoice names the tool "${conflict.toolName}", which is not among the call's tools` +
          (known.length > 0 ? ` (${known.join(', ')})` : ' (the call has no tools)'),
      );
    }
    // A choice about the provider's own tools (a named one, or `required` with no function
    // tools) is theirs to follow; with no tools at all it means nothing, as in the AI SDK,
    // which drops `toolChoice` from a call without tools. The function tools stay on `auto`.
    if (passed) innerToolChoice = choice;
    planned = planToolChoice({ type: 'auto' }, functionTools);
  }
  return {
    tools: functionTools,
    toolChoice: planned,
    parseOptions: parseOptionsFor(planned.read, options),
    demand: planned.demand,
    innerTools: passed,
    innerToolChoice,
  };
}
