import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CasefileError } from '../../shared/errors';
import { modelIdFrom } from './ids';

/** What to fetch for one model: one GGUF file, or the files of a transformers.js folder. */
export interface DownloadPlan {
  id: string;
  kind: 'file' | 'folder';
  /** Host shown in messages. */
  host: string;
  files: Array<{ url: string; path: string; optional?: boolean; alternatives?: string[] }>;
}

export interface DownloadProgress {
  file: string;
  received_bytes: number;
  total_bytes: number | null;
}

/** Where Hugging Face names are fetched (huggingface.co, or a mirror: HF_ENDPOINT), and the token gated models need (HF_TOKEN). */
export interface HubConfig {
  endpoint: string;
  token?: string;
}

export const DEFAULT_HUB: HubConfig = { endpoint: 'https://huggingface.co' };

const HF_REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/;
const HF_FILE = /^([A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*)\/(.+\.gguf)$/i;

/**
 * Turn what the user typed into files to fetch: an http(s) URL of a `.gguf` file, a Hugging Face
 * file reference `owner/repo/file.gguf`, or a Hugging Face repository `owner/repo` holding a
 * transformers.js model (config.json, tokenizer files, onnx/model_quantized.onnx or onnx/model.onnx).
 */
export function planDownload(source: string, id?: string, hub: HubConfig = DEFAULT_HUB): DownloadPlan {
  const src = source.trim();
  if (/^https?:\/\//i.test(src)) {
    let url: URL;
    try {
      url = new URL(src);
    } catch {
      throw new CasefileError('invalid_input', `"${src}" is not a valid URL.`);
    }
    const name = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    if (!/\.gguf$/i.test(name)) {
      throw new CasefileError(
        'invalid_input',
        `Only .gguf files can be downloaded by URL; for a transformers.js model give its Hugging Face name (e.g. Xenova/bge-small-en-v1.5).`,
      );
    }
    return { id: id ?? modelIdFrom(name), kind: 'file', host: url.host, files: [{ url: url.href, path: name }] };
  }
  const base = hub.endpoint;
  const host = new URL(base).host;
  const file = HF_FILE.exec(src);
  if (file) {
    const [, repo, rel] = file;
    const name = rel!.split('/').pop()!;
    return {
      id: id ?? modelIdFrom(name),
      kind: 'file',
      host,
      files: [{ url: `${base}/${repo}/resolve/main/${rel}`, path: name }],
    };
  }
  if (HF_REPO.test(src)) {
    const url = (p: string) => `${base}/${src}/resolve/main/${p}`;
    return {
      id: id ?? modelIdFrom(src.split('/')[1]!),
      kind: 'folder',
      host,
      files: [
        { url: url('config.json'), path: 'config.json' },
        { url: url('tokenizer.json'), path: 'tokenizer.json' },
        { url: url('tokenizer_config.json'), path: 'tokenizer_config.json', optional: true },
        { url: url('special_tokens_map.json'), path: 'special_tokens_map.json', optional: true },
        { url: url('1_Pooling/config.json'), path: '1_Pooling/config.json', optional: true },
        { url: url('onnx/model_quantized.onnx'), path: 'onnx/model_quantized.onnx', alternatives: ['onnx/model.onnx'] },
      ],
    };
  }
  throw new CasefileError(
    'invalid_input',
    `"${src}" is neither a URL of a .gguf file nor a Hugging Face name (owner/repo or owner/repo/file.gguf).`,
  );
}

/**
 * The hosts a download may reach, as `--allow-downloads-from` names them: `huggingface.co` (that
 * host, any port), `127.0.0.1:8080` (that host and port) or `*.hf.co` (every host under hf.co).
 * Null: any host (the CLI and the desktop app, which act for the user at the keyboard).
 */
export type DownloadHosts = readonly string[] | null;

interface HostPattern {
  hostname: string;
  /** Empty: any port. */
  port: string;
  subdomains: boolean;
}

function parseHostPattern(value: string): HostPattern | null {
  let text = value.trim().toLowerCase();
  const subdomains = text.startsWith('*.');
  if (subdomains) text = text.slice(2);
  if (!text || text.includes('*')) return null;
  // A port written after a bare host is kept even when it is http's own (the URL parser drops 80).
  const bare = !/^[a-z][a-z0-9+.-]*:\/\//.test(text);
  const port = bare ? (/^(?:\[[^\]]*\]|[^:]*):(\d+)$/.exec(text)?.[1] ?? '') : '';
  try {
    const url = new URL(bare ? `http://${text}` : text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
      return null;
    return { hostname: url.hostname, port: port ? String(Number(port)) : url.port, subdomains };
  } catch {
    return null;
  }
}

/** A host pattern written the one way the matcher reads it, or null when it names no host (a path, a query, a bad name). */
export function normalizeHostPattern(value: string): string | null {
  const p = parseHostPattern(value);
  if (!p) return null;
  return `${p.subdomains ? '*.' : ''}${p.hostname}${p.port ? `:${p.port}` : ''}`;
}

function defaultPort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** Whether `url` is an http(s) address on one of `hosts`. */
export function hostAllowed(url: URL, hosts: readonly string[]): boolean {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  return hosts.some((h) => {
    const p = parseHostPattern(h);
    if (!p) return false;
    const nameOk = p.subdomains ? url.hostname.endsWith(`.${p.hostname}`) : url.hostname === p.hostname;
    return nameOk && (!p.port || p.port === defaultPort(url));
  });
}

/** The address a download of `source` asks first (the URL itself, or the hub), or null when `source` is not one. */
export function firstAddress(source: string, hub: HubConfig = DEFAULT_HUB): URL | null {
  const src = source.trim();
  try {
    return new URL(/^https?:\/\//i.test(src) ? src : hub.endpoint);
  } catch {
    return null;
  }
}

/**
 * The answer to a download from a host that is not allowed. It is the same for every such source
 * and is given before anything is fetched, so it tells nothing about the address (whether it
 * answers, has the file, or serves a model).
 */
export function downloadRefused(hosts: readonly string[]): CasefileError {
  const message = hosts.length
    ? `Models are downloaded here only from ${hosts.join(', ')}, and that source is not one of them. Ask whoever runs Casefile to import the model, or to allow its host.`
    : 'Downloading models is off here. Ask whoever runs Casefile to import the model.';
  return new CasefileError('forbidden', message, [
    { field: 'source', message: 'downloads from this source are not allowed here' },
  ]);
}

function networkReason(err: unknown): string {
  const e = err as { cause?: { code?: string; message?: string }; code?: string; message?: string };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

function offline(host: string, err: unknown): CasefileError {
  return CasefileError.withRemedy(
    'unavailable',
    `Cannot reach ${host} (${networkReason(err)}). Downloading a model needs a network connection.`,
    {
      app: 'On a machine without one, import the model from disk: “Choose a model file (.gguf)…” or “Choose a model folder…” above.',
      cli: 'On a machine without one, import the model from disk: casefile models import <file.gguf | folder>.',
    },
  );
}

/** Redirects followed for one file, as many as fetch itself follows. */
const MAX_REDIRECTS = 20;

/**
 * GET `url`, following redirects one by one so that every address asked is checked against
 * `hosts` first (a host that is allowed cannot send the download on to one that is not). The
 * hub's token goes only to the hub's host.
 */
async function request(
  url: string,
  range: string | null,
  hosts: DownloadHosts,
  hub: HubConfig,
  host: string,
  signal?: AbortSignal,
): Promise<Response> {
  let current = new URL(url);
  const hubHost = new URL(hub.endpoint).host;
  for (let hop = 0; ; hop++) {
    if (hosts && !hostAllowed(current, hosts)) throw downloadRefused(hosts);
    if (current.protocol !== 'http:' && current.protocol !== 'https:')
      throw new CasefileError('failed', `${host} sent the download of ${url} to an address that is not http(s).`);
    const headers: Record<string, string> = {};
    if (range) headers.Range = range;
    if (hub.token && current.host === hubHost) headers.Authorization = `Bearer ${hub.token}`;
    let res: Response;
    try {
      res = await fetch(current, { headers, redirect: 'manual', signal });
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      throw offline(host, err);
    }
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || res.status === 304 || !location) return res;
    await res.body?.cancel();
    if (hop >= MAX_REDIRECTS)
      throw new CasefileError('failed', `${host} redirected the download of ${url} too many times.`);
    current = new URL(location, current);
  }
}

/**
 * Fetch one URL into `dest`, resuming from `dest.partial` (HTTP Range) and reporting progress.
 * Returns false for a 404 (the caller decides whether that file was optional).
 */
async function fetchFile(
  url: string,
  dest: string,
  host: string,
  onProgress: (p: DownloadProgress) => void,
  options: { hub: HubConfig; hosts: DownloadHosts; signal?: AbortSignal | undefined },
): Promise<boolean> {
  const { signal } = options;
  const partial = `${dest}.partial`;
  await fs.mkdir(path.dirname(dest), { recursive: true });
  const have = (await fs.stat(partial).catch(() => null))?.size ?? 0;
  const res = await request(url, have > 0 ? `bytes=${have}-` : null, options.hosts, options.hub, host, signal);
  if (res.status === 404) {
    await res.body?.cancel();
    return false;
  }
  if (res.status === 416 && have > 0) {
    await res.body?.cancel();
    await fs.rename(partial, dest);
    return true;
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    throw new CasefileError(
      'failed',
      `${host} refused the download of ${url} (HTTP ${res.status}). Gated models need a token (HF_TOKEN) that has accepted the model's license.`,
    );
  }
  if (!res.ok || !res.body) {
    await res.body?.cancel();
    throw new CasefileError('failed', `${host} answered HTTP ${res.status} for ${url}.`);
  }
  const resumed = res.status === 206;
  const length = Number(res.headers.get('content-length') ?? NaN);
  const totalBytes = Number.isFinite(length) ? length + (resumed ? have : 0) : null;
  let receivedBytes = resumed ? have : 0;
  let lastReport = 0;
  const file = path.basename(dest);
  const meter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      receivedBytes += chunk.length;
      const now = Date.now();
      if (now - lastReport > 200) {
        lastReport = now;
        onProgress({ file, received_bytes: receivedBytes, total_bytes: totalBytes });
      }
      done(null, chunk);
    },
  });
  try {
    await pipeline(
      Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
      meter,
      createWriteStream(partial, { flags: resumed ? 'a' : 'w' }),
      { signal },
    );
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    throw offline(host, err); // connection dropped: the partial file stays for the next try
  }
  if (totalBytes !== null && receivedBytes !== totalBytes) {
    throw new CasefileError(
      'failed',
      `The download of ${file} stopped at ${receivedBytes} of ${totalBytes} bytes; run it again to resume.`,
    );
  }
  onProgress({ file, received_bytes: receivedBytes, total_bytes: totalBytes });
  await fs.rename(partial, dest);
  return true;
}

