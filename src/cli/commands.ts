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
import { AGENT_USAGE, PARSE_USAGE, PROXY_USAGE, SERVE_USAGE } from './usage.ts';

export interface Command {
  /** The usage text, for `--help`, usage errors and the overview (loads no command module). */
  readonly usage: string;
  /**
   * The optional peer dependencies the command's module imports, checked before it is loaded:
   * a missing one is named with the `npm install` that adds it. None when absent.
   */
  readonly needs?: readonly string[];
  /** Loads the command's module, runs it (its `--help` included) and resolves with the exit status. */
  readonly run: (args: string[]) => Promise<number>;
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  parse: {
    usage: PARSE_USAGE,
    run: async (args) => (await import('./parse-command.ts')).parseCommand(args),
  },
  agent: {
    usage: AGENT_USAGE,
    needs: [...MODEL_CLIENT_PACKAGES, ...CODE_TOOLS_PACKAGES],
    run: async (args) => (await import('./agent-command.ts')).agentCommand(args),
  },
  serve: {
    usage: SERVE_USAGE,
    needs: [...HTTP_SERVER_PACKAGES, ...MODEL_CLIENT_PACKAGES, ...CODE_TOOLS_PACKAGES],
    run: async (args) => (await import('./serve-command.ts')).serveCommand(args),
  },
  proxy: {
    usage: PROXY_USAGE,
    needs: [...HTTP_SERVER_PACKAGES],
    run: async (args) => (await import('./proxy-command.ts')).proxyCommand(args),
  },
};
