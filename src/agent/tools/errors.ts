/**
 * Errors the code tools throw. Each message says what was wrong, which path or parameter it
 * concerns, and what to do instead, because the agent loop hands it to the model as feedback.
 * Each is a `ToolwireError` whose `kind` says which failure it is.
 */
import {
  ToolwireError,
  type ToolwireErrorKind,
  type ToolwireErrorOptions,
} from '../../core/errors.ts';

/** The kinds a code tool's failure can have. */
export type CodeToolErrorKind = Extract<
  ToolwireErrorKind,
  | 'invalid-tool-input'
  | 'path-outside-root'
  | 'path-not-found'
  | 'wrong-path-kind'
  | 'file-refused'
  | 'symbol-not-found'
  | 'unsupported-language'
  | 'invalid-root'
>;

/** Base class: every failure a code tool reports on purpose. */
export class CodeToolError extends ToolwireError {
  declare readonly kind: CodeToolErrorKind;

  constructor(kind: CodeToolErrorKind, message: string, options?: ToolwireErrorOptions) {
    super(kind, message, options);
  }
}

/** A parameter is missing, has the wrong type, or a value that cannot be used. */
export class InvalidToolInputError extends CodeToolError {
  readonly parameter: string;

  constructor(parameter: string, message: string, options?: ToolwireErrorOptions) {
    super('invalid-tool-input', message, options);
    this.parameter = parameter;
  }
}

/** A path that leads outside the root folder: `..`, an absolute path elsewhere, or a symlink. */
export class PathOutsideRootError extends CodeToolError {
  readonly path: string;

  constructor(path: string, reason: string) {
    super(
      'path-outside-root',
      `Path ${JSON.stringify(path)} is outside the root folder (${reason}). ` +
        'Use a path relative to the root, such as "src".',
    );
    this.path = path;
  }
}

/** A path inside the root that does not exist. */
export class PathNotFoundError extends CodeToolError {
  readonly path: string;

  constructor(path: string) {
    super(
      'path-not-found',
      `Path ${JSON.stringify(path)} does not exist in the root folder. ` +
        'Use list_files to see which files exist.',
    );
    this.path = path;
  }
}

/** A file where a folder was needed, a folder where a file was needed, or neither. */
export class WrongPathKindError extends CodeToolError {
  readonly path: string;

  constructor(path: string, message: string, options?: ToolwireErrorOptions) {
    super('wrong-path-kind', message, options);
    this.path = path;
  }
}

/** A file whose first bytes contain a NUL byte: not text, so it cannot be read as code. */
export class BinaryFileError extends CodeToolError {
  readonly path: string;

  constructor(path: string) {
    super('file-refused', `File ${JSON.stringify(path)} is binary; only text files can be read.`);
    this.path = path;
  }
}

/** A file too large to parse as a whole. */
export class FileTooLargeError extends CodeToolError {
  readonly path: string;

  constructor(path: string, size: number, limit: number) {
    super(
      'file-refused',
      `File ${JSON.stringify(path)} is ${size} bytes, more than the ${limit} bytes that can be ` +
        'parsed at once. Read a part of it with line and end_line instead.',
    );
    this.path = path;
  }
}

/** `extract` was asked for a symbol the file does not define. */
export class SymbolNotFoundError extends CodeToolError {
  readonly path: string;
  readonly symbol: string;

  constructor(path: string, symbol: string, available: readonly string[]) {
    const listed =
      available.length === 0
        ? 'No functions, classes or other named definitions were found there.'
        : `Symbols defined there: ${available.join(', ')}.`;
    super(
      'symbol-not-found',
      `Symbol ${JSON.stringify(symbol)} was not found in ${path}. ${listed}`,
    );
    this.path = path;
    this.symbol = symbol;
  }
}

/** `query` was given a language it has no grammar for. */
export class UnsupportedLanguageError extends CodeToolError {
  readonly language: string;

  constructor(language: string, supported: readonly string[]) {
    super(
      'unsupported-language',
      `Language ${JSON.stringify(language)} is not supported by structural queries. ` +
        `Supported: ${supported.join(', ')}. Use search for a text search instead.`,
    );
    this.language = language;
  }
}

/** An ast-grep pattern that does not parse in the language(s) it is meant for. */
export class InvalidPatternError extends CodeToolError {
  readonly pattern: string;

  constructor(pattern: string, message: string, options?: ToolwireErrorOptions) {
    super('invalid-tool-input', message, options);
    this.pattern = pattern;
  }
}

/** `createCodeTools` was given a root that is not an existing folder. */
export class InvalidRootError extends CodeToolError {
  constructor(message: string, options?: ToolwireErrorOptions) {
    super('invalid-root', message, options);
  }
}
