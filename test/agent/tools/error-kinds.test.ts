/**
 * Every error the code tools throw is a ToolwireError whose kind says which failure it is; the
 * class names and messages stay (the model reads the messages as feedback).
 */
import { describe, expect, it } from 'vitest';
import { runTool, ToolTimeout } from '../../../src/agent/executor.ts';
import { ResumeMismatchError } from '../../../src/agent/index.ts';
import {
  BinaryFileError,
  CodeToolError,
  FileTooLargeError,
  InvalidPatternError,
  InvalidRootError,
  InvalidToolInputError,
  PathNotFoundError,
  PathOutsideRootError,
  SymbolNotFoundError,
  UnsupportedLanguageError,
  WrongPathKindError,
} from '../../../src/agent/tools/errors.ts';
import { compileGlob } from '../../../src/agent/tools/files/glob.ts';
import { GlobSyntaxError } from '../../../src/agent/tools/files/glob-syntax.ts';
import { createCodeTools } from '../../../src/agent/tools/index.ts';
import { SyntaxJobError } from '../../../src/agent/tools/syntax/syntax-client.ts';
import { ToolwireError } from '../../../src/core/errors.ts';

describe('the code tools’ errors', () => {
  const cases: [ToolwireError, string, string][] = [
    [new InvalidToolInputError('path', 'bad'), 'InvalidToolInputError', 'invalid-tool-input'],
    [new PathOutsideRootError('..', 'up'), 'PathOutsideRootError', 'path-outside-root'],
    [new PathNotFoundError('x'), 'PathNotFoundError', 'path-not-found'],
    [new WrongPathKindError('x', 'a folder'), 'WrongPathKindError', 'wrong-path-kind'],
    [new BinaryFileError('x'), 'BinaryFileError', 'file-refused'],
    [new FileTooLargeError('x', 10, 5), 'FileTooLargeError', 'file-refused'],
    [new SymbolNotFoundError('x', 's', []), 'SymbolNotFoundError', 'symbol-not-found'],
    [
      new UnsupportedLanguageError('cobol', ['ts']),
      'UnsupportedLanguageError',
      'unsupported-language',
    ],
    [new InvalidPatternError('$', 'no'), 'InvalidPatternError', 'invalid-tool-input'],
    [new InvalidRootError('no root'), 'InvalidRootError', 'invalid-root'],
    [new GlobSyntaxError('a "[" has no closing "]"'), 'GlobSyntaxError', 'invalid-tool-input'],
    [new SyntaxJobError('bad pattern'), 'SyntaxJobError', 'syntax-job-failed'],
    [new ResumeMismatchError('no'), 'ResumeMismatchError', 'resume-mismatch'],
    [new ToolTimeout(50), 'ToolTimeout', 'tool-timeout'],
  ];

  it.each(cases)('%s: %s, kind %s', (error, name, kind) => {
    expect(ToolwireError.isInstance(error)).toBe(true);
    expect(error).toBeInstanceOf(ToolwireError);
    expect(error.name).toBe(name);
    expect(error.kind).toBe(kind);
  });

  it('the code tools’ own errors are CodeToolErrors, found by isInstance too', () => {
    for (const [error] of cases.slice(0, 10)) {
      expect(error).toBeInstanceOf(CodeToolError);
      expect(CodeToolError.isInstance(error)).toBe(true);
    }
    expect(CodeToolError.isInstance(new GlobSyntaxError('x'))).toBe(false);
  });

  it('keep their messages', () => {
    expect(new PathNotFoundError('src/x.ts').message).toBe(
      'Path "src/x.ts" does not exist in the root folder. Use list_files to see which files exist.',
    );
    expect(new ToolTimeout(50).message).toBe('timed out after 50 ms');
  });

  it('an invalid glob is an invalid input whose cause is the glob’s syntax error', () => {
    let thrown: unknown;
    try {
      compileGlob('src/[a', 'glob', { maxChars: 100, maxBraceDepth: 4 });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidToolInputError);
    expect((thrown as Error).message).toContain('is not a valid glob: a "[" has no closing "]"');
    expect((thrown as Error).cause).toBeInstanceOf(GlobSyntaxError);
  });

  it('a root that does not exist: invalid-root, with the file system’s error as its cause', () => {
    let thrown: unknown;
    try {
      createCodeTools({ root: '/nonexistent/toolwire-root' });
    } catch (error) {
      thrown = error;
    }
    expect(InvalidRootError.isInstance(thrown)).toBe(true);
    expect((thrown as Error).cause).toMatchObject({ code: 'ENOENT' });
  });

  it('a tool that runs out of time: the timeout outcome, its signal aborted with a ToolTimeout', async () => {
    let reason: unknown;
    const outcome = await runTool(
      {
        toolCallId: 'c',
        toolName: 'slow',
        input: {},
        tool: {
          inputSchema: {},
          execute: (_input, { signal }) =>
            new Promise((resolve) =>
              signal.addEventListener('abort', () => {
                reason = signal.reason;
                resolve('late');
              }),
            ),
        },
      },
      10,
      new AbortController().signal,
    );
    expect(outcome).toEqual({ ok: false, kind: 'timeout', error: 'timed out after 10 ms' });
    expect(ToolTimeout.isInstance(reason)).toBe(true);
  });
});
