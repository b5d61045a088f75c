/**
 * The one module that loads `@ast-grep/napi`, the syntax parser of `extract` and `query`. It is
 * an optional peer dependency of toolwire (a native package a parser-only install does not
 * need), so importing `toolwire/code-tools` without it fails here, saying what to install,
 * rather than with the loader's bare "Cannot find package".
 */
import type * as AstGrep from '@ast-grep/napi';
import { ToolwireError } from '../../core/errors.ts';

const PACKAGE = '@ast-grep/napi';

function isInstalled(name: string): boolean {
  try {
    import.meta.resolve(name);
    return true;
  } catch {
    return false;
  }
}

async function loadAstGrep(): Promise<typeof AstGrep> {
  try {
    return await import('@ast-grep/napi');
  } catch (error) {
    // Installed but failing (no native binary for this platform, say): its own error says more.
    if (isInstalled(PACKAGE)) throw error;
    throw new ToolwireError(
      'missing-package',
      `toolwire/code-tools needs ${PACKAGE}, an optional peer dependency of toolwire that is not installed: npm install ${PACKAGE}`,
      { cause: error },
    );
  }
}

const astGrep = await loadAstGrep();

export const Lang = astGrep.Lang;
export type Lang = AstGrep.Lang;
export const parse = astGrep.parse;
export type SgNode = AstGrep.SgNode;
