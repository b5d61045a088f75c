import { describe, expect, it } from 'vitest';
import {
  BinaryFileError,
  FileTooLargeError,
  InvalidToolInputError,
  PathNotFoundError,
  SymbolNotFoundError,
  WrongPathKindError,
} from '../../../src/agent/tools/index.ts';
import { useWorkspace } from './workspace.ts';

const ws = useWorkspace(async (workspace) => {
  // TSX is written here, not committed: the project's type check would read a committed .tsx.
  await workspace.write(
    'src/ui/Panel.tsx',
    [
      "import { useState } from 'react';",
      '',
      'export function Panel({ title }: { title: string }) {',
      '  const [open, setOpen] = useState(false);',
      '  return <section onClick={() => setOpen(!open)}>{title}</section>;',
      '}',
      '',
    ].join('\n'),
  );
  await workspace.write(
    'scratch/overload.ts',
    [
      'export function pick(value: string): string;',
      'export function pick(value: number): number;',
      'export function pick(value: unknown) {',
      '  return value;',
      '}',
      '',
      'export default function () {',
      '  return 1;',
      '}',
      '',
    ].join('\n'),
  );
  await workspace.write('scratch/odd#name.txt', 'a file whose name has a hash\n');
  await workspace.write(
    'scratch/long.txt',
    Array.from({ length: 500 }, (_, index) => `line ${index + 1} of the long file`).join('\n'),
  );
});

/** The `Lines:` headings (range and label). */
function headings(text: string): string[] {
  return [...text.matchAll(/^Lines: (.*)$/gm)].map((match) => match[1]!);
}

/** Numbers of the lines shown, in order. */
function numbers(text: string): number[] {
  return [...text.matchAll(/^[> ]? *(\d+) \| /gm)].map((match) => Number(match[1]));
}

function range(first: number, last: number): number[] {
  return Array.from({ length: last - first + 1 }, (_, index) => first + index);
}

