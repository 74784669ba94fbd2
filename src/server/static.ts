/** The built renderer (`npm run build`), served as static files; the page under a strict CSP. */
import { promises as fs } from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { appRoot } from '../core/util/app-root';
import { BASE_HEADERS, sendText } from './respond';

/** Content-Security-Policy of the served page: our own bundle only. */
export const SERVE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "object-src 'none'",
].join('; ');

export const defaultStaticDir = path.join(
  appRoot(import.meta.url) ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..'),
  'out',
  'renderer',
);

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

export function contentType(file: string): string {
  return TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Resolve a URL path to a file strictly inside `root`, or null. Refuses encoded traversal
 * (`..`, `%2e%2e`, backslashes, NUL) and anything that resolves outside the root, symlinks included.
 */
export async function resolveStatic(root: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const segments = decoded.split('/').filter((s) => s.length > 0);
  if (segments.some((s) => s === '..' || s === '.')) return null;
  const rel = segments.join('/') || 'index.html';
  const realRoot = await fs.realpath(root).catch(() => null);
  if (!realRoot) return null;
  const candidate = path.resolve(realRoot, rel);
  const real = await fs.realpath(candidate).catch(() => null);
  if (!real || (real !== realRoot && !real.startsWith(realRoot + path.sep))) return null;
  const stat = await fs.stat(real).catch(() => null);
  if (!stat?.isFile()) return null;
  return real;
}

/** Answer a GET or HEAD for `pathname` from `staticDir`: the file, or 404 (saying so when nothing is built). */
export async function serveStatic(
  staticDir: string,
  pathname: string,
  method: string,
  res: ServerResponse,
): Promise<void> {
  const file = await resolveStatic(staticDir, pathname);
  if (!file) {
    const built = await fs.stat(path.join(staticDir, 'index.html')).catch(() => null);
    sendText(
      res,
      404,
      built ? 'Not found.' : 'The interface is not built yet: run `npm run build`, then start `casefile serve` again.',
    );
    return;
  }
  const body = await fs.readFile(file);
  const isHtml = file.endsWith('.html');
  res.writeHead(200, {
    ...BASE_HEADERS,
    'Content-Type': contentType(file),
    'Content-Length': body.length,
    'Cache-Control': isHtml ? 'no-store' : 'private, max-age=3600',
    ...(isHtml ? { 'Content-Security-Policy': SERVE_CSP } : {}),
  });
  res.end(method === 'HEAD' ? undefined : body);
}
