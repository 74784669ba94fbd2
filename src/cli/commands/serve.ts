import { promises as fs } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import type { Engine } from '../../core/engine';
import { UsageError, type CliIO, wireJson } from '../io';
import type { Parsed } from './cases';

const DEFAULT_PORT = 7411;

/** `--allow-path DIR` values: each an existing folder, returned with links resolved. */
async function allowedFolders(values: string | boolean | string[] | undefined): Promise<string[]> {
  const given = Array.isArray(values) ? values : typeof values === 'string' ? [values] : [];
  const folders: string[] = [];
  for (const dir of given) {
    const abs = path.resolve(dir);
    const stat = await fs.stat(abs).catch(() => null);
    if (!stat?.isDirectory()) throw new UsageError(`--allow-path ${dir}: there is no folder there`);
    folders.push(await fs.realpath(abs));
  }
  return [...new Set(folders)];
}

/** `--allow-downloads-from HOST` values (`huggingface.co`, `127.0.0.1:8080`, `*.hf.co`, or a URL of the host), each written one way. */
async function downloadHosts(values: string | boolean | string[] | undefined): Promise<string[]> {
  const given = Array.isArray(values) ? values : typeof values === 'string' ? [values] : [];
  const { normalizeHostPattern } = await import('../../core/models/download');
  const hosts: string[] = [];
  for (const value of given.flatMap((v) => v.split(','))) {
    if (!value.trim()) continue;
    const host = normalizeHostPattern(value);
    if (!host)
      throw new UsageError(
        `--allow-downloads-from ${value}: give a host name such as huggingface.co (optionally :PORT, or *.example.com for its subdomains)`,
      );
    hosts.push(host);
  }
  return [...new Set(hosts)];
}

/** A positive number of `unit` given with `flag`, in milliseconds; undefined when not given. */
function duration(args: Parsed, flag: string, unitMs: number): number | undefined {
  const v = args.values[flag];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`--${flag} must be a positive number, not "${String(v)}"`);
  return n * unitMs;
}

/** The firm-server flags: --firm, its session limits, and --tls-cert/--tls-key read from their files. */
async function firmOptions(args: Parsed) {
  const firm = args.values.firm === true;
  const idleMs = duration(args, 'session-idle', 60_000);
  const maxMs = duration(args, 'session-max', 3_600_000);
  if (!firm && (idleMs !== undefined || maxMs !== undefined))
    throw new UsageError('--session-idle and --session-max are for a firm server (serve --firm)');
  const certFile = args.values['tls-cert'];
  const keyFile = args.values['tls-key'];
  if ((typeof certFile === 'string') !== (typeof keyFile === 'string'))
    throw new UsageError('give both --tls-cert FILE and --tls-key FILE');
  const read = (flag: string, file: string) =>
    fs.readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`--${flag} ${file}: could not read it (${err.code ?? err.message})`);
    });
  const tls =
    typeof certFile === 'string' && typeof keyFile === 'string'
      ? { cert: await read('tls-cert', certFile), key: await read('tls-key', keyFile) }
      : undefined;
  const sessions = { ...(idleMs ? { idleMs } : {}), ...(maxMs ? { maxMs } : {}) };
  return { ...(firm ? { firm: { sessions } } : {}), ...(tls ? { tls } : {}) };
}

/** The serve flags, checked: port, host (loopback unless --allow-remote), folders, download hosts. */
async function serveOptions(args: Parsed, isLoopbackHost: (host: string) => boolean) {
  const portFlag = args.values.port;
  const port = portFlag === undefined ? DEFAULT_PORT : Number(portFlag);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be a number from 0 to 65535, not "${String(portFlag)}"`);
  const host = typeof args.values.host === 'string' ? args.values.host : '127.0.0.1';
  const allowRemote = args.values['allow-remote'] === true;
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new UsageError(
      `--host ${host} would expose your cases to the network; add --allow-remote if you really mean it`,
    );
  }
  const allowPaths = await allowedFolders(args.values['allow-path']);
  const allowScriptedModels = args.values['allow-scripted-models'] === true;
  const allowDownloadsFrom = await downloadHosts(args.values['allow-downloads-from']);
  const trustedProxies = proxyAddresses(args.values['trust-proxy']);
  const firmAndTls = await firmOptions(args);
  if (firmAndTls.firm && !isLoopbackHost(host) && !firmAndTls.tls)
    throw new UsageError(`--host ${host} on a firm server needs TLS: add --tls-cert FILE and --tls-key FILE`);
  // A firm server always keeps the audit trail; --audit turns it on for a single-token one.
  const audit = args.values.audit === true || Boolean(firmAndTls.firm);
  return {
    host,
    port,
    allowRemote,
    allowPaths,
    allowScriptedModels,
    allowDownloadsFrom,
    audit,
    trustedProxies,
    ...firmAndTls,
  };
}

/** `--trust-proxy ADDR`: IP addresses only (a name would be looked up, and could change). */
function proxyAddresses(values: unknown): string[] {
  const given = Array.isArray(values) ? values.map(String) : [];
  for (const address of given)
    if (isIP(address) === 0)
      throw new UsageError(`--trust-proxy ${address}: give the reverse proxy's IP address, such as 10.0.0.5`);
  return [...new Set(given)];
}

