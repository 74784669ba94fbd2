/**
 * Serve mode: the engine's router behind loopback HTTP, engine events as SSE, and the built renderer.
 * Every request carries the bearer token printed at start (header, or the HttpOnly cookie set by
 * `?token=`). A token opens cases, not the disk: operations read only uploads and the folders allowed
 * at start (`./scope`). Composes `auth`, `dispatch`, `uploads`, `exports`, `events` and `static`.
 */
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Engine } from '../core/engine';
import { CasefileError } from '../shared/errors';
import { createAuth, isLoopbackHost } from './auth';
import { createDispatch } from './dispatch';
import { createEventStreams } from './events';
import { createExports, type Exports } from './exports';
import { sendError, sendText, sendThrown } from './respond';
import type { ServeScope } from './scope';
import { defaultStaticDir, serveStatic } from './static';
import { createUploads } from './uploads';

export { cookieName, isLoopbackHost } from './auth';
export { SERVE_CSP } from './static';

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
  /**
   * Hosts `models.download` may fetch from (`--allow-downloads-from HOST`: `huggingface.co`,
   * `127.0.0.1:8080`, `*.hf.co`), every redirect included. Default none: downloads are off.
   */
  allowDownloadsFrom?: string[];
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

/** Listen on `host`:`port` (0: a free one); a port in use or an address this computer lacks is said in a sentence. */
function listen(server: http.Server, host: string, port: number | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EADDRINUSE') {
        reject(new CasefileError('conflict', `Port ${port} is already in use; choose another with --port.`));
      } else if (err.code === 'EADDRNOTAVAIL') {
        reject(new CasefileError('invalid_input', `Cannot listen on ${host}: this computer has no such address.`));
      } else reject(err);
    });
    server.listen(port ?? 0, host, () => resolve());
  });
}

/** The request handler: sign-in check, then the API (operations, events, uploads), then the built renderer. */
function createRoute(
  auth: ReturnType<typeof createAuth>,
  dispatch: ReturnType<typeof createDispatch>,
  events: ReturnType<typeof createEventStreams>,
  uploads: Awaited<ReturnType<typeof createUploads>>,
  exports: Exports,
  staticDir: string,
) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://casefile.invalid');
    const method = req.method ?? 'GET';
    if (!auth.admit(req, res, url, method)) return;
    const { pathname } = url;
    if (pathname.startsWith('/api/op/')) return dispatch(req, res, url, method);
    if (pathname === '/api/events') {
      if (method !== 'GET')
        return sendError(res, 405, { code: 'invalid_input', message: 'The event stream is read with GET.' });
      return events.open(req, res);
    }
    if (pathname === '/api/upload' && method === 'POST') return uploads.start(res);
    if (pathname.startsWith('/api/upload/') && method === 'PUT')
      return uploads.put(pathname.slice('/api/upload/'.length), url.searchParams.get('path'), req, res);
    if (pathname === '/api/export' && method === 'POST') return exports.post(req, res);
    if (pathname.startsWith('/api/'))
      return sendError(res, 404, { code: 'not_found', message: `No such API endpoint: ${pathname}` });
    if (method !== 'GET' && method !== 'HEAD') return sendText(res, 405, 'Method not allowed.');
    return serveStatic(staticDir, pathname, method, res);
  };
}

/** The HTTP server around `route`: a thrown error becomes an error response; long requests are not cut off. */
function createHttpServer(route: (req: IncomingMessage, res: ServerResponse) => Promise<void>): http.Server {
  const server = http.createServer((req, res) => {
    route(req, res).catch((err) => {
      if (!res.headersSent) sendThrown(res, err);
      else res.end();
    });
  });
  server.requestTimeout = 0; // long operations (a chat turn) and uploads must not be cut off
  server.headersTimeout = 60_000;
  return server;
}

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
  const uploadsDir = path.join(engine.home, 'uploads');
  const downloadHosts = [...(options.allowDownloadsFrom ?? [])];
  const scope: ServeScope = {
    uploadsDir,
    allowPaths: [...(options.allowPaths ?? [])],
    allowScriptedModels: options.allowScriptedModels === true,
    downloadHosts,
  };
  // The catalog checks every address a download asks (redirects too), not only the one requested.
  const catalog = await engine.catalog();
  const downloadLimitBefore = catalog.downloadLimit;
  catalog.limitDownloads(downloadHosts);
  const events = createEventStreams(engine.events);
  const uploads = await createUploads({
    uploadsDir,
    maxUploadBytes: options.maxUploadBytes ?? 2 * 1024 * 1024 * 1024,
    events: engine.events,
  });
  const auth = createAuth(host, token, options.port ?? 0);
  const dispatch = createDispatch({
    router: engine.router,
    scope,
    maxJsonBytes: options.maxJsonBytes ?? 16 * 1024 * 1024,
    afterOp: uploads.afterOp,
  });

  const exports = await createExports(engine.router, path.join(engine.home, 'exports'));
  const server = createHttpServer(createRoute(auth, dispatch, events, uploads, exports, staticDir));

  const listening = listen(server, host, options.port);
  await listening.catch((err: unknown) => {
    catalog.limitDownloads(downloadLimitBefore);
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  auth.setPort(port);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${urlHost}:${port}/`;
  return {
    host,
    port,
    token,
    url,
    loginUrl: `${url}?token=${token}`,
    async close() {
      catalog.limitDownloads(downloadLimitBefore);
      uploads.close();
      events.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
