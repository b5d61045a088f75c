import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { neutraliseControls, TerminalTextFilter } from '../../src/cli/terminal-text.ts';

/** Any character a terminal acts on, as the neutraliser must never let through. */
const ACTIVE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

describe('neutraliseControls', () => {
  it('shows every C0 control but newline and tab as its escape', () => {
    for (let code = 0; code < 0x20; code++) {
      const character = String.fromCharCode(code);
      const shown = neutraliseControls(`a${character}b`);
      if (code === 0x0a || code === 0x09) expect(shown).toBe(`a${character}b`);
      else expect(shown).toBe(`a\\x${code.toString(16).padStart(2, '0')}b`);
    }
  });

  it('shows DEL and every C1 control (U+0080–U+009F)', () => {
    expect(neutraliseControls('\x7f')).toBe('\\x7f');
    for (let code = 0x80; code <= 0x9f; code++) {
      expect(neutraliseControls(String.fromCharCode(code))).toBe(`\\x${code.toString(16)}`);
    }
    // The characters around them are ordinary text.
    expect(neutraliseControls('~\u00a0é')).toBe('~\u00a0é');
  });

  it('OSC 52 (clipboard), OSC 0 (title), CSI erase and BEL become visible and inert', () => {
    expect(neutraliseControls('\x1b]52;c;ZXZpbA==\x07')).toBe('\\x1b]52;c;ZXZpbA==\\x07');
    expect(neutraliseControls('\x1b]0;pwned\x07')).toBe('\\x1b]0;pwned\\x07');
    expect(neutraliseControls('\x1b]0;pwned\x1b\\')).toBe('\\x1b]0;pwned\\x1b\\');
    expect(neutraliseControls('\x1b[2K\x1b[1A\x1b[2K')).toBe('\\x1b[2K\\x1b[1A\\x1b[2K');
    // The one-byte C1 forms: CSI (U+009B) and OSC (U+009D), ended by ST (U+009C).
    expect(neutraliseControls('\x9b2K\x9d52;c;eA==\x9c')).toBe('\\x9b2K\\x9d52;c;eA==\\x9c');
    expect(neutraliseControls('ding\x07')).toBe('ding\\x07');
  });

  it('a lone carriage return is shown; \\r\\n, newline and tab are kept', () => {
    expect(neutraliseControls('ok\rFAKE')).toBe('ok\\x0dFAKE');
    expect(neutraliseControls('line\r\nnext\tcol\n')).toBe('line\r\nnext\tcol\n');
    expect(neutraliseControls('end\r')).toBe('end\\x0d');
    expect(neutraliseControls('\r\r\n')).toBe('\\x0d\r\n');
  });

  it('bidi embeddings, overrides and isolates are shown', () => {
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      expect(neutraliseControls(`x${String.fromCharCode(code)}y`)).toBe(
        `x\\u${code.toString(16)}y`,
      );
    }
  });

  it('leaves nothing a terminal acts on, whatever the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
        expect(ACTIVE.test(neutraliseControls(text))).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('TerminalTextFilter (streamed text)', () => {
  const streamed = (pieces: readonly string[]) => {
    const filter = new TerminalTextFilter();
    return pieces.map((piece) => filter.push(piece)).join('') + filter.flush();
  };

  it('a sequence split across pieces is still neutralised', () => {
    expect(streamed(['safe \x1b', ']52;c;ZXZpbA==', '\x07 text'])).toBe(
      'safe \\x1b]52;c;ZXZpbA==\\x07 text',
    );
    expect(streamed(['\x1b', '[', '2', 'K'])).toBe('\\x1b[2K');
  });

  it('\\r\\n split across pieces is kept; a lone \\r at a piece end is shown', () => {
    expect(streamed(['one\r', '\ntwo'])).toBe('one\r\ntwo');
    expect(streamed(['one\r', 'two'])).toBe('one\\x0dtwo');
    expect(streamed(['end\r'])).toBe('end\\x0d');
    expect(streamed(['\r', '', '\n'])).toBe('\r\n');
  });

  it('any split gives the text neutralised whole', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 100 }),
        fc.array(fc.nat(100), { maxLength: 8 }),
        (text, cuts) => {
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort(
            (a, b) => a - b,
          );
          const pieces: string[] = [];
          let start = 0;
          for (const point of points) {
            pieces.push(text.slice(start, point));
            start = point;
          }
          pieces.push(text.slice(start));
          expect(streamed(pieces)).toBe(neutraliseControls(text));
        },
      ),
      { numRuns: 200 },
    );
  });
});
