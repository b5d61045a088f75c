/**
 * Errors the code tools throw. Each message says what was wrong, which path or parameter it
 * concerns, and what to do instead, because the agent loop hands it to the model as feedback.
 */

/** Base class: every failure a code tool reports on purpose. */
export class CodeToolError extends Error {
  override readonly name: string = 'CodeToolError';
}

/** A parameter is missing, has the wrong type, or a value that cannot be used. */
export class InvalidToolInputError extends CodeToolError {
  override readonly name: string = 'InvalidToolInputError';
  readonly parameter: string;

  constructor(parameter: string, message: string) {
    super(message);
    this.parameter = parameter;
  }
}

/** A path that leads outside the root folder: `..`, an absolute path elsewhere, or a symlink. */
export class PathOutsideRootError extends CodeToolError {
  override readonly name: string = 'PathOutsideRootError';
  readonly path: string;

  constructor(path: string, reason: string) {
    super(
      `Path ${JSON.stringify(path)} is outside the root folder (${reason}). ` +
        'Use a path relative to the root, such as "src".',
    );
    this.path = path;
  }
}

/** A path inside the root that does not exist. */
export class PathNotFoundError extends CodeToolError {
  override readonly name: string = 'PathNotFoundError';
  readonly path: string;

  constructor(path: string) {
    super(
      `Path ${JSON.stringify(path)} does not exist in the root folder. ` +
        'Use list_files to see which files exist.',
    );
    this.path = path;
  }
}

/** A file where a folder was needed, a folder where a file was needed, or neither. */
export class WrongPathKindError extends CodeToolError {
  override readonly name: string = 'WrongPathKindError';
  readonly path: string;

  constructor(path: string, message: string) {
    super(message);
    this.path = path;
  }
}

/** A file whose first bytes contain a NUL byte: not text, so it cannot be read as code. */
export class BinaryFileError extends CodeToolError {
  override readonly name: string = 'BinaryFileError';
  readonly path: string;

  constructor(path: string) {
    super(`File ${JSON.stringify(path)} is binary; only text files can be read.`);
    this.path = path;
  }
}

/** A file too large to parse as a whole. */
export class FileTooLargeError extends CodeToolError {
  override readonly name: string = 'FileTooLargeError';
  readonly path: string;

  constructor(path: string, size: number, limit: number) {
    super(
      `File ${JSON.stringify(path)} is ${size} bytes, more than the ${limit} bytes that can be ` +
        'parsed at once. Read a part of it with line and end_line instead.',
    );
    this.path = path;
  }
}

/** `extract` was asked for a symbol the file does not define. */
export class SymbolNotFoundError extends CodeToolError {
  override readonly name: string = 'SymbolNotFoundError';
  readonly path: string;
  readonly symbol: string;

  constructor(path: string, symbol: string, available: readonly string[]) {
    const listed =
      available.length === 0
        ? 'No functions, classes or other named definitions were found there.'
        : `Symbols defined there: ${available.join(', ')}.`;
    super(`Symbol ${JSON.stringify(symbol)} was not found in ${path}. ${listed}`);
    this.path = path;
    this.symbol = symbol;
  }
}

/** `query` was given a language it has no grammar for. */
export class UnsupportedLanguageError extends CodeToolError {
  override readonly name: string = 'UnsupportedLanguageError';
  readonly language: string;

  constructor(language: string, supported: readonly string[]) {
    super(
      `Language ${JSON.stringify(language)} is not supported by structural queries. ` +
        `Supported: ${supported.join(', ')}. Use search for a text search instead.`,
    );
    this.language = language;
  }
}

/** An ast-grep pattern that does not parse in the language(s) it is meant for. */
export class InvalidPatternError extends CodeToolError {
  override readonly name: string = 'InvalidPatternError';
  readonly pattern: string;

  constructor(pattern: string, message: string) {
    super(message);
    this.pattern = pattern;
  }
}

/** `createCodeTools` was given a root that is not an existing folder. */
export class InvalidRootError extends CodeToolError {
  override readonly name: string = 'InvalidRootError';
}
