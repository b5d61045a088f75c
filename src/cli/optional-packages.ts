/**
 * The optional peer dependencies the commands need beyond toolwire's own `dependencies`, and the
 * check made before a command's module is loaded: a parser-only install has none of them, and a
 * command that needs one says which to install instead of failing on an import deep inside.
 */

/** The OpenAI-compatible chat client `agent` and `serve` talk to a model server with. */
export const MODEL_CLIENT_PACKAGES = ['@ai-sdk/openai-compatible'] as const;

/** The syntax parser of the code tools (`extract`, `query`). */
export const CODE_TOOLS_PACKAGES = ['@ast-grep/napi'] as const;

/** The HTTP server and its Node adapter. */
export const HTTP_SERVER_PACKAGES = ['hono', '@hono/node-server'] as const;

/** Finds a package as `import` would from this file; throws `ERR_MODULE_NOT_FOUND` when absent. */
export type PackageResolver = (name: string) => unknown;

const resolveFromHere: PackageResolver = (name) => import.meta.resolve(name);

/** The packages of `names` that are not installed where toolwire can import them, in order. */
export function missingPackages(
  names: readonly string[],
  resolve: PackageResolver = resolveFromHere,
): string[] {
  return names.filter((name) => {
    try {
      resolve(name);
      return false;
    } catch (error) {
      // Any other failure (a broken package, say) is reported as itself when the import runs.
      if ((error as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND') return true;
      throw error;
    }
  });
}

/** `a`, `a and b`, `a, b and c`. */
function listed(names: readonly string[]): string {
  return names.length < 2
    ? names.join('')
    : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/** What to tell the user when `command` cannot run without `missing`, and how to fix it. */
export function missingPackagesMessage(command: string, missing: readonly string[]): string {
  return `toolwire ${command} needs ${listed(missing)}: npm install ${missing.join(' ')}`;
}
