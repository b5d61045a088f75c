import { describe, expect, it } from 'vitest';
import {
  InvalidPatternError,
  InvalidToolInputError,
  UnsupportedLanguageError,
  WrongPathKindError,
} from '../../../src/agent/tools/index.ts';
import { useWorkspace } from './workspace.ts';

const ws = useWorkspace(async (workspace) => {
  await workspace.write(
    'src/ui/Panel.tsx',
    'export function Panel() {\n  console.log(\'panel\');\n  return <div id="panel">x</div>;\n}\n',
  );
});

/** The `file:line` locations in output order. */
function locations(text: string): string[] {
  return [...text.matchAll(/^(\S+:\d+(?:-\d+)?)$/gm)].map((match) => match[1]!);
}

describe('query', () => {
  it('finds structural matches with file:line, the code and the captures', async () => {
    const text = await ws.tools.query.execute({ pattern: 'console.log($$$ARGS)', path: 'src' });
    expect(locations(text)).toEqual([
      'src/auth/session.js:17',
      'src/ui/Panel.tsx:2',
      'src/util/strings.ts:6',
    ]);
    expect(text).toContain(
      [
        'src/auth/session.js:17',
        '```javascript',
        "17 |   console.log('creating session for', user);",
        '```',
        "$$$ARGS = 'creating session for', user",
      ].join('\n'),
    );
    expect(text).toMatch(
      /^Found 3 matches in 3 of \d+ typescript, tsx, javascript files under src\.$/m,
    );
  });

  it('matches by syntax, not text: the same call spread over lines, but not in a comment', async () => {
    await ws.workspace.write(
      'scratch/syntax/spread.js',
      '// console.log("in a comment")\nconsole\n  .log(\n    "spread",\n  );\n',
    );
    const text = await ws.tools.query.execute({
      pattern: 'console.log($A)',
      path: 'scratch/syntax',
    });
    expect(locations(text)).toEqual(['scratch/syntax/spread.js:2-5']);
    expect(text).toContain('$A = "spread"');
  });

  it('limits files to the language asked for, .tsx included in typescript', async () => {
    const javascript = await ws.tools.query.execute({
      pattern: 'console.log($$$ARGS)',
      language: 'javascript',
      path: 'src',
    });
    expect(locations(javascript)).toEqual(['src/auth/session.js:17']);
    const typescript = await ws.tools.query.execute({
      pattern: 'console.log($$$ARGS)',
      language: 'TypeScript',
      path: 'src',
    });
    expect(locations(typescript)).toEqual(['src/ui/Panel.tsx:2', 'src/util/strings.ts:6']);
    const tsx = await ws.tools.query.execute({
      pattern: '<div id="panel">$$$</div>',
      language: 'tsx',
    });
    expect(locations(tsx)).toEqual(['src/ui/Panel.tsx:3']);
  });

  it('uses only the grammars a pattern is valid in when no language is given', async () => {
    const typed = await ws.tools.query.execute({ pattern: 'function $F($$$P): string { $$$B }' });
    expect(typed).toMatch(/files under the root/);
    expect(typed).toMatch(/typescript, tsx files/);
    expect(locations(typed)).toEqual([
      'src/auth/login.ts:9-15',
      'src/auth/login.ts:21-23',
      'src/util/strings.ts:1-3',
      'src/util/strings.ts:5-11',
    ]);
    expect(typed).toContain('$F = loginUser');
  });

  it('searches HTML and CSS', async () => {
    const html = await ws.tools.query.execute({ pattern: '<h1>$$$</h1>' });
    expect(locations(html)).toEqual(['web/index.html:5']);
    const css = await ws.tools.query.execute({
      pattern: '.button, .link { $$$ }',
      language: 'css',
    });
    expect(locations(css)).toEqual(['web/styles.css:5-8']);
    const anyRule = await ws.tools.query.execute({ pattern: '$SEL { $$$ }', path: 'web' });
    expect(anyRule).toMatch(/in 1 of 1 css files under web/);
    expect(locations(anyRule)).toEqual([
      'web/styles.css:1-3',
      'web/styles.css:5-8',
      'web/styles.css:11-13',
    ]);
  });

  it('shows at most 12 lines of a long match and says how to see it all', async () => {
    const text = await ws.tools.query.execute({
      pattern: 'class $C { $$$BODY }',
      path: 'src/auth/login.ts',
    });
    expect(locations(text)).toEqual(['src/auth/login.ts:25-37']);
    expect(text).toContain('36 |   }');
    expect(text).not.toContain('37 | }');
    expect(text).toContain('… 1 more line (extract src/auth/login.ts:25-37 to see all)');
  });

  it('does not parse ignored files, and skips files above maxFileBytes with a note', async () => {
    const ignored = await ws.tools.query.execute({
      pattern: 'function generatedLoginUser() { $$$ }',
    });
    expect(ignored).toMatch(/No matches/);
    await ws.workspace.write(
      'scratch/large/big.js',
      `${'// padding\n'.repeat(300)}console.log(1);\n`,
    );
    const small = ws.workspace.tools({ maxFileBytes: 1_000 });
    const text = await small.query.execute({ pattern: 'console.log($A)', path: 'scratch/large' });
    expect(text).toMatch(
      /Note: 1 files too large or binary were not parsed \(scratch\/large\/big\.js\)/,
    );
  });

  it('shows at most maxQueryMatches matches and counts them all', async () => {
    const text = await ws.workspace
      .tools({ maxQueryMatches: 1 })
      .query.execute({ pattern: 'console.log($$$ARGS)', path: 'src' });
    expect(text).toMatch(/Found 3 matches in 3 of \d+ .* files under src; the first 1 are shown\./);
    expect(locations(text)).toHaveLength(1);
  });

  it('caps the output and says how to narrow', async () => {
    const many = Array.from({ length: 80 }, (_, index) => `call(${index});`).join('\n');
    await ws.workspace.write('scratch/many/calls.ts', many);
    const text = await ws.workspace
      .tools({ maxOutputChars: 1_000, maxQueryMatches: 100 })
      .query.execute({ pattern: 'call($N)', path: 'scratch/many' });
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(
      /\[Output cut at 1000 characters\. Showing \d+ of 80 matches\. Narrow the query/,
    );
  });

  it('refuses unknown languages, invalid patterns and files of other languages', async () => {
    await expect(
      ws.tools.query.execute({ pattern: 'def $F(): pass', language: 'python' }),
    ).rejects.toThrow(
      'Language "python" is not supported by structural queries. Supported: typescript, tsx, ' +
        'javascript, html, css.',
    );
    await expect(
      ws.tools.query.execute({ pattern: 'x', language: 'python' }),
    ).rejects.toBeInstanceOf(UnsupportedLanguageError);
    await expect(
      ws.tools.query.execute({ pattern: 'foo((', language: 'typescript' }),
    ).rejects.toThrow(
      'The pattern "foo((" cannot be used (typescript: not valid typescript code near "foo(("; ' +
        'tsx: not valid tsx code near "foo(("). Write one piece of code with $NAME placeholders',
    );
    await expect(ws.tools.query.execute({ pattern: 'foo((' })).rejects.toBeInstanceOf(
      InvalidPatternError,
    );
    await expect(
      ws.tools.query.execute({ pattern: 'console.log($A)', path: 'app/models.py' }),
    ).rejects.toBeInstanceOf(WrongPathKindError);
    await expect(ws.tools.query.execute({ pattern: '' })).rejects.toBeInstanceOf(
      InvalidToolInputError,
    );
  });

  it('says when the walk stopped at maxFilesWalked', async () => {
    const text = await ws.workspace
      .tools({ maxFilesWalked: 3 })
      .query.execute({ pattern: 'console.log($$$ARGS)' });
    expect(text).toContain('Note: stopped after 3 files; give a narrower path.');
  });

  it('refuses a pattern longer than maxPatternChars, saying how long it is', async () => {
    const tools = ws.workspace.tools({ maxPatternChars: 20 });
    const error = await tools.query.execute({ pattern: 'console.log($A, $B, $C)' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(InvalidToolInputError);
    expect((error as InvalidToolInputError).parameter).toBe('pattern');
    expect((error as Error).message).toContain(
      'pattern is 23 characters long; a query pattern may have at most 20.',
    );
    await expect(tools.query.execute({ pattern: 'console.log($A)' })).resolves.toContain('Found');
  });

  it('stops on an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('user stop'));
    await expect(
      ws.tools.query.execute({ pattern: 'console.log($A)' }, { signal: controller.signal }),
    ).rejects.toThrow('user stop');
  });
});
