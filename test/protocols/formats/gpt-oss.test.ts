import { describe, expect, it } from 'vitest';
import { gptOssFormat, gptOssProtocol } from '../../../src/protocols/gpt-oss/index.ts';
import {
  callsIn,
  errorsIn,
  itKeepsTheStreamInvariants,
  itStaysLinear,
  partsOf,
  reasoningIn,
  textIn,
} from './json-format-checks.ts';

const harmony = gptOssProtocol();
const analysis = "<|channel|>analysis<|message|>I'm\nthinking<|end|>";

describe('gpt-oss', () => {
  it('reads analysis as reasoning, a commentary preamble as text and a call (llama.cpp)', () => {
    const parts = partsOf(
      harmony,
      `${analysis}<|start|>assistant<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo", "days": "2"}<|call|>`,
    );
    expect(reasoningIn(parts)).toBe("I'm\nthinking");
    expect(textIn(parts)).toBe('Checking.');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo', days: 2 } }]);
  });

  it("reads the final channel's message as the answer, its markup dropped", () => {
    const parts = partsOf(
      harmony,
      `${analysis}<|start|>assistant<|channel|>final<|message|>Hello, world!<|return|>`,
    );
    expect(textIn(parts)).toBe('Hello, world!');
    expect(callsIn(parts)).toEqual([]);
  });

  it('reads the recipient in the role header, after <|start|>assistant or at the start', () => {
    expect(
      callsIn(
        partsOf(
          harmony,
          `${analysis}<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "A"}<|call|>`,
        ),
      ),
    ).toEqual([{ name: 'get_weather', input: { city: 'A' } }]);
    expect(
      callsIn(
        partsOf(
          harmony,
          ' to=functions.search<|channel|>commentary <|constrain|>json<|message|>{"query": "q"}',
        ),
      ),
    ).toEqual([{ name: 'search', input: { query: 'q' } }]);
  });

  it('reads calls on the analysis channel and several calls in a row', () => {
    const call = (channel: string, city: string) =>
      `<|start|>assistant<|channel|>${channel} to=functions.get_weather <|constrain|>json<|message|>{"city": "${city}"}<|call|>`;
    expect(callsIn(partsOf(harmony, call('analysis', 'A') + call('commentary', 'B')))).toEqual([
      { name: 'get_weather', input: { city: 'A' } },
      { name: 'get_weather', input: { city: 'B' } },
    ]);
  });

  it('reads what remains when the server strips special tokens (Ollama, LM Studio, vLLM reports)', () => {
    const parts = partsOf(
      harmony,
      'analysisThe user wants the weather.assistantcommentary to=functions.get_weather json{"city": "Oslo"}',
    );
    expect(reasoningIn(parts)).toBe('The user wants the weather.');
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
    const answer = partsOf(harmony, 'analysisUser says hi.assistantfinalHello! How can I help?');
    expect(reasoningIn(answer)).toBe('User says hi.');
    expect(textIn(answer)).toBe('Hello! How can I help?');
  });

  it('leaves a long stripped-call header to prose: a real call after it is still read', () => {
    const call =
      '<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}<|call|>';
    const parts = partsOf(
      harmony,
      `commentary to=functions. is how the stripped header begins, and here is none at all. ${call}`,
    );
    expect(callsIn(parts)).toEqual([{ name: 'get_weather', input: { city: 'Oslo' } }]);
  });

  it('keeps prose that merely starts with "analysis", or mentions it later, as text', () => {
    expect(textIn(partsOf(harmony, 'analysis of the data:\nanalysisX'))).toBe(
      'analysis of the data:\nanalysisX',
    );
  });

  it('keeps an undeclared recipient as text and reports a cut-off call', () => {
    const unknown =
      '<|channel|>commentary to=functions.fly <|constrain|>json<|message|>{"to": "moon"}<|call|>';
    expect(callsIn(partsOf(harmony, unknown))).toEqual([]);
    expect(textIn(partsOf(harmony, unknown))).toContain('functions.fly');
    const cut = partsOf(
      harmony,
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Os',
    );
    expect(callsIn(cut)).toEqual([]);
    expect(errorsIn(cut).map((error) => error.code)).toEqual(['incomplete-call']);
    const interrupted = partsOf(
      harmony,
      '<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "Oslo"}',
      { interrupted: true },
    );
    expect(callsIn(interrupted)).toEqual([]);
  });

  it("renders harmony's developer message with TypeScript types, calls and results", () => {
    const prompt = harmony.formatTools([
      {
        name: 'get_weather',
        description: 'Gets the weather.',
        inputSchema: {
          type: 'object',
          properties: {
            city: { type: 'string', description: 'The city' },
            format: { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius' },
          },
          required: ['city'],
        },
      },
      { name: 'get_location', inputSchema: { type: 'object' } },
    ]);
    expect(prompt).toContain(
      '## functions\n\nnamespace functions {\n\n// Gets the weather.\ntype get_weather = (_: {\n// The city\ncity: string,\nformat?: "celsius" | "fahrenheit", // default: celsius\n}) => any;\n\ntype get_location = () => any;\n\n} // namespace functions',
    );
    expect(harmony.formatToolResponse({ toolName: 'get_weather', output: { sunny: true } })).toBe(
      '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"\\u0073unny":true}<|end|>',
    );
    // A string result is JSON text as an error's is, so both cost the same per character.
    expect(
      harmony.formatToolResponse([
        { toolName: 'get_weather', output: 'a\nb' },
        { toolName: 'get_weather', output: 'a\nb', isError: true },
      ]),
    ).toBe(
      [
        '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>"a\\nb"<|end|>',
        '<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>{"error":"a\\nb"}<|end|>',
      ].join('\n'),
    );
    expect(gptOssFormat.toolNamesIn?.('commentary to=functions.fly json{}')).toEqual(['fly']);
  });

  itKeepsTheStreamInvariants(harmony, [
    '<|channel|>',
    'analysis',
    'commentary',
    'final',
    '<|message|>',
    '<|start|>assistant',
    ' to=functions.get_weather',
    '<|constrain|>json',
    '<|end|>',
    '<|call|>',
    '<|return|>',
    'assistantfinal',
    'commentary to=functions.',
    ' json',
  ]);

  itStaysLinear(
    harmony,
    (index) =>
      `<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city": "c${index}"}<|call|>`,
    (argument) =>
      `<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>{"path": "a", "content": "${argument}"}<|call|>`,
  );
});
