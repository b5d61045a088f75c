import { apertusFormat } from './apertus/index.ts';
import { commandRFormat } from './command-r/index.ts';
import { deepseekFormat } from './deepseek/index.ts';
import { CALLS_RUN_TOGETHER, type FormatEntry } from './define/format-entry.ts';
import { executeFormat } from './execute/index.ts';
import { firefunctionFormat } from './firefunction/index.ts';
import { aprielFormat } from './formats/apriel.ts';
import { arrowCallsFormat } from './formats/arrow-calls.ts';
import { gemma4Format } from './formats/gemma4.ts';
import { gigachatFormat } from './formats/gigachat.ts';
import { gigachatGcmlFormat } from './formats/gigachat-gcml.ts';
import { hunyuanA13bFormat } from './formats/hunyuan-a13b.ts';
import { hunyuanHyFormat } from './formats/hunyuan-hy.ts';
import { internlmFormat } from './formats/internlm.ts';
import { jambaFormat } from './formats/jamba.ts';
import { kimiK3Format } from './formats/kimi-k3.ts';
import { longcatFormat } from './formats/longcat.ts';
import { minicpmFormat } from './formats/minicpm.ts';
import { minimaxM1Format } from './formats/minimax-m1.ts';
import { minimaxM3Format } from './formats/minimax-m3.ts';
import { museGlimmerFormat } from './formats/muse-glimmer.ts';
import { solarOpenFormat } from './formats/solar-open.ts';
import { step3Format } from './formats/step3.ts';
import { functionaryFormat } from './functionary/index.ts';
import { functionGemmaFormat } from './functiongemma/index.ts';
import { glmFormat } from './glm/index.ts';
import { gptOssFormat } from './gpt-oss/index.ts';
import { graniteFormat } from './granite/index.ts';
import { hermesProtocol } from './hermes/index.ts';
import { kimiK2Format } from './kimi-k2/index.ts';
import { llama3Format } from './llama3/index.ts';
import { minimaxFormat } from './minimax/index.ts';
import { mistralFormat } from './mistral/index.ts';
import { pythonicFormat } from './pythonic/index.ts';
import { qwen3CoderFormat } from './qwen3-coder/index.ts';
import { seedOssFormat } from './seed-oss/index.ts';
import { xlamFormat } from './xlam/index.ts';
import { xmlProtocol } from './xml/index.ts';
import { xmlToolNamesIn } from './xml/tool-names.ts';

/**
 * Every format toolwire reads, in the order model ids are matched against them (narrower
 * families first). Adding a format is one entry here and its own folder.
 */
export const FORMATS: readonly FormatEntry[] = [
  {
    name: 'xml',
    aliases: ['probe', 'cline'],
    families: "Probe's XML protocol; Cline and Roo Code style agents",
    example: '<get_weather><city>Oslo</city></get_weather>',
    create: xmlProtocol,
    models: [],
    agent: { actionsPerTurn: 'one', completion: 'tool' },
    toolNamesIn: xmlToolNamesIn,
  },
  executeFormat,
  qwen3CoderFormat,
  deepseekFormat,
  seedOssFormat,
  glmFormat,
  minimaxFormat,
  kimiK3Format,
  kimiK2Format,
  gptOssFormat,
  // Gemma 4 before FunctionGemma, which reports Gemma 4's `<|tool_call>` as another family's.
  gemma4Format,
  functionGemmaFormat,
  functionaryFormat,
  firefunctionFormat,
  xlamFormat,
  apertusFormat,
  commandRFormat,
  graniteFormat,
  // The families of 2026, each a FormatSpec (formats/).
  minimaxM1Format,
  minimaxM3Format,
  internlmFormat,
  hunyuanA13bFormat,
  hunyuanHyFormat,
  jambaFormat,
  aprielFormat,
  gigachatFormat,
  gigachatGcmlFormat,
  longcatFormat,
  step3Format,
  solarOpenFormat,
  museGlimmerFormat,
  minicpmFormat,
  {
    name: 'hermes',
    aliases: ['qwen', 'qwen2.5', 'qwen3', 'nemotron', 'hermes_2_pro'],
    families: 'Hermes 2 Pro/3, Qwen 2.5/3, QwQ, Nemotron, Granite 4, LFM2 (JSON)',
    example: '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>',
    create: () => hermesProtocol(),
    models: [/hermes/, /qwen/, /qwq/, /nemotron/, /granite-?4/],
    agent: CALLS_RUN_TOGETHER,
  },
  mistralFormat,
  llama3Format,
  pythonicFormat,
  // A plain-text fallback some agents' models write: read only for declared tools, last.
  arrowCallsFormat,
];

/** The names `protocolByName` takes: every format, and `auto` (read any of them). */
export const PROTOCOL_NAMES = [
  'xml',
  'execute',
  'qwen3-coder',
  'deepseek',
  'seed-oss',
  'glm',
  'minimax',
  'kimi-k3',
  'kimi-k2',
  'gpt-oss',
  'gemma4',
  'functiongemma',
  'functionary',
  'firefunction',
  'xlam',
  'apertus',
  'command-r',
  'granite',
  'minimax-m1',
  'minimax-m3',
  'internlm',
  'hunyuan-a13b',
  'hunyuan-hy',
  'jamba',
  'apriel',
  'gigachat',
  'gigachat-gcml',
  'longcat',
  'step3',
  'solar-open',
  'muse-glimmer',
  'minicpm',
  'hermes',
  'mistral',
  'llama3',
  'pythonic',
  'arrow-calls',
  'auto',
] as const;
export type ProtocolName = (typeof PROTOCOL_NAMES)[number];

const byName = new Map<string, FormatEntry>();
for (const entry of FORMATS) {
  byName.set(entry.name, entry);
  for (const alias of entry.aliases) byName.set(alias, entry);
}

/** The registry entry of a name or alias (case-insensitive), if any. */
export function formatEntry(name: string): FormatEntry | undefined {
  return byName.get(name.toLowerCase());
}

export function isProtocolName(name: string): name is ProtocolName {
  return name.toLowerCase() === 'auto' || byName.has(name.toLowerCase());
}

/** The hermes entry: the format of models no pattern knows (most open models read it). */
const FALLBACK = formatEntry('hermes')!;

/**
 * The format a model is trained on, from its id (`qwen3-coder:30b`, `Qwen/Qwen3-Coder-30B-A3B`,
 * `gpt-oss:20b`, `mistral-small3.2`): `hermes` when no family matches.
 */
export function formatForModel(modelId: string): FormatEntry {
  const id = modelId.trim().toLowerCase();
  for (const entry of FORMATS) {
    if (entry.models.some((pattern) => pattern.test(id))) return entry;
  }
  return FALLBACK;
}
