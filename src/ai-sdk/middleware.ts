import type { LanguageModelV4CallOptions, LanguageModelV4Middleware } from '@ai-sdk/provider';
import { type CallPlan, planCall } from './call-plan.ts';
import { type ResolvedOptions, resolveOptions, type ToolMiddlewareOptions } from './options.ts';
import { generateWithTools } from './output/generate.ts';
import { streamWithTools } from './output/stream.ts';
import { renderHistory } from './prompt/history.ts';
import { insertToolPrompt, toolPromptText } from './prompt/tool-prompt.ts';

function transformedParams(
  params: LanguageModelV4CallOptions,
  plan: CallPlan,
  options: ResolvedOptions,
): LanguageModelV4CallOptions {
  let prompt = renderHistory(params.prompt, options.protocol);
  const toolPrompt = toolPromptText(plan, options);
  if (toolPrompt !== undefined) prompt = insertToolPrompt(prompt, toolPrompt, options.placement);
  const { tools: _tools, toolChoice: _toolChoice, ...rest } = params;
  return {
    ...rest,
    prompt,
    ...(plan.innerTools ? { tools: plan.innerTools } : {}),
    ...(plan.innerToolChoice ? { toolChoice: plan.innerToolChoice } : {}),
  };
}

/**
 * Tool calling through a text protocol, for models without native tool calling (or whose native
 * tool calling is worse than their text): `wrapLanguageModel({ model, middleware })`.
 *
 * `transformParams` takes the native `tools` and `toolChoice` away from the inner model, describes
 * the tools in the prompt and re-renders earlier calls and results in the protocol;
 * `wrapGenerate` / `wrapStream` read the calls back out of the model's text.
 */
export function createToolMiddleware(options: ToolMiddlewareOptions): LanguageModelV4Middleware {
  const resolved = resolveOptions(options);
  // The params transformParams returns are the very object the wrap step receives, so the plan
  // made from the original tools travels with it (nothing is smuggled through providerOptions).
  const plans = new WeakMap<LanguageModelV4CallOptions, CallPlan>();
  const planFor = (params: LanguageModelV4CallOptions): CallPlan =>
    // Without our transformParams (a caller using wrapGenerate alone), plan from the params.
    plans.get(params) ?? planCall(params, resolved);

  return {
    specificationVersion: 'v4',
    async transformParams({ params }) {
      const plan = planCall(params, resolved);
      const transformed = transformedParams(params, plan, resolved);
      plans.set(transformed, plan);
      return transformed;
    },
    wrapGenerate({ doGenerate, params, model }) {
      return generateWithTools(doGenerate, model, params, planFor(params), resolved);
    },
    wrapStream({ doStream, params, model }) {
      return streamWithTools(doStream, model, params, planFor(params), resolved);
    },
  };
}
