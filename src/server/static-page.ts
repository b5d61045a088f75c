import { existsSync } from 'node:fs';
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/**
 * The page may load only its own scripts and styles and talk only to this server; images may
 * come from anywhere a tool result points (http, https, data), since results show them.
 */
export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: http: https:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Where the built page is: `dist/web` next to the compiled server (`dist/server`), or, when the
 * server runs from its sources (`src/server`), the repository's `dist/web`.
 */
export function defaultWebRoot(): string {
  const beside = fileURLToPath(new URL('../web/', import.meta.url));
  if (existsSync(join(beside, 'index.html'))) return beside;
  return fileURLToPath(new URL('../../dist/web/', import.meta.url));
}

export interface StaticFile {
  readonly body: Uint8Array;
  readonly headers: Record<string, string>;
}

/**
 * A file of the built page for a URL path, or undefined when there is none. Only files inside
 * `root` are served: `..`, encoded separators and symlinks that lead out are refused.
 */
export async function readPageFile(root: string, urlPath: string): Promise<StaticFile | undefined> {
  let path: string;
  try {
    path = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (path === '/' || path === '') path = '/index.html';
  const parts = path.split('/').filter((part) => part.length > 0);
  if (
    parts.some(
      (part) => part === '..' || part === '.' || part.includes('\\') || part.includes('\0'),
    )
  )
    return undefined;
  const file = join(root, ...parts);
  try {
    const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
    if (realFile !== realRoot && !realFile.startsWith(realRoot + sep)) return undefined;
    if (!(await stat(realFile)).isFile()) return undefined;
    const body = await readFile(realFile);
    const type = CONTENT_TYPES[extname(realFile).toLowerCase()] ?? 'application/octet-stream';
    const isHtml = type.startsWith('text/html');
    return {
      body,
      headers: {
        'content-type': type,
        // Vite names assets by their content: they never change; the page itself may.
        'cache-control':
          !isHtml && parts[0] === 'assets' ? 'public, max-age=31536000, immutable' : 'no-cache',
        ...(isHtml ? PAGE_SECURITY_HEADERS : { 'x-content-type-options': 'nosniff' }),
      },
    };
  } catch {
    return undefined;
  }
}

/** What `GET /` says when the page was never built. */
export function pageNotBuilt(root: string): string {
  return `<!doctype html><meta charset="utf-8"><title>toolwire: page not built</title>
<p>The toolwire page is not built (no index.html in ${escapeHtml(root)}).</p>
<p>Run <code>npm run build</code> (or <code>npm run build:web</code>), then start the server again, or use <code>npm start</code>, which builds first.</p>
<p>The API works without it: <code>POST /api/runs</code> with <code>{"prompt": "..."}</code>.</p>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