describe('extract: symbols found structurally (TypeScript, JavaScript, TSX, HTML, CSS)', () => {
  it('returns a function with its doc comment and export, numbered', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts#loginUser' });
    expect(headings(text)).toEqual(['8-15 (function loginUser)']);
    expect(numbers(text)).toEqual(range(8, 15));
    expect(text).toContain(' 8 | /** Checks credentials and returns a session token. */');
  });

  it('returns exactly this text for an exported arrow function', async () => {
    expect(await ws.tools.extract.execute({ file_path: 'src/auth/login.ts#verifyToken' })).toBe(
      [
        'File: src/auth/login.ts',
        'Lines: 17-19 (function verifyToken)',
        '```typescript',
        '17 | export const verifyToken = (token: string): boolean => {',
        "18 |   return token.startsWith('tok_') && token.length > 10;",
        '19 | };',
        '```',
      ].join('\n'),
    );
  });

  it('finds classes, methods by Class.method or by their own name, interfaces, private functions', async () => {
    const cases: [string, string][] = [
      ['AuthService', '25-37 (class AuthService)'],
      ['AuthService.login', '28-32 (method AuthService.login)'],
      ['logout', '34-36 (method AuthService.logout)'],
      ['Credentials', '3-6 (interface Credentials)'],
      ['generateToken', '21-23 (function generateToken)'],
    ];
    for (const [symbol, heading] of cases) {
      const text = await ws.tools.extract.execute({ file_path: `src/auth/login.ts#${symbol}` });
      expect(headings(text), symbol).toEqual([heading]);
    }
  });

  it('shows every definition a name matches (overloads) and names a default export "default"', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'scratch/overload.ts#pick' });
    expect(text).toContain('File: scratch/overload.ts (3 definitions match "pick")');
    expect(headings(text)).toEqual([
      '1-1 (function signature pick)',
      '2-2 (function signature pick)',
      '3-5 (function pick)',
    ]);
    const anonymous = await ws.tools.extract.execute({ file_path: 'scratch/overload.ts#default' });
    expect(headings(anonymous)).toEqual(['7-9 (function default)']);
  });

  it('reads JavaScript, JSX and TSX', async () => {
    const save = await ws.tools.extract.execute({
      file_path: 'src/auth/session.js#SessionStore.save',
    });
    expect(headings(save)).toEqual(['7-9 (method SessionStore.save)']);
    expect(save).toContain('```javascript');
    const store = await ws.tools.extract.execute({ file_path: 'src/auth/session.js#SessionStore' });
    expect(headings(store)).toEqual(['1-14 (class SessionStore)']); // with its leading comment
    const jsx = await ws.tools.extract.execute({ file_path: 'web/widget.jsx#LoginButton' });
    expect(headings(jsx)).toEqual(['1-7 (function LoginButton)']);
    const tsx = await ws.tools.extract.execute({ file_path: 'src/ui/Panel.tsx#Panel' });
    expect(headings(tsx)).toEqual(['3-6 (function Panel)']);
    expect(tsx).toContain('```tsx');
  });

  it('finds HTML elements by id and CSS rules by selector', async () => {
    const form = await ws.tools.extract.execute({ file_path: 'web/index.html#login-form' });
    expect(headings(form)).toEqual(['6-8 (<form> element login-form)']);
    const main = await ws.tools.extract.execute({ file_path: 'web/index.html#main' });
    expect(headings(main)).toEqual(['4-9 (<div> element main)']);
    const link = await ws.tools.extract.execute({ file_path: 'web/styles.css#.link' });
    expect(headings(link)).toEqual(['5-8 (rule set .link)']);
    const nested = await ws.tools.extract.execute({ file_path: 'web/styles.css#.layout' });
    expect(headings(nested)).toEqual(['11-13 (rule set .layout)']);
  });

  it('names the symbols the file has when the one asked for is missing', async () => {
    const error = await ws.tools.extract
      .execute({ file_path: 'src/auth/login.ts#loginAdmin' })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(SymbolNotFoundError);
    expect((error as Error).message).toBe(
      'Symbol "loginAdmin" was not found in src/auth/login.ts. Symbols defined there: ' +
        'Credentials, loginUser, verifyToken, generateToken, AuthService, ' +
        'AuthService.attempts, AuthService.login, AuthService.logout.',
    );
  });
});

describe('extract: the definition enclosing a line', () => {
  it('returns the innermost enclosing definition with the line marked', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts:30' });
    expect(headings(text)).toEqual(['28-32 (method AuthService.login, enclosing line 30)']);
    expect(text).toContain('> 30 |     this.attempts.set(credentials.email, count + 1);');
    expect(text).toContain('  29 |     const count');
    const byParameter = await ws.tools.extract.execute({
      file_path: 'src/auth/login.ts',
      line: 30,
    });
    expect(byParameter).toBe(text);
  });

  it('prefers the class over a one-line field the line is on', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts:26' });
    expect(headings(text)).toEqual(['25-37 (class AuthService, enclosing line 26)']);
  });

  it('shows lines around a line that no definition encloses', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts:1' });
    expect(headings(text)).toEqual(['1-11 (no definition encloses line 1)']);
    expect(text).toContain('>  1 | import');
  });

  it('works for CSS and HTML', async () => {
    const css = await ws.tools.extract.execute({ file_path: 'web/styles.css:12' });
    expect(headings(css)).toEqual(['11-13 (rule set .layout, enclosing line 12)']);
    const html = await ws.tools.extract.execute({ file_path: 'web/index.html:7' });
    expect(headings(html)).toEqual(['6-8 (<form> element login-form, enclosing line 7)']);
  });

  it('refuses a line past the end of the file', async () => {
    await expect(ws.tools.extract.execute({ file_path: 'src/auth/login.ts:99' })).rejects.toThrow(
      'Line 99 is past the end of src/auth/login.ts, which has 37 lines.',
    );
  });
});

