import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  createToolMiddleware,
  ToolMiddlewareError,
  type ToolMiddlewareOptions,
  xmlProtocol,
} from '../../src/ai-sdk/index.ts';
import { TOOLS_UNAVAILABLE } from '../../src/ai-sdk/prompt/tool-prompt.ts';
import { isErrorOfKind, ToolwireError } from '../../src/core/errors.ts';
import { promptText, scriptedModel, WEATHER_DEFINITIONS, weatherTools } from './support.ts';

const protocol = xmlProtocol();
const WEATHER_CALL = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Seoul' } });
const TIME_CALL = protocol.formatToolCall({ toolName: 'get_time', input: { city: 'Seoul' } });

type Choice = 'auto' | 'none' | 'required' | { type: 'tool'; toolName: 'get_weather' | 'get_time' };

function setup(outputs: string[], options: Partial<ToolMiddlewareOptions> = {}) {
  const model = scriptedModel(outputs);
  const ran: { toolName: string; input: unknown }[] = [];
  const wrapped = wrapLanguageModel({
    model,
    middleware: createToolMiddleware({ protocol, ...options }),
  });
  const call = (toolChoice: Choice) => ({
    model: wrapped,
    prompt: 'Weather in Seoul?',
    tools: weatherTools(ran),
    toolChoice,
    stopWhen: stepCountIs(1),
  });
  return { model, ran, call };
}

/** Every part of a streamText run, errors included (streamText reports them in the stream). */
async function streamParts(options: Parameters<typeof streamText>[0]) {
  const errors: unknown[] = [];
  const result = streamText({ ...options, onError: ({ error }) => void errors.push(error) });
  const parts = [];
  for await (const part of result.fullStream) parts.push(part);
  return { parts, errors };
}

describe("toolChoice 'none'", () => {
  it.each(['generate', 'stream'] as const)(
    'describes the tools as unavailable and parses no call (%s)',
    async (mode) => {
      // The model writes a call anyway: it stays text, so the SDK's own check has nothing to reject.
      const { model, ran, call } = setup([`Here:\n${WEATHER_CALL}`]);
      const options = call('none');
      const text =
        mode === 'generate' ? (await generateText(options)).text : await streamText(options).text;
      expect(text).toBe(`Here:\n${WEATHER_CALL}`);
      expect(ran).toEqual([]);
      expect(model.calls[0]!.prompt[0]).toEqual({ role: 'system', content: TOOLS_UNAVAILABLE });
      expect(promptText(model.calls[0]!)).not.toContain('get_weather');
      expect(model.calls[0]!.tools).toBeUndefined();
      expect(model.calls[0]!.toolChoice).toBeUndefined();
    },
  );
});

