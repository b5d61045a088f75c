/**
 * The link rules of the project's Markdown. The README and the docs are read in a clone, on the
 * repository host and inside the installed package, so every link to the project's own files is
 * relative, to a file that exists and ships (package.json `files`), with a heading that exists;
 * anything else is an in-page anchor or an absolute https address. No link goes through a
 * package CDN: the package is not on the registry, so such a link would be dead.
 */
import MarkdownIt, { type Token } from 'markdown-it';

/** Package CDNs: a link through one serves nothing while the package is not published. */
const PACKAGE_CDNS = /^https:\/\/(?:unpkg\.com|cdn\.jsdelivr\.net|esm\.sh)\//i;

/** What the rules need to know about the package. */
export interface PackageFiles {
  /** The Markdown of a file (a path from the package root), or undefined when there is none. */
  read(path: string): string | undefined;
  /** Whether the file is in the published package (package.json `files`). */
  isShipped(path: string): boolean;
}

export interface LinkProblem {
  readonly href: string;
  readonly problem: string;
}

/** Links become links as on GitHub and the registry: bare addresses included. */
const markdown = new MarkdownIt({ linkify: true });

function inlineTokens(text: string): Token[] {
  return markdown.parse(text, {}).flatMap((token) => [token, ...(token.children ?? [])]);
}

/** Every link and image address of a page, in order. */
export function linksOf(text: string): string[] {
  const links: string[] = [];
  for (const token of inlineTokens(text)) {
    if (token.type === 'link_open') links.push(String(token.attrGet('href') ?? ''));
    if (token.type === 'image') links.push(String(token.attrGet('src') ?? ''));
  }
  return links;
}

/**
 * The anchors of a page's headings, made as GitHub and the registry make them: the heading's
 * text in lower case, punctuation removed, spaces as hyphens, a repeated one numbered (`-1`).
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const tokens = markdown.parse(text, {});
  tokens.forEach((token, index) => {
    if (token.type !== 'heading_open') return;
    const words = (tokens[index + 1]?.children ?? [])
      .filter((child) => child.type === 'text' || child.type === 'code_inline')
      .map((child) => child.content)
      .join('');
    const base = words
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    let anchor = base;
    for (let count = 1; anchors.has(anchor); count++) anchor = `${base}-${count}`;
    anchors.add(anchor);
  });
  return anchors;
}

/** `a/b/../c.md` → `a/c.md`; undefined when the path climbs out of the package. */
function normalise(path: string): string | undefined {
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

/** A link to a file of the package (`path`, from the package root), with its `#anchor`. */
function fileLinkProblem(
  path: string | undefined,
  anchor: string | undefined,
  files: PackageFiles,
): string | undefined {
  if (path === undefined || path === '') return 'leads outside the package';
  const text = files.read(path);
  if (text === undefined) return `no file ${path} in the project`;
  if (!files.isShipped(path)) return `${path} is not in the package (package.json "files")`;
  if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(text).has(anchor))
    return `${path} has no heading #${anchor}`;
  return undefined;
}

function splitAnchor(href: string): [string, string | undefined] {
  const hash = href.indexOf('#');
  return hash === -1 ? [href, undefined] : [href.slice(0, hash), href.slice(hash + 1)];
}

/** What is wrong with each link of the page at `page` (a path from the package root). */
export function linkProblems(page: string, files: PackageFiles): LinkProblem[] {
  const text = files.read(page);
  if (text === undefined) throw new Error(`no page ${page}`);
  const anchors = anchorsOf(text);
  const problems: LinkProblem[] = [];
  for (const href of linksOf(text)) {
    const [target, anchor] = splitAnchor(href);
    let problem: string | undefined;
    if (target === '') {
      problem = anchors.has(anchor ?? '') ? undefined : `no heading #${anchor} on the page`;
    } else if (PACKAGE_CDNS.test(target)) {
      problem =
        'a package CDN, which serves nothing of an unpublished package: link the file relatively';
    } else if (/^https:\/\/[^/]/i.test(target)) {
      problem = undefined;
    } else if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) {
      problem = 'an address that is not https';
    } else {
      const folder = page.includes('/') ? page.slice(0, page.lastIndexOf('/') + 1) : '';
      problem = target.startsWith('/')
        ? 'an absolute path, which means nothing inside the package'
        : fileLinkProblem(normalise(folder + decodeURI(target)), anchor, files);
    }
    if (problem !== undefined) problems.push({ href, problem });
  }
  return problems;
}
