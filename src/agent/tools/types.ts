import type { ToolDefinition } from '../../core/tool.ts';

/** The names of the built-in code tools, as Probe names them. */
export type CodeToolName = 'search' | 'extract' | 'query' | 'list_files';

/** What a code tool receives besides its input. */
export interface CodeToolExecuteOptions {
  /**
   * Stops the work: the tool rejects with the signal's reason soon after it aborts (long loops
   * check it at least every few milliseconds) and reads no further file.
   */
  readonly signal?: AbortSignal;
}

/** A JSON Schema object (draft 2020-12 compatible) describing a tool's input. */
export interface CodeToolInputSchema {
  readonly [keyword: string]: unknown;
  readonly type: 'object';
  readonly properties: { readonly [parameter: string]: { readonly [keyword: string]: unknown } };
  readonly required: readonly string[];
  readonly additionalProperties: false;
}

/**
 * A built-in tool: a `ToolDefinition` (what the model is told) plus the function that runs it.
 * `execute` resolves to plain text meant for the model, or rejects with a `CodeToolError`
 * (or the signal's reason when aborted).
 */
export interface CodeTool extends ToolDefinition {
  readonly name: CodeToolName;
  readonly description: string;
  readonly inputSchema: CodeToolInputSchema;
  execute(input: unknown, options?: CodeToolExecuteOptions): Promise<string>;
}

/** The four tools, keyed by name. Pass the ones you want to the agent loop (they are opt-in). */
export interface CodeTools {
  readonly search: CodeTool;
  readonly extract: CodeTool;
  readonly query: CodeTool;
  readonly list_files: CodeTool;
}

export interface CodeToolsOptions {
  /** The folder the tools work in. No path may lead outside it. */
  readonly root: string;
  /** Longest text a tool returns, notice included (default 20 000, at least 1 000). */
  readonly maxOutputChars?: number;
  /** Bytes read from one file: search reads no further, query and extract parse no larger file
   * (default 1 000 000). */
  readonly maxFileBytes?: number;
  /** Lines of context shown around a search match (default 2). */
  readonly contextLines?: number;
  /** Line ranges shown per file by search (default 10). */
  readonly maxRangesPerFile?: number;
  /** Matches shown by query (default 50). */
  readonly maxQueryMatches?: number;
  /** Paths shown by list_files (default 1 000). */
  readonly maxListedFiles?: number;
  /** Files visited by one walk before it stops (default 50 000). */
  readonly maxFilesWalked?: number;
  /**
   * Longest `list_files` glob accepted, in characters (default 500); a longer one is refused
   * with an error that says so. Matching time grows with the glob's length times the path's.
   * @example createCodeTools({ root: '.', maxGlobChars: 200 })
   */
  readonly maxGlobChars?: number;
  /**
   * Deepest nesting of `{a,b}` groups accepted in a glob (default 10; 0 refuses every group).
   * @example createCodeTools({ root: '.', maxGlobBraceDepth: 3 })
   */
  readonly maxGlobBraceDepth?: number;
  /**
   * Longest `query` pattern accepted, in characters (default 2 000); a longer one is refused
   * with an error that says so. A pattern is parsed on the main thread to check it is valid code.
   * @example createCodeTools({ root: '.', maxPatternChars: 500 })
   */
  readonly maxPatternChars?: number;
}

/** The input of `search`, as Probe defines it. */
export interface SearchInput {
  readonly query: string;
  readonly path?: string;
  readonly allow_tests?: boolean;
}

/** The input of `extract`, as Probe defines it. */
export interface ExtractInput {
  readonly file_path: string;
  readonly line?: number;
  readonly end_line?: number;
}

/** The input of `query`. */
export interface QueryInput {
  readonly pattern: string;
  readonly language?: string;
  readonly path?: string;
}

/** The input of `list_files`. */
export interface ListFilesInput {
  readonly path?: string;
  readonly glob?: string;
}
