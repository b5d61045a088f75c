/** Bad command-line usage: the CLI prints the message and exits with status 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
