/**
 * Files dropped on the served page reach the engine as uploads: `POST /api/upload` opens a batch
 * folder under `<home>/uploads`, each file is `PUT /api/upload/<batch>?path=<relative path>`, and
 * ingest then reads the batch like any folder. A path is uploaded once per batch: a repeat is 409
 * and the first file stays. Ingest copies what it reads into the case, so this module also owns
 * removing a batch once the ingest that read it is done (its `afterOp` hook for `ingest.start`).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EventBus } from '../core/bus';
import type { OpOutput } from '../shared/contract/index';
import { CasefileError } from '../shared/errors';
import type { AfterOp } from './dispatch';
import { statusFor } from './http-errors';
import { sendError, sendJson, sendThrown } from './respond';

const UPLOAD_BATCH = /^[a-z0-9]{16,64}$/;

/** A relative upload path: forward slashes, no empty, `.` or `..` segments, no NUL or backslash. */
export function safeRelativePath(raw: string | null): string[] | null {
  if (!raw || raw.length > 4096 || raw.includes('\0') || raw.includes('\\')) return null;
  const segments = raw.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s.length > 255)) return null;
  // Windows: a drive or stream marker ("C:", "a:b") would leave the upload folder.
  if (process.platform === 'win32' && segments.some((s) => s.includes(':'))) return null;
  return segments;
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

/** The upload batches among an ingest's paths. */
function batchesOf(uploadsDir: string, paths: unknown[]): Set<string> {
  const batches = new Set<string>();
  for (const p of paths) {
    if (typeof p !== 'string') continue;
    const rel = path.relative(uploadsDir, path.resolve(p));
    const batch = rel.split(path.sep)[0];
    if (batch && !rel.startsWith('..') && !path.isAbsolute(rel) && UPLOAD_BATCH.test(batch))
      batches.add(path.join(uploadsDir, batch));
  }
  return batches;
}

/** Remove the upload batches among `paths` (what an operation that copied them read). */
function removeBatches(uploadsDir: string, paths: unknown[]): void {
  for (const dir of batchesOf(uploadsDir, paths)) void fs.rm(dir, { recursive: true, force: true });
}

/** Store one uploaded file at `rawPath` in `batch`: 400 for a path that would leave it, 404 for no such batch, 409 for a repeat. */
async function storeUpload(
  uploadsDir: string,
  maxUploadBytes: number,
  batch: string,
  rawPath: string | null,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
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
          if (size > maxUploadBytes)
            throw new CasefileError('invalid_input', `"${segments.join('/')}" is too large to upload.`);
          yield chunk as Buffer;
        }
      },
      createWriteStream(target, { flags: 'wx' }),
    );
  } catch (err) {
    // An existing file is the earlier upload of this path: it stays; only a partial write of ours goes.
    const exists = (err as NodeJS.ErrnoException).code === 'EEXIST';
    if (!exists) await fs.rm(target, { force: true });
    if (res.writableEnded) return;
    if (exists)
      sendError(res, statusFor('conflict'), {
        code: 'conflict',
        message: `"${segments.join('/')}" was already uploaded in this batch.`,
      });
    else sendThrown(res, err);
    return;
  }
  sendJson(res, 200, { path: target, top: path.join(dir, segments[0]!), bytes: size });
}

export interface Uploads {
  /** `POST /api/upload`: open a batch; answers `{ batch, dir }`. */
  start(res: ServerResponse): Promise<void>;
  /** `PUT /api/upload/<batch>?path=…`: store one file; answers `{ path, top, bytes }`. */
  put(batch: string, rawPath: string | null, req: IncomingMessage, res: ServerResponse): Promise<void>;
  /** Hooks for the dispatcher: the operations that consume uploads. */
  afterOp: AfterOp;
  /** Stop watching runs (the server is closing). */
  close(): void;
}

export interface UploadOptions {
  /** `<home>/uploads`. */
  uploadsDir: string;
  /** Largest single uploaded file, bytes. */
  maxUploadBytes: number;
  events: EventBus;
}

/** Uploads under `uploadsDir`, after removing day-old leftover batches. */
export async function createUploads(options: UploadOptions): Promise<Uploads> {
  const { uploadsDir, maxUploadBytes, events } = options;
  const watchers = new Set<() => void>();
  await removeStaleUploads(uploadsDir);

  /**
   * Uploaded batches are copied into the case by ingest (content-addressed), so once a run that
   * read them is done they are removed. A cancelled run keeps them (it may be resumed); a day-old
   * leftover is removed at the next start.
   */
  const cleanAfterIngest = (input: unknown, value: OpOutput<'ingest.start'>) => {
    const paths = (input as { paths?: unknown }).paths;
    if (!Array.isArray(paths)) return;
    const batches = batchesOf(uploadsDir, paths);
    if (batches.size === 0) return;
    const remove = () => {
      for (const dir of batches) void fs.rm(dir, { recursive: true, force: true });
    };
    if (value.state === 'done') return remove();
    if (value.state !== 'running' || !value.job_id) return;
    const { job_id: jobId } = value;
    const off = events.on('ingest.progress', (p) => {
      if (p.job_id !== jobId || p.state === 'running') return;
      off();
      watchers.delete(off);
      if (p.state === 'done') remove();
    });
    watchers.add(off);
  };

  return {
    async start(res) {
      const batch = randomBytes(12).toString('hex');
      const dir = path.join(uploadsDir, batch);
      await fs.mkdir(dir, { recursive: true });
      sendJson(res, 200, { batch, dir });
    },
    put: (batch, rawPath, req, res) => storeUpload(uploadsDir, maxUploadBytes, batch, rawPath, req, res),
    // An imported model is copied into <home>/models: its uploaded file goes at once.
    afterOp: {
      'ingest.start': cleanAfterIngest,
      // An imported matter is copied into its case: its uploaded file goes at once.
      'cases.import': (input) => removeBatches(uploadsDir, [(input as { path?: unknown }).path]),
      'models.import': (input) => {
        const { path: p, mode } = input as { path?: unknown; mode?: unknown };
        if (mode !== 'link') removeBatches(uploadsDir, [p]);
      },
    },
    close() {
      for (const off of watchers) off();
      watchers.clear();
    },
  };
}