describe('extract: the indentation rule (Python, Go and other languages)', () => {
  it('finds Python classes, methods (with comments and a multi-line signature) and functions', async () => {
    const cases: [string, string][] = [
      ['User', '5-21 (class User)'], // with its decorator
      ['User.save', '15-21 (function User.save)'], // with its comment, across `):`
      ['display_name', '12-13 (function User.display_name)'],
      ['find_user', '24-28 (function find_user)'],
    ];
    for (const [symbol, heading] of cases) {
      const text = await ws.tools.extract.execute({ file_path: `app/models.py#${symbol}` });
      expect(headings(text), symbol).toEqual([heading]);
    }
  });

  it('finds the enclosing Python definition, or shows lines around', async () => {
    const inside = await ws.tools.extract.execute({ file_path: 'app/models.py:26' });
    expect(headings(inside)).toEqual(['24-28 (function find_user, enclosing line 26)']);
    const method = await ws.tools.extract.execute({ file_path: 'app/models.py:20' });
    expect(headings(method)).toEqual(['15-21 (function User.save, enclosing line 20)']);
    const outside = await ws.tools.extract.execute({ file_path: 'app/models.py:31' });
    expect(headings(outside)).toEqual(['21-31 (no definition encloses line 31)']);
  });

  it('finds Go types, methods (past the receiver) and functions, closing brace included', async () => {
    const start = await ws.tools.extract.execute({ file_path: 'cmd/server/main.go#Start' });
    expect(headings(start)).toEqual(['9-13 (function Start)']);
    expect(start).toContain('13 | }');
    const server = await ws.tools.extract.execute({ file_path: 'cmd/server/main.go#Server' });
    expect(headings(server)).toEqual(['5-7 (type Server)']);
    const main = await ws.tools.extract.execute({ file_path: 'cmd/server/main.go:17' });
    expect(headings(main)).toEqual(['15-20 (function main, enclosing line 17)']);
  });
});

