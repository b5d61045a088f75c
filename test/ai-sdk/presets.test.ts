import type {
  LanguageModelV3Middleware,
  LanguageModelV4CallOptions,
  LanguageModelV4Middleware,
} from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  executeProtocol,
  executeToolMiddleware,
  hermesProtocol,
  hermesToolMiddleware,
  type ToolCallProtocol,
  xmlProtocol,
  xmlToolMiddleware,
} from '../../src/ai-sdk/index.ts';
import {
  executeToolMiddlewareV3,
  hermesToolMiddlewareV3,
  xmlToolMiddlewareV3,
} from '../../src/ai-sdk/v3.ts';
import { WEATHER_DEFINITIONS, WEATHER_FUNCTION_TOOLS } from './support.ts';

function params(): LanguageModelV4CallOptions {
  return {
    prompt: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: [{ type: 'text', text: 'Weather in Seoul?' }] },
    ],
    // New tool objects at every call, as the AI SDK hands them over at every step.
    tools: WEATHER_FUNCTION_TOOLS.map((tool) => ({ ...tool })),
  };
}

async function systemText(middleware: LanguageModelV4Middleware | LanguageModelV3Middleware) {
  const transform = middleware.transformParams as LanguageModelV4Middleware['transformParams'];
  const out = await transform!({
    type: 'stream',
    params: params(),
    model: new MockLanguageModelV4(),
  });
  return out.prompt[0]!.content;
}

const PRESETS: {
  name: string;
  protocol: () => ToolCallProtocol;
  v4: typeof xmlToolMiddleware;
  v3: typeof xmlToolMiddlewareV3;
}[] = [
  { name: 'xml', protocol: xmlProtocol, v4: xmlToolMiddleware, v3: xmlToolMiddlewareV3 },
  {
    name: 'hermes',
    protocol: hermesProtocol,
    v4: hermesToolMiddleware,
    v3: hermesToolMiddlewareV3,
  },
  {
    name: 'execute',
    protocol: executeProtocol,
    v4: executeToolMiddleware,
    v3: executeToolMiddlewareV3,
  },
];

// The presets share one protocol each (so a middleware made per request reuses its caches); a
// shared protocol must not carry one middleware's options into another.
describe.each(PRESETS)('$name preset', ({ protocol, v4, v3 }) => {
  const section = protocol().formatTools(WEATHER_DEFINITIONS);

  it('describes the tools as a fresh protocol does, every time it is made', async () => {
    for (let made = 0; made < 3; made++) {
      expect(await systemText(v4())).toBe(`You are terse.\n\n${section}`);
    }
  });

  it('keeps each middleware to its own options', async () => {
    const first = v4({ placement: 'system-start' });
    const second = v4();
    expect(await systemText(first)).toBe(`${section}\n\nYou are terse.`);
    expect(await systemText(second)).toBe(`You are terse.\n\n${section}`);
    expect(await systemText(first)).toBe(`${section}\n\nYou are terse.`);
  });

  it('gives the V3 variant the same prompt', async () => {
    expect(await systemText(v3({ placement: 'system-start' }))).toBe(
      await systemText(v4({ placement: 'system-start' })),
    );
  });
});
