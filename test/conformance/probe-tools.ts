import type { JsonSchema, ToolDefinition } from '../../src/index.ts';

/**
 * Probe's tools as toolwire declares them: the parameters of seed 000's "Available tools" and of
 * Probe's tool list, typed (flags boolean, line numbers integer, the rest text). Probe itself had
 * no schemas and guessed types from the text; toolwire coerces by schema instead.
 */
const string = { type: 'string' } as const;
const boolean = { type: 'boolean' } as const;
const integer = { type: 'integer' } as const;

function tool(
  name: string,
  properties: Record<string, JsonSchema>,
  required: string[] = [],
): ToolDefinition {
  return { name, inputSchema: { type: 'object', properties, required } };
}

const ALL: readonly ToolDefinition[] = [
  tool(
    'search',
    { query: string, path: string, allow_tests: boolean, exact: boolean, maxResults: integer },
    ['query'],
  ),
  tool('query', { pattern: string, path: string, language: string, allow_tests: boolean }, [
    'pattern',
  ]),
  tool('extract', {
    targets: string,
    file_path: string,
    input_content: string,
    line: integer,
    end_line: integer,
    allow_tests: boolean,
  }),
  tool('delegate', { task: string }),
  tool('analyze_all', { question: string, path: string }),
  tool('execute_plan', { code: string, description: string }),
  tool('cleanup_execute_plan', { clearOutputBuffers: boolean, clearSessionStore: boolean }),
  tool('listSkills', { filter: string }),
  tool('useSkill', { name: string }),
  tool('listFiles', {
    directory: string,
    path: string,
    recursive: boolean,
    includeHidden: boolean,
  }),
  tool('searchFiles', { pattern: string, directory: string, recursive: boolean }),
  tool('bash', { command: string, workingDirectory: string, timeout: integer }, ['command']),
  tool('task', { action: string, id: string, title: string, description: string }),
  tool('attempt_completion', { result: string }, ['result']),
  tool('edit', {
    file_path: string,
    old_string: string,
    new_string: string,
    replace_all: boolean,
    symbol: string,
    position: string,
    start_line: integer,
    end_line: integer,
  }),
  tool('create', { file_path: string, content: string, overwrite: boolean }),
];

/** Probe's default tool list (when a test passed none). */
const DEFAULT_NAMES = [
  'search',
  'query',
  'extract',
  'delegate',
  'analyze_all',
  'execute_plan',
  'cleanup_execute_plan',
  'listSkills',
  'useSkill',
  'listFiles',
  'searchFiles',
  'bash',
  'task',
  'attempt_completion',
];

export function probeTools(names: readonly string[] = DEFAULT_NAMES): ToolDefinition[] {
  return names.flatMap((name) => ALL.filter((candidate) => candidate.name === name));
}
