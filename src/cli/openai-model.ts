/**
 * The model `agent` and `serve` talk to: a chat model at an OpenAI-compatible endpoint, through
 * `@ai-sdk/openai-compatible`, an optional peer dependency (the commands check it is installed
 * before loading this module).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { ModelSetting } from './model-settings.ts';

/**
 * The chat model at an OpenAI-compatible endpoint (TOOLWIRE_API_KEY when the server wants one).
 * Streams ask for token usage (`stream_options.include_usage`): OpenAI, vLLM and others send it in
 * a stream only when asked. A server that still sends none leaves the usage unknown.
 */
export function openAICompatibleModel({ baseURL, modelName }: ModelSetting): LanguageModelV4 {
  return createOpenAICompatible({
    name: 'toolwire',
    baseURL,
    includeUsage: true,
    ...(process.env.TOOLWIRE_API_KEY ? { apiKey: process.env.TOOLWIRE_API_KEY } : {}),
  }).chatModel(modelName);
}
