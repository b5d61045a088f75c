import type {
  LanguageModelV4CallOptions,
  LanguageModelV4FunctionTool,
  LanguageModelV4ProviderTool,
  LanguageModelV4ToolChoice,
} from '@ai-sdk/provider';
import type { JsonSchema, ParseOptions, ToolDefinition } from '../core/index.ts';
import { type ToolChoiceDemand, ToolMiddlewareError } from './errors.ts';
import type { ResolvedOptions } from './options.ts';

/** What one model call needs from the middleware, decided once in `transformParams`. */
export interface CallPlan {
  /** The declared function tools, as the protocol sees them. */
  readonly tools: readonly ToolDefinition[];
  /** Parse options for the output: no tools when `toolChoice` is `none` (nothing is a call). */
  readonly parseOptions: ParseOptions;
  /** Set when `toolChoice` demands a call (`required`, or a named function tool). */
  readonly demand: ToolChoiceDemand | undefined;
  /** `toolChoice: 'none'`: the tools are described as unavailable and nothing is parsed. */
  readonly toolsDisabled: boolean;
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
  const choice = params.toolChoice ?? { type: 'auto' };
  let demand: ToolChoiceDemand | undefined;
  let innerToolChoice: LanguageModelV4ToolChoice | undefined;
  switch (choice.type) {
    case 'auto':
      break;
    case 'none':
      if (passed) innerToolChoice = choice;
      break;
    case 'required':
      if (functionTools.length > 0) demand = { type: 'required' };
      else if (passed) innerToolChoice = choice;
      break;
    case 'tool':
      if (functionTools.some((tool) => tool.name === choice.toolName)) {
        demand = { type: 'tool', toolName: choice.toolName };
      } else if (providerTools.some((tool) => tool.name === choice.toolName)) {
        innerToolChoice = choice;
      } else {
        const known = [...functionTools, ...providerTools].map((tool) => `"${tool.name}"`);
        throw new ToolMiddlewareError(
          'unknown-tool-choice',
          `toolChoice names the tool "${choice.toolName}", which is not among the call's tools` +
            (known.length > 0 ? ` (${known.join(', ')})` : ' (the call has no tools)'),
        );
      }
      break;
  }
  const toolsDisabled = choice.type === 'none';
  return {
    tools: functionTools,
    parseOptions: parseOptionsFor(toolsDisabled ? [] : functionTools, options),
    demand,
    toolsDisabled,
    innerTools: passed,
    innerToolChoice,
  };
}