export async function sha256Of(file: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Download every file of `plan` into `dir` (kept between attempts so an interrupted download
 * resumes). Returns the path to import: the GGUF file, or the folder.
 */
export async function downloadPlan(
  plan: DownloadPlan,
  dir: string,
  options: {
    sha256?: string;
    signal?: AbortSignal;
    onProgress?: (p: DownloadProgress) => void;
    hub?: HubConfig;
    hosts?: DownloadHosts;
  } = {},
): Promise<string> {
  const fetchOptions = { hub: options.hub ?? DEFAULT_HUB, hosts: options.hosts ?? null, signal: options.signal };
  const onProgress = options.onProgress ?? (() => {});
  for (const f of plan.files) {
    const dest = path.join(dir, f.path);
    if (await fs.stat(dest).catch(() => null)) continue; // finished in an earlier attempt
    let ok = await fetchFile(f.url, dest, plan.host, onProgress, fetchOptions);
    for (const alt of f.alternatives ?? []) {
      if (ok) break;
      const altUrl = f.url.slice(0, f.url.length - f.path.length) + alt;
      ok = await fetchFile(altUrl, path.join(dir, alt), plan.host, onProgress, fetchOptions);
    }
    if (!ok && !f.optional) {
      throw new CasefileError('not_found', `${plan.host} has no ${f.path} for this model (${f.url}); check the name.`);
    }
  }
  const target = plan.kind === 'file' ? path.join(dir, plan.files[0]!.path) : dir;
  if (options.sha256 && plan.kind === 'file') {
    const actual = await sha256Of(target, options.signal);
    if (actual !== options.sha256.toLowerCase()) {
      await fs.rm(target, { force: true });
      throw new CasefileError(
        'failed',
        `The downloaded ${plan.files[0]!.path} has sha256 ${actual}, not the expected ${options.sha256}; it was discarded.`,
      );
    }
  }
  return target;
}
