/**
 * `toolwire grammar`: prints the grammar that makes a model server write only calls the format's
 * parser reads, for a tools file and a tool choice, in the syntax the server takes.
 */
import type { ToolCallProtocol } from '../core/index.ts';
import {
  GRAMMAR_SYNTAXES,
  type GrammarSyntax,
  type GrammarToolChoice,
  GrammarUnsupportedError,
  grammarFor,
} from '../protocols/grammar/index.ts';
import { parseCommandLine } from './command-line.ts';
import { FORMAT_FILE_FLAGS, formatFileChoice } from './format-flags.ts';
import { readFormatFile } from './format-source.ts';
import { HELP_OPTION, helpOf } from './help.ts';
import { parseProtocol } from './parse-command.ts';
import { readToolsFile } from './read-tools.ts';
import { GRAMMAR_USAGE } from './usage.ts';
import { UsageError } from './usage-error.ts';

interface Output {
  write(text: string): void;
}

function toolChoiceOf(value: string | undefined): GrammarToolChoice {
  if (value === undefined || value === 'auto' || value === 'required' || value === 'none')
    return value ?? 'auto';
  if (value.trim() === '')
    throw new UsageError('--tool-choice needs auto, required, none or a tool name');
  return { toolName: value };
}

function syntaxOf(value: string | undefined): GrammarSyntax {
  const known = GRAMMAR_SYNTAXES.find((syntax) => syntax === value);
  if (known) return known;
  throw new UsageError(
    value === undefined
      ? `missing --syntax (${GRAMMAR_SYNTAXES.join(', ')})`
      : `--syntax must be one of ${GRAMMAR_SYNTAXES.join(', ')}, not "${value}"`,
  );
}

/** Runs `toolwire grammar`; resolves with the exit status. */
export async function grammarCommand(
  args: string[],
  out: Output = process.stdout,
  err: Output = process.stderr,
): Promise<number> {
  const { values } = parseCommandLine('grammar', args, {
    ...HELP_OPTION,
    protocol: { type: 'string' },
    ...FORMAT_FILE_FLAGS,
    model: { type: 'string' },
    tools: { type: 'string' },
    'tool-choice': { type: 'string' },
    'no-parallel': { type: 'boolean' },
    syntax: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    out.write(helpOf(GRAMMAR_USAGE));
    return 0;
  }
  const syntax = syntaxOf(values.syntax);
  const toolChoice = toolChoiceOf(values['tool-choice']);
  if (values.tools === undefined) throw new UsageError('missing --tools <file.json>');
  const fromFile = formatFileChoice(values);
  if (fromFile && values.model !== undefined)
    throw new UsageError(
      `--model chooses the format of a model, and --${fromFile.flag} gives one: give one of them`,
    );
  const protocol: ToolCallProtocol = fromFile
    ? (await readFormatFile(fromFile)).protocol
    : parseProtocol(values);
  const tools = await readToolsFile(values.tools);
  let grammar: ReturnType<typeof grammarFor>;
  try {
    grammar = grammarFor(protocol, {
      tools,
      toolChoice,
      parallelToolCalls: values['no-parallel'] !== true,
      syntax,
    });
  } catch (error) {
    if (GrammarUnsupportedError.isInstance(error))
      throw new UsageError(error.message, { cause: error });
    throw error;
  }
  if (values.json) {
    out.write(`${JSON.stringify(grammar, null, 2)}\n`);
    return 0;
  }
  switch (grammar.syntax) {
    case 'gbnf':
      if (grammar.lazy) {
        err.write(
          `toolwire grammar: a lazy grammar: apply it from a trigger word on (llama.cpp "grammar_lazy": true, "grammar_triggers": ${JSON.stringify(grammar.triggers.map((value) => ({ type: 1, value })))})\n`,
        );
      }
      out.write(grammar.grammar);
      return 0;
    case 'ebnf':
      out.write(grammar.grammar);
      return 0;
    case 'structural-tag':
      out.write(`${JSON.stringify(grammar.structuralTag, null, 2)}\n`);
      return 0;
    case 'json-schema':
      out.write(`${JSON.stringify(grammar.schema, null, 2)}\n`);
      return 0;
  }
}
