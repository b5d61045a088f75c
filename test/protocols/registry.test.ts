/**
 * The registry of formats: one entry per format, names and aliases unique, every name usable
 * everywhere, and model ids mapped to the format the model is trained on.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FORMATS,
  formatEntry,
  formatForModel,
  isProtocolName,
  PROTOCOL_NAMES,
  protocolByName,
  protocolForModel,
} from '../../src/index.ts';

describe('registry', () => {
  it('lists every format once, and auto, in PROTOCOL_NAMES', () => {
    expect([...PROTOCOL_NAMES].sort()).toEqual(
      [...FORMATS.map((entry) => entry.name), 'auto'].sort(),
    );
  });

  it('has no name or alias twice', () => {
    const all = FORMATS.flatMap((entry) => [entry.name, ...entry.aliases]).map((name) =>
      name.toLowerCase(),
    );
    expect(all.length).toBe(new Set(all).size);
    expect(all).not.toContain('auto');
    expect(all).not.toContain('model');
  });

  it('makes each format by its name and by each alias, in any case', () => {
    for (const entry of FORMATS) {
      expect(entry.create().name).toBe(entry.name);
      for (const name of [entry.name, ...entry.aliases, entry.name.toUpperCase()]) {
        expect(isProtocolName(name)).toBe(true);
        expect(formatEntry(name)).toBe(entry);
        expect(protocolByName(name).name).toBe(entry.name);
      }
    }
  });

  it('names the choices when a name is unknown', () => {
    expect(isProtocolName('yaml')).toBe(false);
    expect(() => protocolByName('yaml')).toThrow(/unknown protocol "yaml": expected one of xml, /);
  });

  it('says which model families write each format, with an example the format reads', () => {
    const tools = ['get_weather', 'get_time'].map((name) => ({
      name,
      inputSchema: { type: 'object' },
    }));
    for (const entry of FORMATS) {
      expect(entry.families.length).toBeGreaterThan(0);
      const calls = entry
        .create()
        .parseGeneratedText(entry.example, { tools })
        .filter((part) => part.type === 'tool-call');
      expect(calls.length, entry.name).toBeGreaterThan(0);
      expect(calls[0]!.toolName, entry.name).toBe('get_weather');
    }
  });
});

describe('documentation', () => {
  it('lists every format in docs/formats.md and the README, with its example call', () => {
    const docs = readFileSync(new URL('../../docs/formats.md', import.meta.url), 'utf8');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const entry of FORMATS) {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${entry.name}\` `));
      expect(row, entry.name).toBeDefined();
      expect(readme, entry.name).toContain(`\`${entry.name}\``);
    }
  });
});

describe('protocolForModel', () => {
  const cases: [string, string][] = [
    ['qwen3-coder:30b', 'qwen3-coder'],
    ['Qwen/Qwen3-Coder-30B-A3B-Instruct', 'qwen3-coder'],
    ['qwen2.5:7b', 'hermes'],
    ['qwen2.5-coder:7b', 'hermes'],
    ['NousResearch/Hermes-3-Llama-3.1-8B', 'hermes'],
    ['mistral-small3.2', 'mistral'],
    ['mistralai/Devstral-Small-2507', 'mistral'],
    ['gpt-oss:20b', 'gpt-oss'],
    ['openai/gpt-oss-120b', 'gpt-oss'],
    ['llama3.1:8b', 'llama3'],
    ['meta-llama/Llama-3.3-70B-Instruct', 'llama3'],
    ['llama3.2', 'pythonic'],
    ['llama4:scout', 'pythonic'],
    ['glm-4.6', 'glm'],
    ['zai-org/GLM-4.5-Air', 'glm'],
    ['kimi-k2', 'kimi-k2'],
    ['moonshotai/Kimi-K2-Instruct', 'kimi-k2'],
    ['deepseek-v3.1', 'deepseek'],
    ['deepseek-r1:14b', 'deepseek'],
    ['granite3.3', 'granite'],
    ['granite4:micro', 'hermes'],
    ['MiniMax-M2', 'minimax'],
    ['ByteDance-Seed/Seed-OSS-36B-Instruct', 'seed-oss'],
    ['command-r7b', 'command-r'],
    ['firefunction-v2', 'firefunction'],
    ['microsoft/Phi-4-mini-instruct', 'firefunction'],
    ['phi4-mini:3.8b', 'firefunction'],
    ['poolside/Laguna-XS.2', 'glm'],
    ['Salesforce/Llama-xLAM-2-8b-fc-r', 'xlam'],
    ['swiss-ai/Apertus-8B-Instruct-2509', 'apertus'],
    ['meetkai/functionary-small-v3.2', 'functionary'],
    ['functiongemma', 'functiongemma'],
    ['some-unknown-model', 'hermes'],
  ];
  for (const [modelId, format] of cases) {
    it.runIf(formatEntry(format) !== undefined)(`${modelId} → ${format}`, () => {
      expect(formatForModel(modelId).name).toBe(format);
      expect(protocolForModel(modelId).name).toBe(format);
    });
  }
});
