/**
 * `cases.export`: one case's folder — originals, stored text, index, chats, chronology marks,
 * settings — written as one zip (./zip-write.ts, streamed file by file, so a large case is never
 * held in memory, with zip64 records past 4 GB or 65,535 files), its manifest last, sealed by a
 * passphrase when one is given (./crypto.ts). The case is read while nothing writes it (the ports'
 * `exclusive`: an ingest here is waited for, one in another process refuses), into a temp file
 * renamed over the target, so a failed export leaves no file.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream';
import type { MatterExport } from '../../shared/contract/matter';
import { CasefileError } from '../../shared/errors';
import type { CaseMeta } from '../cases/index';
import { CaseStore } from '../documents/index';
import { ChunkStore } from '../retrieval/store';
import { TEMP_MARK, writeJsonAtomic } from '../util/fs';
import { ChunkSealer } from './crypto';
import {
  CASE_PREFIX,
  MANIFEST_ENTRY,
  MATTER_FORMAT,
  MATTER_FORMAT_VERSION,
  type Manifest,
  type ManifestFile,
} from './manifest';
import type { MatterPorts } from './ports';
import { fingerprinting, Progress } from './progress';
import { writeZip, type ZipSource } from './zip-write';

/** Files of a case folder that are not the case: the ingest lock, and writes in flight. */
const SKIPPED_AT_ROOT = new Set(['ingest.lock']);

interface CaseFile {
  rel: string;
  full: string;
  size: number;
}

const byPath = (a: CaseFile, b: CaseFile): number => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0);

/** Every regular file of the case folder, by its path inside the case (forward slashes), sorted. */
async function caseFiles(caseDir: string): Promise<CaseFile[]> {
  const out: CaseFile[] = [];
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const e of await fs.readdir(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.name.includes(TEMP_MARK) || (!rel && SKIPPED_AT_ROOT.has(e.name))) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) await walk(full, r);
      else if (e.isFile()) out.push({ rel: r, full, size: (await fs.stat(full)).size });
    }
  };
  await walk(caseDir, '');
  return out.sort(byPath);
}

/** Plain zip bytes gathered before one write: a case of many small files gives many small pieces. */
const WRITE_BATCH = 1024 * 1024;

/** Where the zip's bytes go: straight to the file, or through the sealer first. */
class ArchiveSink {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  written = 0;

  constructor(
    private readonly handle: fs.FileHandle,
    private readonly sealer: ChunkSealer | null,
  ) {}

  async start(): Promise<void> {
    if (this.sealer) this.queue(this.sealer.header);
  }

  readonly push = async (data: Uint8Array): Promise<void> => {
    if (!this.sealer) this.queue(data);
    else for (const sealed of this.sealer.push(data)) this.queue(sealed);
    if (this.pendingBytes >= WRITE_BATCH) await this.flush();
  };

  async finish(): Promise<void> {
    if (this.sealer) this.queue(this.sealer.final());
    await this.flush();
    await this.handle.sync();
  }

  private queue(data: Uint8Array): void {
    this.pending.push(data);
    this.pendingBytes += data.length;
  }

  private async flush(): Promise<void> {
    const data = Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    let at = 0;
    while (at < data.length) at += (await this.handle.write(data, at)).bytesWritten;
    this.written += data.length;
  }
}

/** One file as a zip entry, hashed as it is read, so the manifest says what the zip holds. */
function source(file: CaseFile, listed: ManifestFile[], progress: Progress): ZipSource {
  return {
    name: `${CASE_PREFIX}${file.rel}`,
    // Originals are mostly compressed already (PDF, Office, images); the rest is text and index data.
    deflate: !file.rel.startsWith('files/'),
    open: () => {
      const { stream: hashed, result } = fingerprinting(progress);
      hashed.once('end', () => listed.push({ path: file.rel, ...result() }));
      // A read error destroys `hashed` with it, which fails the zip.
      return pipeline(createReadStream(file.full, { highWaterMark: 256 * 1024 }), hashed, () => {});
    },
  };
}

