/**
 * docs/grammars.md's recipe, run: a grammar from `grammarFor` reaches the model server through
 * the AI SDK's `providerOptions` when the model is `@ai-sdk/openai-compatible`'s (which spreads
 * `providerOptions[<provider name>]` into the request body), with toolwire's middleware around it
 * and with the agent, which takes the provider's model as it is. The scripted server records each
 * body; the grammar it got is compiled by xgrammar and accepts what the server then writes, and
 * that text is read back as the call.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { JSONObject } from '@ai-sdk/provider';
import { generateText, stepCountIs, streamText, wrapLanguageModel } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgent } from '../../src/agent/index.ts';
import { createToolMiddleware } from '../../src/ai-sdk/index.ts';
import {
  type EbnfGrammar,
  type GbnfGrammar,
  grammarFor,
  hermesProtocol,
  protocolByName,
  type StructuralTag,
  type StructuralTagGrammar,
  type ToolCallProtocol,
} from '../../src/index.ts';
import { constraintFields } from '../../src/proxy/index.ts';
import { type FakeServer, startFakeOpenAIServer } from '../support/fake-openai-server.ts';
import {
  accepts,
  compileEbnf,
  compileStructuralTag,
  type EngineGrammar,
  randomWalk,
  seededRandom,
} from '../support/xgrammar.ts';
import { gbnfProblems } from '../support/xgrammar-gbnf-rules.ts';
import { WEATHER_DEFINITIONS, weatherTools } from './support.ts';

let outputs: string[] = [];
let fake: FakeServer;
beforeAll(async () => {
  fake = await startFakeOpenAIServer({ turns: () => outputs.shift() ?? '' });
});
afterAll(() => fake.close());

/** The texts the server writes next; the bodies it got so far are forgotten. */
function script(texts: string[]): void {
  outputs = [...texts];
  fake.requests.length = 0;
}

/** Compiles, asks, frees: whether the grammar the server got lets it write `text`. */
async function grammarAccepts(compile: Promise<EngineGrammar>, text: string): Promise<boolean> {
  const grammar = await compile;
  try {
    return await accepts(grammar, text);
  } finally {
    grammar.dispose();
  }
}

/**
 * A structural tag or the proxy's body fields as a provider option: `StructuralTag` is an
 * interface (no index signature) with an `unknown` JSON Schema inside, and `ConstraintFields` a
 * record of `unknown`, which the AI SDK's `JSONObject` does not take as they are.
 */
function jsonOption(
  value: StructuralTag | Readonly<Record<string, unknown>> | undefined,
): JSONObject {
  return value as unknown as JSONObject;
}

const SEOUL = { city: 'Seoul', unit: 'celsius' };

// The provider's name is the providerOptions key it reads extra body fields from.
const llamaCpp = () => createOpenAICompatible({ name: 'llamacpp', baseURL: fake.baseURL });
const vllm = () => createOpenAICompatible({ name: 'vllm', baseURL: fake.baseURL });