describe('extract: line ranges and whole files', () => {
  it('reads a range given as :start-end or as line and end_line, identically', async () => {
    const bySuffix = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts:3-6' });
    const byParameters = await ws.tools.extract.execute({
      file_path: 'src/auth/login.ts',
      line: 3,
      end_line: 6,
    });
    expect(bySuffix).toBe(byParameters);
    expect(bySuffix).toBe(
      [
        'File: src/auth/login.ts',
        'Lines: 3-6',
        '```typescript',
        '3 | export interface Credentials {',
        '4 |   readonly email: string;',
        '5 |   readonly password: string;',
        '6 | }',
        '```',
      ].join('\n'),
    );
    // Numbers written as text (XML parameters) are accepted.
    expect(
      await ws.tools.extract.execute({ file_path: 'src/auth/login.ts', line: '3', end_line: '6' }),
    ).toBe(bySuffix);
  });

  it('says where the file ends when end_line is past it', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'src/auth/login.ts:35-80' });
    expect(headings(text)).toEqual(['35-37 (the file ends at line 37)']);
  });

  it('reads a whole file when no symbol or line is given', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'src/util/strings.ts' });
    expect(text).toMatch(
      /^File: src\/util\/strings\.ts \(11 lines\)\nLines: 1-11\n```typescript\n/,
    );
    expect(numbers(text)).toEqual(range(1, 11));
  });

  it('reads a file whose own name contains # when that is what exists', async () => {
    const text = await ws.tools.extract.execute({ file_path: 'scratch/odd#name.txt' });
    expect(text).toContain('1 | a file whose name has a hash');
  });

  it('cuts a long file at the output limit and says where to read on', async () => {
    const text = await ws.workspace
      .tools({ maxOutputChars: 1_000 })
      .extract.execute({ file_path: 'scratch/long.txt' });
    expect(text.length).toBeLessThanOrEqual(1_000);
    const shown = numbers(text);
    expect(shown[0]).toBe(1);
    const next = shown.at(-1)! + 1;
    expect(text).toContain(
      `[Output cut at 1000 characters. Not shown from line ${next}: read on with file_path ` +
        `"scratch/long.txt", line ${next} and end_line 500 (or a smaller range).]`,
    );
    const rest = await ws.tools.extract.execute({
      file_path: 'scratch/long.txt',
      line: next,
      end_line: 500,
    });
    expect(numbers(rest)).toEqual(range(next, 500));
  });

  it('cuts a long definition the same way', async () => {
    const text = await ws.workspace
      .tools({ maxOutputChars: 1_000 })
      .extract.execute({ file_path: 'scratch/long.txt:400' });
    expect(text.length).toBeLessThanOrEqual(1_000);
    expect(text).toMatch(/Not shown from line \d+: read on with file_path "scratch\/long\.txt"/);
  });

  it('parses no file larger than maxFileBytes, but still reads ranges of it', async () => {
    const small = ws.workspace.tools({ maxFileBytes: 2_000 });
    await expect(
      small.extract.execute({ file_path: 'scratch/long.txt#anything' }),
    ).rejects.toBeInstanceOf(FileTooLargeError);
    const part = await small.extract.execute({ file_path: 'scratch/long.txt:10-12' });
    expect(numbers(part)).toEqual([10, 11, 12]);
    const whole = await small.extract.execute({ file_path: 'scratch/long.txt' });
    expect(whole).toMatch(/only the first 2000 bytes read/);
    expect(whole).toMatch(/The file goes on after line \d+/);
  });
});

describe('extract: errors', () => {
  it('refuses binary files, folders and missing files', async () => {
    await expect(ws.tools.extract.execute({ file_path: 'assets/logo.bin' })).rejects.toBeInstanceOf(
      BinaryFileError,
    );
    await expect(
      ws.tools.extract.execute({ file_path: 'assets/logo.bin#x' }),
    ).rejects.toBeInstanceOf(BinaryFileError);
    await expect(ws.tools.extract.execute({ file_path: 'src/auth' })).rejects.toBeInstanceOf(
      WrongPathKindError,
    );
    await expect(ws.tools.extract.execute({ file_path: 'src/auth/nope.ts#x' })).rejects.toThrow(
      PathNotFoundError,
    );
    await expect(ws.tools.extract.execute({ file_path: 'src/auth/nope.ts#x' })).rejects.toThrow(
      'Path "src/auth/nope.ts" does not exist',
    );
  });

  it('rejects contradictory or impossible line parameters, naming the parameter', async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ file_path: 'src/auth/login.ts:3', line: 4 }, 'line', /not both/],
      [{ file_path: 'src/auth/login.ts#loginUser', line: 4 }, 'line', /not both/],
      [{ file_path: 'src/auth/login.ts', end_line: 4 }, 'end_line', /end_line needs line/],
      [{ file_path: 'src/auth/login.ts', line: 9, end_line: 4 }, 'end_line', /before line/],
      [{ file_path: 'src/auth/login.ts', line: 0 }, 'line', /integer from 1/],
      [{ file_path: 'src/auth/login.ts', line: 2.5 }, 'line', /integer from 1/],
      [{ file_path: 'src/auth/login.ts', line: 'ten' }, 'line', /integer from 1/],
      [{ file_path: 'src/auth/login.ts:80-90' }, 'line', /past the end/],
      [{}, 'file_path', /missing/],
    ];
    for (const [input, parameter, message] of cases) {
      const error = await ws.tools.extract.execute(input).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, JSON.stringify(input)).toBeInstanceOf(InvalidToolInputError);
      expect((error as InvalidToolInputError).parameter).toBe(parameter);
      expect((error as Error).message).toMatch(message);
    }
  });
});