describe("toolChoice 'required' and a named tool", () => {
  it.each(['generate', 'stream'] as const)(
    "'required': the prompt demands a call; a call passes (%s)",
    async (mode) => {
      const { model, ran, call } = setup([WEATHER_CALL]);
      const options = call('required');
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      expect((await result.toolCalls).map((c) => c.toolName)).toEqual(['get_weather']);
      expect(ran).toHaveLength(1);
      expect(model.calls[0]!.prompt[0]).toEqual({
        role: 'system',
        content: `${protocol.formatTools(WEATHER_DEFINITIONS)}\n\nYou must call at least one of the tools above in this reply, written in the format above.`,
      });
    },
  );

  it('named: only that tool is shown, the prompt demands it, and its call passes', async () => {
    const { model, ran, call } = setup([TIME_CALL]);
    const result = await generateText(call({ type: 'tool', toolName: 'get_time' }));
    expect(result.toolCalls.map((c) => c.toolName)).toEqual(['get_time']);
    expect(ran).toEqual([{ toolName: 'get_time', input: { city: 'Seoul' } }]);
    expect(model.calls[0]!.prompt[0]).toEqual({
      role: 'system',
      content: `${protocol.formatTools([WEATHER_DEFINITIONS[1]!])}\n\nYou must call the tool "get_time" in this reply, written in the format above.`,
    });
  });

  it("generate: 'required' without a call raises a clear error instead of a silent step", async () => {
    const { ran, call } = setup(['The weather is probably fine.']);
    const error = await generateText(call('required')).catch((caught: unknown) => caught);
    expect(ToolMiddlewareError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'tool-choice-not-followed',
      toolChoice: { type: 'required' },
      text: 'The weather is probably fine.',
      attempts: 1,
    });
    expect(String((error as Error).message)).toContain(
      "toolChoice 'required' demanded a tool call",
    );
    expect(ran).toEqual([]);
  });

  it('generate: a named tool demand is not met by a call of another tool', async () => {
    const { ran, call } = setup([WEATHER_CALL]);
    const error = await generateText(call({ type: 'tool', toolName: 'get_time' })).catch(
      (caught: unknown) => caught,
    );
    expect(error).toMatchObject({
      code: 'tool-choice-not-followed',
      toolChoice: { type: 'tool', toolName: 'get_time' },
    });
    expect(ran).toEqual([]);
  });

  it.each(['generate', 'stream'] as const)(
    'named: a call of another tool is text, never run, and the retry asks for the named one (%s)',
    async (mode) => {
      // The policy the proxy follows too: a named choice allows that one tool for this reply.
      const { model, ran, call } = setup([WEATHER_CALL, TIME_CALL], { toolChoiceRetry: true });
      const options = call({ type: 'tool', toolName: 'get_time' });
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      expect((await result.toolCalls).map((c) => c.toolName)).toEqual(['get_time']);
      expect(ran).toEqual([{ toolName: 'get_time', input: { city: 'Seoul' } }]);
      expect(await result.text).toBe(WEATHER_CALL);
      expect(model.calls).toHaveLength(2);
      expect(model.calls[1]!.prompt.at(-1)).toMatchObject({
        role: 'user',
        content: [{ type: 'text', text: expect.stringContaining('call the tool "get_time"') }],
      });
    },
  );

  it("stream: the middleware's error is in the stream, and ai 7's own ToolChoiceViolationError follows", async () => {
    const { ran, call } = setup(['The weather is probably fine.']);
    const { parts, errors } = await streamParts(call('required'));
    expect(parts.filter((part) => part.type === 'tool-call')).toEqual([]);
    expect(ran).toEqual([]);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatchObject({ code: 'tool-choice-not-followed', attempts: 1 });
    expect((errors[1] as Error).name).toBe('AI_ToolChoiceViolationError');
  });

  it.each(['generate', 'stream'] as const)(
    'toolChoiceRetry: one corrective retry that calls the tool passes (%s)',
    async (mode) => {
      const { model, ran, call } = setup(['It is probably fine.', WEATHER_CALL], {
        toolChoiceRetry: true,
      });
      const options = call('required');
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      expect((await result.toolCalls).map((c) => c.input)).toEqual([{ city: 'Seoul' }]);
      expect(ran).toHaveLength(1);
      // The step holds both attempts, and the usage of both.
      expect(await result.text).toBe('It is probably fine.');
      expect((await result.usage).inputTokens).toBe(20);
      // The retry saw the first answer and the correction.
      expect(model.calls).toHaveLength(2);
      const retry = model.calls[1]!.prompt;
      expect(retry.at(-2)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'It is probably fine.' }],
      });
      expect(retry.at(-1)).toMatchObject({
        role: 'user',
        content: [
          { type: 'text', text: expect.stringContaining('must call at least one of the tools') },
        ],
      });
    },
  );

  it('toolChoiceRetry: when the retry also has no call, the error names both attempts', async () => {
    const { model, call } = setup(['No.', 'Still no.'], { toolChoiceRetry: true });
    const error = await generateText(call('required')).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: 'tool-choice-not-followed',
      attempts: 2,
      text: 'No.\n\nStill no.',
    });
    expect(model.calls).toHaveLength(2);
  });

  it("'auto' never demands anything", async () => {
    const { model, call } = setup(['Fine weather.']);
    const result = await generateText(call('auto'));
    expect(result.text).toBe('Fine weather.');
    expect(promptText(model.calls[0]!)).not.toContain('You must call');
  });

  it('a tool choice naming an unknown tool is refused with the tools it could have named', async () => {
    const { call } = setup(['x']);
    const options = call({ type: 'tool', toolName: 'get_wether' as 'get_time' });
    await expect(generateText(options)).rejects.toThrow(
      'toolChoice names the tool "get_wether", which is not among the call\'s tools ("get_weather", "get_time")',
    );
  });
});

describe('ToolMiddlewareError', () => {
  it('is a ToolwireError whose kind is its code, known by isInstance here and across copies', () => {
    const error = new ToolMiddlewareError('unknown-tool-choice', 'no such tool');
    expect(ToolwireError.isInstance(error)).toBe(true);
    expect(isErrorOfKind(error, 'unknown-tool-choice')).toBe(true);
    expect(error.kind).toBe('unknown-tool-choice');
    expect(error.code).toBe(error.kind);
    expect(error.name).toBe('ToolwireToolMiddlewareError');
    expect(ToolMiddlewareError.isInstance(error)).toBe(true);
    expect(ToolMiddlewareError.isInstance(new ToolwireError('usage', 'x'))).toBe(false);
    expect(ToolMiddlewareError.isInstance(new Error('x'))).toBe(false);
    // An error of an older copy carries only the old marker; an older copy looks for it too.
    const legacy = Symbol.for('toolwire.ai-sdk.ToolMiddlewareError');
    expect(ToolMiddlewareError.isInstance({ [legacy]: true })).toBe(true);
    expect(legacy in error).toBe(true);
  });
});
