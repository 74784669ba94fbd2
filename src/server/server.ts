/**
 * Serve mode: the engine's router behind loopback HTTP, engine events as SSE, and the built renderer.
 * Every request carries the bearer token printed at start (header, or the HttpOnly cookie set by
 * `?token=`). A token opens cases, not the disk: operations read only uploads and the folders allowed
 * at start (`./scope`). Composes `auth`, `dispatch`, `uploads`, `exports`, `events` and `static`.
 */
import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Engine } from '../core/engine';
import { CasefileError } from '../shared/errors';
import { createAuth, isLoopbackHost, type Auth } from './auth';
import { recordOp } from './audit-ops';
import { createDispatch, type Dispatch } from './dispatch';
import { createEventStreams, type EventStreams } from './events';
import { createExports, type Exports } from './exports';
import { createFirmAuth, type FirmAuthOptions } from './firm-auth';
import { sendError, sendJson, sendText, sendThrown } from './respond';
import type { ServeScope } from './scope';
import { defaultStaticDir, serveStatic } from './static';
import { createUploads } from './uploads';
import { createWalls, type Walls } from './walls';

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
  /**
   * A firm server (`--firm`): people sign in with their accounts (`<home>/firm/`), reviewers see
   * only their cases. Session and throttle limits and the clock may be given (tests).
   */
  firm?: Pick<FirmAuthOptions, 'sessions' | 'throttle' | 'now'>;
  /** Serve HTTPS with this certificate and key (PEM). A firm server needs it to listen beyond loopback. */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /** Record every operation in the audit trail (`--audit`; `<home>/audit`). A firm server always records. Default false. */
  audit?: boolean;
  /**
   * Addresses of the reverse proxies in front of this server (`--trust-proxy ADDR`): a request from
   * one of them is taken as from the client its X-Forwarded-For names (throttle, audit). Default none.
   */
  trustedProxies?: string[];
}

export interface RunningServer {
  host: string;
  port: number;
  /** The token of a single-token server; empty on a firm server (people sign in with their accounts). */
  token: string;
  firm: boolean;
  /** Base URL, without the token. */
  url: string;
  /** URL that signs the browser in (sets the cookie) and opens the app. */
  loginUrl: string;
  close(): Promise<void>;
}

/** Listen on `host`:`port` (0: a free one); a port in use or an address this computer lacks is said in a sentence. */
function listen(server: http.Server | https.Server, host: string, port: number | undefined): Promise<void> {
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
  auth: Auth,
  dispatch: Dispatch,
  events: EventStreams,
  uploads: Awaited<ReturnType<typeof createUploads>>,
  exports: Exports,
  staticDir: string,
) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://casefile.invalid');
    const method = req.method ?? 'GET';
    const actor = await auth.admit(req, res, url, method);
    if (!actor) return;
    const { pathname } = url;
    if (pathname.startsWith('/api/op/')) return dispatch(req, res, url, method, actor);
    if (pathname === '/api/events') {
      if (method !== 'GET')
        return sendError(res, 405, { code: 'invalid_input', message: 'The event stream is read with GET.' });
      return events.open(req, res, actor);
    }
    // A firm server answers this before sign-in (./firm-auth); a single-token server has no accounts.
    if (pathname === '/api/session' && method === 'GET')
      return sendJson(res, 200, { firm: false, user: null, csrf: null });
    if (pathname === '/api/upload' && method === 'POST') return uploads.start(res);
    if (pathname.startsWith('/api/upload/') && method === 'PUT')
      return uploads.put(pathname.slice('/api/upload/'.length), url.searchParams.get('path'), req, res);
    if (pathname === '/api/export' && method === 'POST') return exports.post(req, res, actor);
    if (pathname.startsWith('/api/'))
      return sendError(res, 404, { code: 'not_found', message: `No such API endpoint: ${pathname}` });
    if (method !== 'GET' && method !== 'HEAD') return sendText(res, 405, 'Method not allowed.');
    return serveStatic(staticDir, pathname, method, res);
  };
}