/** Starts, in the background, following the cases' folders (within scope) and catching up their vectors. */
async function startBackgroundWork(
  engine: Engine,
  allowPaths: string[],
  allowScriptedModels: boolean,
  io: CliIO,
): Promise<void> {
  // Cases that follow their folders catch up with them now, then follow them while the server runs.
  // A token may not reach past the server's folders through a case's followed folders either.
  const { inScope } = await import('../../server/scope');
  const scope = { uploadsDir: path.join(engine.home, 'uploads'), allowPaths, allowScriptedModels };
  void engine
    .watchService()
    .then((w) => {
      w.limitTo((folder) => inScope(folder, scope));
      return w.start();
    })
    .catch((err: unknown) => io.err(`casefile: following the cases' folders failed: ${(err as Error).message}`));
  // Ingests another process of this machine left when killed (a second server on this data
  // folder, a CLI run) are finished here: looked for now and every 15 seconds.
  void engine
    .ingestService()
    .then((ingest) => ingest.startAdopting(Number(process.env.CASEFILE_ADOPT_EVERY_MS) || 15_000))
    .catch((err: unknown) => io.err(`casefile: finishing interrupted ingests failed: ${(err as Error).message}`));
  // Cases whose passages wait for vectors (made before a model was installed) catch up in the background.
  void engine
    .startVectorCatchUp()
    .catch((err: unknown) => io.err(`casefile: catching up the cases' vectors failed: ${(err as Error).message}`));
}

/** Prints where the server listens, what it reads and downloads, and how to sign in (text or JSON). */
function printServing(
  engine: Engine,
  server: { url: string; loginUrl: string; token: string; port: number; firm: boolean },
  options: { allowPaths: string[]; allowDownloadsFrom: string[]; allowScriptedModels: boolean; audit: boolean },
  json: boolean,
  io: CliIO,
): void {
  const { allowPaths, allowDownloadsFrom, allowScriptedModels, audit } = options;
  if (json) {
    io.out(
      wireJson({
        url: server.url,
        login_url: server.loginUrl,
        token: server.token,
        port: server.port,
        firm: server.firm,
        home: engine.home,
        allow_paths: allowPaths,
        allow_downloads_from: allowDownloadsFrom,
        audit,
      }),
    );
  } else {
    io.out(`Casefile is serving ${engine.home}`);
    io.out(
      allowPaths.length
        ? `Reads uploaded files and these folders: ${allowPaths.join(', ')}`
        : 'Reads only files uploaded through the page (allow a folder with --allow-path DIR).',
    );
    io.out(
      allowDownloadsFrom.length
        ? `Downloads models only from: ${allowDownloadsFrom.join(', ')}`
        : 'Model downloads are off (allow a host with --allow-downloads-from HOST).',
    );
    if (audit) io.out(`Audit trail: on, every request recorded in ${path.join(engine.home, 'audit')}`);
    if (allowScriptedModels) io.out('Scripted test models are on (--allow-scripted-models): for tests only.');
    io.out(`Open: ${server.loginUrl}`);
    if (server.firm) io.out('Firm server: people sign in with their accounts (casefile firm user add NAME).');
    else io.out(`Token: ${server.token}   (API clients: Authorization: Bearer <token>)`);
    io.out('Press Ctrl+C to stop.');
  }
}

/** Resolves at the first SIGINT or SIGTERM. */
function untilStopped(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/**
 * `casefile serve [--port N] [--host 127.0.0.1] [--allow-remote] [--allow-path DIR]... [--allow-downloads-from HOST]... [--allow-scripted-models] [--audit]`:
 * the app in a browser on this machine. Prints the sign-in URL (with its one-time token) and runs
 * until Ctrl+C / SIGTERM. The server reads only uploaded files and the --allow-path folders, and
 * downloads models only from the --allow-downloads-from hosts (none by default).
 */
export async function serveCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  if (args.positionals.length) {
    throw new UsageError(
      'serve takes no arguments, only --port, --host, --allow-remote, --allow-path, --allow-downloads-from, --allow-scripted-models, --audit, --trust-proxy, --firm, --tls-cert, --tls-key, --session-idle and --session-max',
    );
  }
  const { isLoopbackHost, startServer } = await import('../../server/server');
  const options = await serveOptions(args, isLoopbackHost);
  const { host, allowPaths, allowScriptedModels } = options;
  const server = await startServer({ engine, ...options });
  await startBackgroundWork(engine, allowPaths, allowScriptedModels, io);
  if (!isLoopbackHost(host) && !options.firm) {
    io.err(
      `WARNING: listening on ${host}: anyone who can reach this address and has the token can read every case in ${engine.home}.${options.tls ? '' : ' Traffic is not encrypted.'}`,
    );
  }
  if (options.firm && (await (await engine.firmStore()).users()).length === 0)
    io.err('Nobody can sign in yet: create an administrator with casefile firm user add NAME --admin');
  printServing(engine, server, options, args.values.json === true, io);
  await untilStopped();
  await server.close();
  return 0;
}
