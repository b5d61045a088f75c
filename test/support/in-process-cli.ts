import { runCommandLine } from '../../src/cli/run-command-line.ts';

/**
 * `toolwire ARGS` run in this process: its exit status and what it printed, as the shell would
 * see them (main.ts only hands these to the process). Much cheaper than a child process; a test
 * that is about the process itself (signals, stdin, the exit code reaching the shell) starts one
 * with child-process.ts instead.
 */
export async function runInProcess(
  args: string[],
): Promise<{ status: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const status = await runCommandLine(args, {
    stdout: {
      write: (text: string) => {
        stdout += text;
      },
    },
    stderr: {
      write: (text: string) => {
        stderr += text;
      },
    },
  });
  return { status, stdout, stderr };
}
