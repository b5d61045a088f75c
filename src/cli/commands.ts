/**
 * The CLI's commands. Each command's module is imported only when that command runs, so
 * `toolwire parse` and `toolwire --help` work on an install without the optional packages
 * `agent` and `serve` need; the usage texts come from modules that import none of them.
 */
import {
  CODE_TOOLS_PACKAGES,
  HTTP_SERVER_PACKAGES,
  MODEL_CLIENT_PACKAGES,
} from './optional-packages.ts';
import { AGENT_USAGE, GRAMMAR_USAGE, PARSE_USAGE, PROXY_USAGE, SERVE_USAGE } from './usage.ts';

/** Where a command writes (standard output or error, or a test's stand-in). */
export interface CommandOutput {
  write(text: string): void;
  readonly isTTY?: boolean;
}

export interface Command {
  /** The usage text, for `--help`, usage errors and the overview (loads no command module). */
  readonly usage: string;
  /**
   * The optional peer dependencies the command's module imports, checked before it is loaded:
   * a missing one is named with the `npm install` that adds it. None when absent.
   */
  readonly needs?: readonly string[];
  /**
   * Loads the command's module, runs it (its `--help` included) and resolves with the exit
   * status. It writes to `io`, else to the process's streams.
   */
  readonly run: (
    args: string[],
    io?: { readonly stdout: CommandOutput; readonly stderr: CommandOutput },
  ) => Promise<number>;
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  parse: {
    usage: PARSE_USAGE,
    run: async (args, io) =>
      (await import('./parse-command.ts')).parseCommand(args, io?.stdout, io?.stderr),
  },
  agent: {
    usage: AGENT_USAGE,
    needs: [...MODEL_CLIENT_PACKAGES, ...CODE_TOOLS_PACKAGES],
    run: async (args, io) =>
      (await import('./agent-command.ts')).agentCommand(args, io?.stdout, io?.stderr),
  },
  serve: {
    usage: SERVE_USAGE,
    needs: [...HTTP_SERVER_PACKAGES, ...MODEL_CLIENT_PACKAGES, ...CODE_TOOLS_PACKAGES],
    run: async (args, io) =>
      (await import('./serve-command.ts')).serveCommand(args, io?.stdout, io?.stderr),
  },
  proxy: {
    usage: PROXY_USAGE,
    needs: [...HTTP_SERVER_PACKAGES],
    run: async (args, io) =>
      (await import('./proxy-command.ts')).proxyCommand(args, io?.stdout, io?.stderr),
  },
  grammar: {
    usage: GRAMMAR_USAGE,
    run: async (args, io) =>
      (await import('./grammar-command.ts')).grammarCommand(args, io?.stdout, io?.stderr),
  },
};
