/**
 * Faults whose markup needs nothing more than a report: a stray closing tag dropped from a call
 * that still came out, and a call cut off inside reasoning that was already shown.
 */
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { createToolMiddleware, type ProtocolFault, xmlProtocol } from '../../src/ai-sdk/index.ts';
import { hermesProtocol } from '../../src/index.ts';
import { scriptedModel, weatherTools } from './support.ts';

describe('middleware: reported markup', () => {
  it('a stray closing tag goes to onError only; the call runs', async () => {
    const faults: ProtocolFault[] = [];
    const ran: { toolName: string; input: unknown }[] = [];
    const model = wrapLanguageModel({
      model: scriptedModel([
        '<get_weather><city>Seoul</city></city></get_weather>',
        'Sunny in Seoul.',
      ]),
      middleware: createToolMiddleware({
        protocol: xmlProtocol(),
        onError: (fault) => faults.push(fault),
      }),
    });
    const result = await generateText({
      model,
      prompt: 'Weather?',
      tools: weatherTools(ran),
      stopWhen: stepCountIs(3),
    });
    expect(faults.map((fault) => [fault.code, fault.raw])).toEqual([['stray-markup', '</city>']]);
    expect(ran).toEqual([{ toolName: 'get_weather', input: { city: 'Seoul' } }]);
    expect(result.steps[0]!.text).toBe('');
  });

  it('a call in reasoning never closed, at the length limit, is reported once and not run', async () => {
    const faults: ProtocolFault[] = [];
    const ran: { toolName: string; input: unknown }[] = [];
    const output =
      '<think>Let me check. <tool_call>{"name": "get_weather", "arguments": {"city": "Seoul"}}</tool_call> and';
    const base = scriptedModel([output]);
    const model = wrapLanguageModel({
      model: {
        ...base,
        specificationVersion: base.specificationVersion,
        provider: base.provider,
        modelId: base.modelId,
        supportedUrls: base.supportedUrls,
        doGenerate: async (options) => ({
          ...(await base.doGenerate(options)),
          finishReason: { unified: 'length', raw: 'length' },
        }),
        doStream: base.doStream.bind(base),
      },
      middleware: createToolMiddleware({
        protocol: hermesProtocol(),
        onError: (fault) => faults.push(fault),
      }),
    });
    const result = await generateText({ model, prompt: 'Weather?', tools: weatherTools(ran) });
    expect(ran).toEqual([]);
    expect(faults.map((fault) => [fault.code, fault.inReasoning])).toEqual([
      ['incomplete-call', true],
    ]);
    expect(result.text).toBe('');
    expect(result.reasoningText).toContain('<tool_call>');
  });
});
