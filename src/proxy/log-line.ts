/**
 * One line for the proxy's operator log: whatever a model server or the network said goes on one
 * line, with no control characters (newlines, ANSI escapes, C1 codes, line separators) that could
 * break the log or drive a terminal, and without credentials in a URL it quotes.
 */
import { redactCredentials } from './upstream.ts';

/** Longest log line kept: a server's message past it is cut (its first part says enough). */
export const MAX_LOG_LINE_CHARS = 4000;

/** `text` as one log line: controls become one space each run, credentials are redacted. */
export function logLine(text: string): string {
  const line = redactCredentials(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ');
  return line.length > MAX_LOG_LINE_CHARS ? `${line.slice(0, MAX_LOG_LINE_CHARS)}…` : line;
}
