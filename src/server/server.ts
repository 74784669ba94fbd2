/**
 * Serve mode: the engine's router behind loopback HTTP, engine events as server-sent events, and
 * the built renderer as static files. Every request must carry the bearer token printed at start
 * (header, or the HttpOnly cookie the page gets when opened with `?token=`). A token opens cases,
 * not the disk: operations read only uploaded files and folders allowed at start (`./scope`).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import type { Engine } from '../core/engine';
import { CasefileError, toApiError, type ApiErrorShape } from '../shared/errors';
import { httpError, statusFor } from './http-errors';
import { checkScope, type ServeScope } from './scope';
import { contentType, resolveStatic } from './static';

export interface ServeOptions {
  engine: Engine;
  /** Interface to bind; loopback unless `allowRemote`. Default 127.0.0.1. */
  host?: string;
  /** Port; 0 picks a free one. Default 0. */
  port?: number;
  /** Required to bind anything but loopback. */
  allowRemote?: boolean;
  /** Folder of the built renderer. Default: `out/renderer` of this checkout. */
  staticDir?: string;
  /** Fixed token (tests); default a fresh random one. */
  token?: string;
  /** Largest JSON body accepted, bytes. */
  maxJsonBytes?: number;
  /** Largest single uploaded file, bytes. */
  maxUploadBytes?: number;
  /** Folders (besides uploads) whose files operations may read: `--allow-path DIR`. Default none. */
  allowPaths?: string[];
  /** Started for tests (`--allow-scripted-models`): a request may pick a `scripted:` model. Default false. */
  allowScriptedModels?: boolean;
}

export interface RunningServer {
  host: string;
  port: number;
  token: string;
  /** Base URL, without the token. */
  url: string;
  /** URL that signs the browser in (sets the cookie) and opens the app. */
  loginUrl: string;
  close(): Promise<void>;
}

/** Cookie holding the token; the port is part of the name so two servers on one machine do not collide. */
export function cookieName(port: number): string {
  return `casefile_token_${port}`;
}

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

const here = path.dirname(fileURLToPath(import.meta.url));
export const defaultStaticDir = path.resolve(here, '..', '..', 'out', 'renderer');

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

function sameToken(given: string | undefined, token: string): boolean {
  if (!given) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function cookieToken(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

function bearerToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization;
  const m = auth ? /^Bearer\s+(.+)$/i.exec(auth) : null;
  return m?.[1]?.trim();
}

const BASE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, error: ApiErrorShape): void {
  sendJson(res, status, { error });
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new CasefileError('invalid_input', `The request is too large (over ${Math.round(limit / 1e6)} MB).`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A relative upload path: forward slashes, no empty, `.` or `..` segments, no NUL or backslash. */
export function safeRelativePath(raw: string | null): string[] | null {
  if (!raw || raw.length > 4096 || raw.includes('\0') || raw.includes('\\')) return null;
  const segments = raw.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.length > 255)) return null;
  // Windows: a drive or stream marker ("C:", "a:b") would leave the upload folder.
  if (process.platform === 'win32' && segments.some((s) => s.includes(':'))) return null;
  return segments;
}

const UPLOAD_BATCH = /^[a-z0-9]{16,64}$/;