/** The HTTP server around `route`: a thrown error becomes an error response; long requests are not cut off. */
function createHttpServer(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  tls: ServeOptions['tls'],
): http.Server | https.Server {
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    route(req, res).catch((err) => {
      if (!res.headersSent) sendThrown(res, err);
      else res.end();
    });
  };
  const server = tls ? https.createServer({ cert: tls.cert, key: tls.key }, handle) : http.createServer(handle);
  server.requestTimeout = 0; // long operations (a chat turn) and uploads must not be cut off
  server.headersTimeout = 60_000;
  return server;
}

/** Refuse a host beyond loopback without --allow-remote, and (a firm server) without TLS. */
function checkHost(options: ServeOptions, host: string): void {
  if (isLoopbackHost(host)) return;
  if (!options.allowRemote) {
    throw new CasefileError(
      'invalid_input',
      `Refusing to listen on ${host}: only this computer (127.0.0.1) is allowed unless you add --allow-remote.`,
    );
  }
  if (options.firm && !options.tls) {
    throw new CasefileError(
      'invalid_input',
      `Refusing to listen on ${host} without TLS: a firm server reachable from the network needs --tls-cert FILE and --tls-key FILE, so passwords and documents are encrypted on the way.`,
    );
  }
}

/** Who may ask (a token, or a firm's accounts) and, on a firm server, the walls between its cases. */
async function accessFor(options: ServeOptions, host: string, token: string): Promise<{ auth: Auth; walls?: Walls }> {
  const { engine } = options;
  if (!options.firm) return { auth: createAuth(host, token, options.port ?? 0, options.trustedProxies) };
  const store = await engine.firmStore();
  const exists = (id: string) =>
    engine.cases.get(id).then(
      () => true,
      () => false,
    );
  const auth = await createFirmAuth({
    ...options.firm,
    host,
    store,
    port: options.port ?? 0,
    tls: !!options.tls,
    audit: engine.audit(),
    ...(options.trustedProxies ? { trustedProxies: options.trustedProxies } : {}),
  });
  return { auth, walls: createWalls(store, exists, engine.events) };
}

/** Start serving. Resolves once listening. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const { engine } = options;
  const host = options.host ?? '127.0.0.1';
  checkHost(options, host);
  const token = options.firm ? '' : (options.token ?? randomBytes(24).toString('base64url'));
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
  const { auth, walls } = await accessFor(options, host, token);
  const events = createEventStreams(engine.events, walls?.casesOf);
  const uploads = await createUploads({
    uploadsDir,
    maxUploadBytes: options.maxUploadBytes ?? 2 * 1024 * 1024 * 1024,
    events: engine.events,
  });
  const audit = options.audit || options.firm ? engine.audit() : undefined;
  const dispatch = createDispatch({
    router: engine.router,
    scope,
    maxJsonBytes: options.maxJsonBytes ?? 16 * 1024 * 1024,
    afterOp: uploads.afterOp,
    ...(walls ? { walls } : {}),
    ...(audit ? { audit } : {}),
  });
  const exports = await createExports(engine.router, path.join(engine.home, 'exports'), async (input, actor) => {
    if (walls) await walls.check('cases.export', input, actor);
    if (audit) await recordOp(audit, 'cases.export', input, actor);
  });
  const server = createHttpServer(createRoute(auth, dispatch, events, uploads, exports, staticDir), options.tls);
  await listen(server, host, options.port).catch((err: unknown) => {
    catalog.limitDownloads(downloadLimitBefore);
    walls?.close();
    throw err;
  });
  const port = (server.address() as AddressInfo).port;
  auth.setPort(port);
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const url = `${options.tls ? 'https' : 'http'}://${urlHost}:${port}/`;
  return {
    host,
    port,
    token,
    firm: !!options.firm,
    url,
    loginUrl: options.firm ? url : `${url}?token=${token}`,
    async close() {
      catalog.limitDownloads(downloadLimitBefore);
      walls?.close();
      uploads.close();
      events.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
