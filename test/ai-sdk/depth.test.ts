/** Nesting far deeper than maxDepth reaches the middleware as a reported fault, never a throw. */
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/index.ts';
import { createToolMiddleware, type ProtocolFault } from '../../src/ai-sdk/index.ts';
import { PROTOCOLS, scriptedModel, weatherTools } from './support.ts';

const DEEP = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
const OUTPUTS: Record<string, string> = {
  xml: `<get_weather>{"city": ${DEEP}}</get_weather>`,
  hermes: `<tool_call>{"name": "get_weather", "arguments": {"city": ${DEEP}}}</tool_call>`,
  execute: `<execute>[{"name": "get_weather", "args": {"city": ${DEEP}}}]</execute>`,
};

describe.each(PROTOCOLS)('$name: 100,000 levels of nesting', ({ name, protocol }) => {
  it('generateText and streamText report too-deep through onError and go on', async () => {
    for (const mode of ['generate', 'stream'] as const) {
      const faults: ProtocolFault[] = [];
      const ran: { toolName: string; input: unknown }[] = [];
      const model = wrapLanguageModel({
        model: scriptedModel([OUTPUTS[name]!, 'Sorry.']),
        middleware: createToolMiddleware({ protocol, onError: (fault) => faults.push(fault) }),
      });
      const options = {
        model,
        prompt: 'Weather?',
        tools: weatherTools(ran),
        stopWhen: stepCountIs(3),
      };
      const text =
        mode === 'generate' ? (await generateText(options)).text : await streamText(options).text;
      expect(
        faults.map((fault) => fault.code),
        mode,
      ).toEqual(['too-deep']);
      expect(ran).toEqual([]);
      expect(text).toContain('Sorry.');
    }
  });

  it('runAgent tells the model and goes on', async () => {
    const model = scriptedModel([
      OUTPUTS[name]!,
      name === 'xml'
        ? '<attempt_completion><result>Sorry.</result></attempt_completion>'
        : 'Sorry.',
    ]);
    const run = runAgent({
      model,
      protocol: name as 'xml',
      tools: {
        get_weather: {
          inputSchema: { type: 'object', properties: { city: {} }, required: ['city'] },
          execute: async () => 'sunny',
        },
      },
      prompt: 'Weather?',
    });
    for await (const _event of run) {
      // drained
    }
    const result = await run.result;
    expect(result.stopReason).toBe('completed');
    expect(result.answer).toContain('Sorry.');
  });
});