/** Start serving. Resolves once listening. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { engine } = options;
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.allowRemote) {
    throw new CasefileError(
      'invalid_input',
      `Refusing to listen on ${host}: only this computer (127.0.0.1) is allowed unless you add --allow-remote.`,
    );
  }
  const token = options.token ?? randomBytes(24).toString('base64url');
  const staticDir = options.staticDir ?? defaultStaticDir;
  const maxJson = options.maxJsonBytes ?? 16 * 1024 * 1024;
  const maxUpload = options.maxUploadBytes ?? 2 * 1024 * 1024 * 1024;
  const uploadsDir = path.join(engine.home, 'uploads');
  const scope: ServeScope = { uploadsDir, allowPaths: [...(options.allowPaths ?? [])], allowScriptedModels: options.allowScriptedModels === true };
  const streams = new Set<ServerResponse>();
  const uploadWatchers = new Set<() => void>();
  await removeStaleUploads(uploadsDir);

  let cookie = cookieName(options.port ?? 0);
  const authorised = (req: IncomingMessage) =>
    sameToken(bearerToken(req), token) || sameToken(cookieToken(req, cookie), token);

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://casefile.invalid');
    const method = req.method ?? 'GET';

    // DNS-rebinding guard: on loopback, the Host header must name loopback too.
    const hostHeader = (req.headers.host ?? '').replace(/:\d+$/, '');
    if (isLoopbackHost(host) && !isLoopbackHost(hostHeader)) {
      sendText(res, 403, 'Forbidden: this server only answers requests addressed to 127.0.0.1 or localhost.');
      return;
    }

    // Sign-in: the printed URL carries the token once; trade it for a cookie and drop it from the address.
    const queryToken = url.searchParams.get('token');
    if (queryToken !== null && (method === 'GET' || method === 'HEAD') && !url.pathname.startsWith('/api/')) {
      if (!sameToken(queryToken, token)) {
        sendText(res, 401, 'This sign-in link is not valid (the server was restarted?). Open the address `casefile serve` printed.');
        return;
      }
      url.searchParams.delete('token');
      res.writeHead(302, {
        ...BASE_HEADERS,
        'Set-Cookie': `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`,
        Location: url.pathname + (url.search || ''),
        'Cache-Control': 'no-store',
      });
      res.end();
      return;
    }

    if (!authorised(req)) {
      if (url.pathname.startsWith('/api/')) {
        sendError(res, 401, { code: 'unauthorized', message: 'Missing or wrong token. Open the address `casefile serve` printed.' });
      } else {
        sendText(res, 401, 'Casefile: sign in by opening the full address (with ?token=…) that `casefile serve` printed.');
      }
      return;
    }

    // Cross-site requests are refused even with a cookie (SameSite=Strict already stops browsers sending it).
    const origin = req.headers.origin;
    if (origin && method !== 'GET' && method !== 'HEAD') {
      let ok = false;
      try {
        ok = new URL(origin).host === req.headers.host;
      } catch {
        ok = false;
      }
      if (!ok) {
        sendError(res, 403, { code: 'invalid_input', message: 'Requests from other sites are refused.' });
        return;
      }
    }

    if (url.pathname.startsWith('/api/op/')) {
      if (method !== 'POST') {
        res.setHeader('Allow', 'POST');
        sendError(res, 405, { code: 'invalid_input', message: 'Operations are called with POST.' });
        return;
      }
      let name: string;
      try {
        name = decodeURIComponent(url.pathname.slice('/api/op/'.length));
      } catch {
        req.resume();
        sendError(res, 400, { code: 'invalid_input', message: 'The operation name in the address is not valid (a broken %-escape).' });
        return;
      }
      await handleOp(name, req, res);
      return;
    }
    if (url.pathname === '/api/events') {
      if (method !== 'GET') {
        sendError(res, 405, { code: 'invalid_input', message: 'The event stream is read with GET.' });
        return;
      }
      handleEvents(req, res);
      return;
    }
    if (url.pathname === '/api/upload' && method === 'POST') {
      const batch = randomBytes(12).toString('hex');
      const dir = path.join(uploadsDir, batch);
      await fs.mkdir(dir, { recursive: true });
      sendJson(res, 200, { batch, dir });
      return;
    }
    if (url.pathname.startsWith('/api/upload/') && method === 'PUT') {
      await handleUpload(url.pathname.slice('/api/upload/'.length), url.searchParams.get('path'), req, res);
      return;
    }
    if (url.pathname.startsWith('/api/')) {
      sendError(res, 404, { code: 'not_found', message: `No such API endpoint: ${url.pathname}` });
      return;
    }
    if (method !== 'GET' && method !== 'HEAD') {
      sendText(res, 405, 'Method not allowed.');
      return;
    }
    await serveStatic(url.pathname, method, res);
  };

  const handleOp = async (name: string, req: IncomingMessage, res: ServerResponse) => {
    let input: unknown = {};
    try {
      const body = await readBody(req, maxJson);
      const text = body.toString('utf8').trim();
      if (text) {
        try {
          input = JSON.parse(text);
        } catch (err) {
          const why = err instanceof Error ? err.message : String(err);
          sendError(res, 400, {
            code: 'invalid_input',
            message: `The request body is not valid JSON (${why}).`,
            fields: [{ field: '(body)', message: 'must be a JSON object' }],
          });
          return;
        }
      }
    } catch (err) {
      const e = toApiError(err);
      sendError(res, statusFor(e.code), e);
      return;
    }
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      await checkScope(name, input, scope);
      const value = await engine.router.call(name, input, { signal: controller.signal });
      if (name === 'ingest.start') cleanUploadsAfter(input, value);
      sendJson(res, 200, value ?? null);
    } catch (err) {
      const { status, error } = httpError(err);
      if (!res.writableEnded) sendError(res, status, error);
    }
  };

  /**
   * Uploaded batches are copied into the case by ingest (content-addressed), so once a run that
   * read them is done they are removed. A cancelled run keeps them (it may be resumed); a day-old
   * leftover is removed at the next start.
   */
  const cleanUploadsAfter = (input: unknown, value: unknown) => {
    const paths = (input as { paths?: unknown }).paths;
    if (!Array.isArray(paths)) return;
    const batches = new Set<string>();
    for (const p of paths) {
      if (typeof p !== 'string') continue;
      const rel = path.relative(uploadsDir, path.resolve(p));
      const batch = rel.split(path.sep)[0];
      if (batch && !rel.startsWith('..') && !path.isAbsolute(rel) && UPLOAD_BATCH.test(batch)) batches.add(path.join(uploadsDir, batch));
    }
    if (batches.size === 0) return;
    const remove = () => {
      for (const dir of batches) void fs.rm(dir, { recursive: true, force: true });
    };
    const result = value as { state?: string; jobId?: string };
    if (result.state === 'done') return remove();
    if (result.state !== 'running' || !result.jobId) return;
    const off = engine.events.on('ingest.progress', (p) => {
      if (p.jobId !== result.jobId || p.state === 'running') return;
      off();
      uploadWatchers.delete(off);
      if (p.state === 'done') remove();
    });
    uploadWatchers.add(off);
  };

  const handleEvents = (req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, {
      ...BASE_HEADERS,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    res.write('retry: 2000\n: connected\n\n');
    streams.add(res);
    const off = engine.events.onAny((envelope) => {
      res.write(`data: ${JSON.stringify(envelope)}\n\n`);
    });
    const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
    ping.unref();
    const done = () => {
      clearInterval(ping);
      off();
      streams.delete(res);
    };
    req.on('close', done);
    res.on('close', done);
  };

  const handleUpload = async (batch: string, rawPath: string | null, req: IncomingMessage, res: ServerResponse) => {
    const segments = safeRelativePath(rawPath);
    if (!UPLOAD_BATCH.test(batch) || !segments) {
      req.resume();
      sendError(res, 400, {
        code: 'invalid_input',
        message: 'Upload refused: the file path must be relative, without "..".',
        fields: [{ field: 'path', message: 'must be a relative path inside the dropped folder' }],
      });
      return;
    }
    const dir = path.join(uploadsDir, batch);
    const stat = await fs.stat(dir).catch(() => null);
    if (!stat?.isDirectory()) {
      req.resume();
      sendError(res, 404, { code: 'not_found', message: 'That upload batch does not exist; start the upload again.' });
      return;
    }
    const target = path.join(dir, ...segments);
    await fs.mkdir(path.dirname(target), { recursive: true });
    let size = 0;
    try {
      await pipeline(
        req,
        async function* limit(source) {
          for await (const chunk of source) {
            size += (chunk as Buffer).length;
            if (size > maxUpload) throw new CasefileError('invalid_input', `"${segments.join('/')}" is too large to upload.`);
            yield chunk as Buffer;
          }
        },
        createWriteStream(target, { flags: 'wx' }),
      );
    } catch (err) {
      // An existing file is the earlier upload of this path: it stays; only a partial write of ours goes.
      const exists = (err as NodeJS.ErrnoException).code === 'EEXIST';
      if (!exists) await fs.rm(target, { force: true });
      const e = exists ? { code: 'conflict' as const, message: `"${segments.join('/')}" was already uploaded in this batch.` } : toApiError(err);
      if (!res.writableEnded) sendError(res, statusFor(e.code), e);
      return;
    }
    sendJson(res, 200, { path: target, top: path.join(dir, segments[0]!), bytes: size });
  };

  const serveStatic = async (pathname: string, method: string, res: ServerResponse) => {
    const file = await resolveStatic(staticDir, pathname);
    if (!file) {
      const built = await fs.stat(path.join(staticDir, 'index.html')).catch(() => null);
      sendText(res, 404, built ? 'Not found.' : 'The interface is not built yet: run `npm run build`, then start `casefile serve` again.');
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
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((err) => {
      const e = toApiError(err);
      if (!res.headersSent) sendError(res, statusFor(e.code), e);
      else res.end();
    });
  });
  server.requestTimeout = 0; // long operations (a chat turn) and uploads must not be cut off
  server.headersTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new CasefileError('conflict', `Port ${options.port} is already in use; choose another with --port.`));
      } else if (err.code === 'EADDRNOTAVAIL') {
        reject(new CasefileError('invalid_input', `Cannot listen on ${host}: this computer has no such address.`));
      } else reject(err);
    });
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  cookie = cookieName(port);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}/`;
  return {
    host,
    port,
    token,
    url,
    loginUrl: `${url}?token=${token}`,
    async close() {
      for (const off of uploadWatchers) off();
      uploadWatchers.clear();
      for (const res of streams) res.end();
      streams.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Upload batches are copied into their case by ingest; anything a day old is leftover. */
async function removeStaleUploads(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const cutoff = Date.now() - 24 * 3600 * 1000;
  for (const entry of entries) {
    if (!entry.isDirectory() || !UPLOAD_BATCH.test(entry.name)) continue;
    const full = path.join(dir, entry.name);
    const stat = await fs.stat(full).catch(() => null);
    if (stat && stat.mtimeMs < cutoff) await fs.rm(full, { recursive: true, force: true });
  }
}
