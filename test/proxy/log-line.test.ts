/** `logLine`: every line the proxy logs is one line, with no controls and no URL credentials. */
import { describe, expect, it } from 'vitest';
import { logLine, MAX_LOG_LINE_CHARS } from '../../src/proxy/log-line.ts';

describe('logLine', () => {
  it('turns each run of control characters into one space', () => {
    expect(logLine('a\nb\r\n\tc\u001b[31md\u0085e\u2028f\u2029g\u007f')).toBe('a b c [31md e f g ');
  });

  it('redacts the credentials of a URL it quotes', () => {
    expect(logLine('GET http://user:secret@host:8080/props failed')).toBe(
      'GET http://***@host:8080/props failed',
    );
  });

  it('cuts a line past its most', () => {
    const line = logLine('x'.repeat(MAX_LOG_LINE_CHARS * 3));
    expect(line).toHaveLength(MAX_LOG_LINE_CHARS + 1);
    expect(line.endsWith('…')).toBe(true);
  });

  it('takes a hostile line in linear time (a class, no backtracking)', () => {
    const line = logLine('\n'.repeat(1_000_000) + 'x');
    expect(line).toBe(' x');
  });
});
