import { Lang } from './ast-grep.ts';

/** What is known about a file's language from its extension. */
export interface FileLanguage {
  /** The info string of a Markdown code fence (`''` when unknown). */
  readonly fence: string;
  /** The ast-grep built-in grammar, when there is one. */
  readonly grammar?: Lang;
}

const BY_EXTENSION: { readonly [extension: string]: FileLanguage } = {
  ts: { fence: 'typescript', grammar: Lang.TypeScript },
  mts: { fence: 'typescript', grammar: Lang.TypeScript },
  cts: { fence: 'typescript', grammar: Lang.TypeScript },
  tsx: { fence: 'tsx', grammar: Lang.Tsx },
  js: { fence: 'javascript', grammar: Lang.JavaScript },
  mjs: { fence: 'javascript', grammar: Lang.JavaScript },
  cjs: { fence: 'javascript', grammar: Lang.JavaScript },
  jsx: { fence: 'jsx', grammar: Lang.JavaScript },
  html: { fence: 'html', grammar: Lang.Html },
  htm: { fence: 'html', grammar: Lang.Html },
  css: { fence: 'css', grammar: Lang.Css },
  py: { fence: 'python' },
  pyi: { fence: 'python' },
  go: { fence: 'go' },
  rs: { fence: 'rust' },
  rb: { fence: 'ruby' },
  java: { fence: 'java' },
  kt: { fence: 'kotlin' },
  swift: { fence: 'swift' },
  c: { fence: 'c' },
  h: { fence: 'c' },
  cc: { fence: 'cpp' },
  cpp: { fence: 'cpp' },
  hpp: { fence: 'cpp' },
  cs: { fence: 'csharp' },
  php: { fence: 'php' },
  sh: { fence: 'bash' },
  json: { fence: 'json' },
  md: { fence: 'markdown' },
  yaml: { fence: 'yaml' },
  yml: { fence: 'yaml' },
  toml: { fence: 'toml' },
  sql: { fence: 'sql' },
};

const UNKNOWN: FileLanguage = { fence: '' };

export function languageOf(rel: string): FileLanguage {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  if (dot <= 0) return UNKNOWN;
  return BY_EXTENSION[name.slice(dot + 1).toLowerCase()] ?? UNKNOWN;
}

/**
 * The names `query` accepts for its `language` parameter, and the grammars each selects.
 * `typescript` includes .tsx files (parsed with the TSX grammar), as a TypeScript project has both.
 */
export const QUERY_LANGUAGES: { readonly [name: string]: readonly Lang[] } = {
  typescript: [Lang.TypeScript, Lang.Tsx],
  ts: [Lang.TypeScript, Lang.Tsx],
  tsx: [Lang.Tsx],
  javascript: [Lang.JavaScript],
  js: [Lang.JavaScript],
  jsx: [Lang.JavaScript],
  html: [Lang.Html],
  css: [Lang.Css],
};

/** How a grammar is named to the model (the `language` value that selects it). */
export function grammarName(lang: Lang): string {
  return lang === Lang.Tsx ? 'tsx' : lang.toLowerCase();
}