/** Write the zip of `files` and its manifest into `handle`. */
async function writeArchive(
  handle: fs.FileHandle,
  files: CaseFile[],
  head: Omit<Manifest, 'files'>,
  sealer: ChunkSealer | null,
  progress: Progress,
): Promise<number> {
  const sink = new ArchiveSink(handle, sealer);
  await sink.start();
  const listed: ManifestFile[] = [];
  const manifest = () => {
    const full: Manifest = { ...head, files: listed };
    return new TextEncoder().encode(`${JSON.stringify(full, null, 1)}\n`);
  };
  await writeZip(
    files.map((f) => source(f, listed, progress)),
    { name: MANIFEST_ENTRY, data: manifest },
    sink.push,
  );
  await sink.finish();
  return sink.written;
}

/** Export the case to `out` (a temp file beside it, renamed over it once whole). */
export async function exportCase(
  ports: MatterPorts,
  caseId: string,
  out: string,
  passphrase?: string,
): Promise<MatterExport> {
  const target = path.resolve(out);
  const st = await fs.stat(target).catch(() => null);
  if (st && !st.isFile())
    throw new CasefileError('invalid_input', `“${target}” is a folder, not a file. Give the matter file’s name too.`);
  await ports.cases.readMeta(caseId); // not_found before anything else
  const sealer = passphrase ? await ChunkSealer.create(passphrase) : null;
  return ports.exclusive(caseId, async () => {
    const meta = await ports.cases.readMeta(caseId);
    const temp = `${target}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
    // A case whose index is on the firm's object storage: its index is copied out first, into the
    // data home's staging (removed at the next start if this process is killed), never beside the
    // matter file, where a sealed export would leave it readable.
    const staged = meta.storage ? await ports.cases.newStaging() : null;
    try {
      // A bucket case's originals this computer has not fetched yet go into the matter too.
      if (meta.storage)
        await new CaseStore(ports.cases.caseDir(caseId), () => ports.cases.originals(caseId)).fetchOriginals();
      const files = await caseFiles(ports.cases.caseDir(caseId));
      const all = staged ? await withIndexFromBucket(ports, meta, files, staged) : files;
      const progress = new Progress(
        ports.events,
        caseId,
        'export',
        all.reduce((n, f) => n + f.size, 0),
      );
      const handle = await fs.open(temp, 'wx');
      const head = {
        format: MATTER_FORMAT,
        format_version: MATTER_FORMAT_VERSION,
        casefile_version: ports.version,
        exported_at: new Date().toISOString(),
        case: { id: meta.id, name: meta.name },
      } as const;
      const bytes = await writeArchive(handle, all, head, sealer, progress).finally(() => handle.close());
      await fs.rename(temp, target);
      progress.done();
      return { case_id: meta.id, name: meta.name, path: target, bytes, files: all.length, encrypted: !!sealer };
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    } finally {
      if (staged) await fs.rm(staged, { recursive: true, force: true });
    }
  });
}

/**
 * The files of a case whose index is on the firm's object storage, as a matter file holds them:
 * the index copied from the bucket into `staged` as a folder's `lancedb/`, and a case.json that
 * names no bucket, so the matter opens anywhere as a case kept in its folder.
 */
async function withIndexFromBucket(
  ports: MatterPorts,
  meta: CaseMeta,
  files: CaseFile[],
  staged: string,
): Promise<CaseFile[]> {
  await ChunkStore.copy(await ports.cases.indexLocation(meta.id), staged);
  const { storage: _bucket, ...local } = meta;
  await writeJsonAtomic(path.join(staged, 'case.json'), local);
  const kept = files.filter((f) => f.rel !== 'case.json' && !f.rel.startsWith('lancedb/'));
  return [...kept, ...(await caseFiles(staged))].sort(byPath);
}