describe.each([
  { name: 'hermes', protocol: hermesProtocol() as ToolCallProtocol },
  { name: 'qwen3-coder', protocol: protocolByName('qwen3-coder') },
])('$name: the grammar travels in providerOptions through the middleware', ({ protocol }) => {
  const call = protocol.formatToolCall({ toolName: 'get_weather', input: SEOUL });
  const middleware = createToolMiddleware({ protocol });

  it.each(['generate', 'stream'] as const)(
    'llama.cpp: a demanded call sends the GBNF as `grammar`, and no tools (%s)',
    async (mode) => {
      const { grammar } = grammarFor(protocol, {
        tools: WEATHER_DEFINITIONS,
        toolChoice: 'required',
        syntax: 'gbnf',
      }) as GbnfGrammar;
      script([call]);
      const options = {
        model: wrapLanguageModel({ model: llamaCpp().chatModel('local-model'), middleware }),
        prompt: 'What is the weather in Seoul?',
        tools: weatherTools(),
        toolChoice: 'required' as const,
        providerOptions: { llamacpp: { grammar } },
      };
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      const calls = await result.toolCalls;
      expect(calls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([
        { toolName: 'get_weather', input: SEOUL },
      ]);

      expect(fake.requests).toHaveLength(1);
      const [body] = fake.requests;
      expect(body!.grammar).toBe(grammar);
      // llama.cpp answers 400 to a `grammar` beside `tools`; the middleware sends none.
      expect(body).not.toHaveProperty('tools');
      expect(body).not.toHaveProperty('tool_choice');
      expect(body!.stream ?? false).toBe(mode === 'stream');
      expect(gbnfProblems(grammar)).toEqual([]);
      expect(await grammarAccepts(compileEbnf(grammar), call)).toBe(true);
    },
  );

  it.each(['generate', 'stream'] as const)(
    'vLLM: a demanded call sends the structural tag as `response_format` (%s)',
    async (mode) => {
      const { structuralTag } = grammarFor(protocol, {
        tools: WEATHER_DEFINITIONS,
        toolChoice: { toolName: 'get_weather' },
        syntax: 'structural-tag',
      }) as StructuralTagGrammar;
      script([call]);
      const options = {
        model: wrapLanguageModel({ model: vllm().chatModel('served-model'), middleware }),
        prompt: 'What is the weather in Seoul?',
        tools: weatherTools(),
        toolChoice: { type: 'tool', toolName: 'get_weather' } as const,
        providerOptions: { vllm: { response_format: jsonOption(structuralTag) } },
      };
      const result = mode === 'generate' ? await generateText(options) : streamText(options);
      const calls = await result.toolCalls;
      expect(calls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([
        { toolName: 'get_weather', input: SEOUL },
      ]);

      const [body] = fake.requests;
      // The provider writes `response_format` itself only for a JSON output; the option's wins.
      expect(body!.response_format).toEqual(structuralTag);
      expect(body).not.toHaveProperty('tools');
      expect(await grammarAccepts(compileStructuralTag(structuralTag), call)).toBe(true);
    },
  );

  it('llama.cpp under auto: the whole-reply EBNF, eager, lets text and a call through', async () => {
    // The chat endpoint runs a request's grammar eagerly (it overwrites grammar_lazy and
    // grammar_triggers with the template's), so `auto` sends the grammar of the whole reply.
    const { grammar } = grammarFor(protocol, {
      tools: WEATHER_DEFINITIONS,
      toolChoice: 'auto',
      syntax: 'ebnf',
    }) as EbnfGrammar;
    const text = `Let me look that up.\n${call}`;
    script([text]);
    const result = await generateText({
      model: wrapLanguageModel({ model: llamaCpp().chatModel('local-model'), middleware }),
      prompt: 'What is the weather in Seoul?',
      tools: weatherTools(),
      providerOptions: { llamacpp: { grammar } },
    });
    expect(result.toolCalls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([
      { toolName: 'get_weather', input: SEOUL },
    ]);
    expect(fake.requests[0]!.grammar).toBe(grammar);
    expect(gbnfProblems(grammar)).toEqual([]);
    expect(await grammarAccepts(compileEbnf(grammar), text)).toBe(true);
    expect(await grammarAccepts(compileEbnf(grammar), 'No call, just text.')).toBe(true);
  });
});

describe('a grammar for one step of a loop', () => {
  it('given by prepareStep, it goes with the step that demands a call and not with the next', async () => {
    const protocol = hermesProtocol();
    const { grammar } = grammarFor(protocol, {
      tools: WEATHER_DEFINITIONS,
      toolChoice: 'required',
      syntax: 'gbnf',
    }) as GbnfGrammar;
    const call = protocol.formatToolCall({ toolName: 'get_weather', input: SEOUL });
    script([call, 'Sunny, 21 degrees in Seoul.']);
    const ran: { toolName: string; input: unknown }[] = [];
    const result = await generateText({
      model: wrapLanguageModel({
        model: llamaCpp().chatModel('local-model'),
        middleware: createToolMiddleware({ protocol }),
      }),
      prompt: 'What is the weather in Seoul?',
      tools: weatherTools(ran),
      stopWhen: stepCountIs(3),
      // A step's providerOptions are merged into the call's and cannot take a field away, so
      // the grammar is given per step, never for the whole call.
      prepareStep: ({ stepNumber }) =>
        stepNumber === 0
          ? { toolChoice: 'required', providerOptions: { llamacpp: { grammar } } }
          : { toolChoice: 'auto' },
    });
    expect(result.text).toBe('Sunny, 21 degrees in Seoul.');
    expect(ran).toEqual([{ toolName: 'get_weather', input: SEOUL }]);
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[0]!.grammar).toBe(grammar);
    expect(fake.requests[1]).not.toHaveProperty('grammar');
  });
});

describe("the proxy's constraintFields, given as providerOptions, send what the proxy sends", () => {
  // Ollama and LM Studio take a JSON Schema of the whole reply: a format whose calls are JSON.
  it.each([
    { kind: 'llama.cpp', format: 'hermes', field: 'grammar' },
    { kind: 'vllm', format: 'hermes', field: 'response_format' },
    { kind: 'sglang', format: 'qwen3-coder', field: 'response_format' },
    { kind: 'ollama', format: 'xlam', field: 'response_format' },
    { kind: 'lmstudio', format: 'llama3', field: 'response_format' },
  ] as const)(
    '$kind, $format: the body holds $field, and the call is read',
    async ({ kind, format, field }) => {
      const protocol = protocolByName(format);
      const fields = constraintFields(kind, protocol, {
        tools: WEATHER_DEFINITIONS,
        toolChoice: 'required',
        mode: 'demanded',
      });
      expect(fields).toHaveProperty(field);
      script([protocol.formatToolCall({ toolName: 'get_weather', input: SEOUL })]);
      const provider = createOpenAICompatible({ name: 'local', baseURL: fake.baseURL });
      const result = await generateText({
        model: wrapLanguageModel({
          model: provider.chatModel('local-model'),
          middleware: createToolMiddleware({ protocol }),
        }),
        prompt: 'What is the weather in Seoul?',
        tools: weatherTools(),
        toolChoice: 'required',
        providerOptions: { local: jsonOption(fields) },
      });
      expect(result.toolCalls.map(({ toolName, input }) => ({ toolName, input }))).toEqual([
        { toolName: 'get_weather', input: SEOUL },
      ]);
      const [body] = fake.requests;
      expect(body).toMatchObject(JSON.parse(JSON.stringify(fields)));
      expect(body).not.toHaveProperty('tools');
    },
  );
});

describe('what a server constrained by the grammar writes is read as valid calls', () => {
  it('hermes, required: 12 random replies the GBNF allows each become calls of declared tools with valid input', async () => {
    const protocol = hermesProtocol();
    const { grammar } = grammarFor(protocol, {
      tools: WEATHER_DEFINITIONS,
      toolChoice: 'required',
      syntax: 'gbnf',
    }) as GbnfGrammar;
    const compiled = await compileEbnf(grammar);
    const random = seededRandom(24);
    const replies: string[] = [];
    try {
      while (replies.length < 12) {
        const reply = await randomWalk(compiled, random, { maxBytes: 600 });
        if (reply !== undefined) replies.push(reply);
      }
    } finally {
      compiled.dispose();
    }
    const middleware = createToolMiddleware({ protocol });
    for (const reply of replies) {
      script([reply]);
      const ran: { toolName: string; input: unknown }[] = [];
      const result = await generateText({
        model: wrapLanguageModel({ model: llamaCpp().chatModel('local-model'), middleware }),
        prompt: 'Weather or time, anywhere.',
        tools: weatherTools(ran),
        toolChoice: 'required',
        providerOptions: { llamacpp: { grammar } },
      });
      expect(result.toolCalls.length, reply).toBeGreaterThan(0);
      // Every call ran: the AI SDK validated its input against the tool's schema first.
      expect(ran, reply).toHaveLength(result.toolCalls.length);
      expect(result.toolResults, reply).toHaveLength(result.toolCalls.length);
    }
  });
});

describe('the agent passes callOptions.providerOptions on to every model call', () => {
  const agentTools = {
    get_weather: {
      description: 'Current weather for a city',
      inputSchema: WEATHER_DEFINITIONS[0]!.inputSchema,
      execute: (input: { city: string }) => `${input.city}: 21°C, sunny`,
    },
  };
  // The grammar's tools are the agent's tools as definitions (for a format whose agent
  // completes with a tool, such as xml, its completion tool too: declare it to know its schema).
  const definitions = [WEATHER_DEFINITIONS[0]!];

  it('llama.cpp: hermes under auto gets the whole-reply EBNF on each turn, and the call runs', async () => {
    const protocol = hermesProtocol();
    const { grammar } = grammarFor(protocol, {
      tools: definitions,
      toolChoice: 'auto',
      syntax: 'ebnf',
    }) as EbnfGrammar;
    const call = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    script([call, 'It is 21°C and sunny in Oslo.']);
    const run = runAgent({
      model: llamaCpp().chatModel('local-model'),
      protocol,
      tools: agentTools,
      prompt: 'Weather in Oslo?',
      callOptions: { providerOptions: { llamacpp: { grammar } } },
    });
    const result = await run.result;
    expect(result.stopReason).toBe('completed');
    expect(result.answer).toBe('It is 21°C and sunny in Oslo.');
    expect(fake.requests).toHaveLength(2);
    for (const body of fake.requests) {
      expect(body.grammar).toBe(grammar);
      expect(body).not.toHaveProperty('tools');
    }
    expect(await grammarAccepts(compileEbnf(grammar), call)).toBe(true);
    expect(await grammarAccepts(compileEbnf(grammar), 'It is 21°C and sunny in Oslo.')).toBe(true);
  });

  it('llama.cpp: xml completes with a tool, so every turn is one call: the required GBNF, one call at most', async () => {
    const protocol = protocolByName('xml');
    // Declared by the caller, the completion tool is in the grammar's tools as the agent sees it.
    const completion = {
      name: 'attempt_completion',
      description: 'Finish the task with the final answer.',
      inputSchema: {
        type: 'object',
        properties: { result: { type: 'string' } },
        required: ['result'],
        additionalProperties: false,
      },
    } as const;
    const { grammar } = grammarFor(protocol, {
      tools: [...definitions, completion],
      toolChoice: 'required',
      parallelToolCalls: false,
      syntax: 'gbnf',
    }) as GbnfGrammar;
    const weather = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    const done = protocol.formatToolCall({
      toolName: 'attempt_completion',
      input: { result: 'It is 21°C and sunny in Oslo.' },
    });
    script([weather, done]);
    const run = runAgent({
      model: llamaCpp().chatModel('local-model'),
      protocol,
      tools: { ...agentTools, attempt_completion: completion },
      prompt: 'Weather in Oslo?',
      callOptions: { providerOptions: { llamacpp: { grammar } } },
    });
    const result = await run.result;
    expect(result.stopReason).toBe('completed');
    expect(result.answer).toBe('It is 21°C and sunny in Oslo.');
    expect(fake.requests.map((body) => body.grammar)).toEqual([grammar, grammar]);
    expect(gbnfProblems(grammar)).toEqual([]);
    for (const text of [weather, done])
      expect(await grammarAccepts(compileEbnf(grammar), text), text).toBe(true);
    expect(await grammarAccepts(compileEbnf(grammar), 'It is sunny.')).toBe(false);
  });

  it('vLLM: the structural tag under auto (triggered on the call opener)', async () => {
    const protocol = hermesProtocol();
    const { structuralTag } = grammarFor(protocol, {
      tools: definitions,
      toolChoice: 'auto',
      syntax: 'structural-tag',
    }) as StructuralTagGrammar;
    const call = protocol.formatToolCall({ toolName: 'get_weather', input: { city: 'Oslo' } });
    script([`Checking.\n${call}`, 'Sunny in Oslo.']);
    const run = runAgent({
      model: vllm().chatModel('served-model'),
      protocol,
      tools: agentTools,
      prompt: 'Weather in Oslo?',
      callOptions: { providerOptions: { vllm: { response_format: jsonOption(structuralTag) } } },
    });
    const result = await run.result;
    expect(result.stopReason).toBe('completed');
    expect(result.answer).toBe('Sunny in Oslo.');
    for (const body of fake.requests) expect(body.response_format).toEqual(structuralTag);
    expect(await grammarAccepts(compileStructuralTag(structuralTag), `Checking.\n${call}`)).toBe(
      true,
    );
  });
});
