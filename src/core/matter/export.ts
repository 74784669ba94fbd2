/**
 * `cases.export`: one case's folder — originals, stored text, index, chats, chronology marks,
 * settings — written as one zip (fflate, streamed file by file, so a large case is never held in
 * memory), its manifest last, sealed by a passphrase when one is given (./crypto.ts). The case is
 * read while nothing writes it (the ports' `exclusive`: an ingest here is waited for, one in another
 * process refuses), into a temp file renamed over the target, so a failed export leaves no file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import type { MatterExport } from '../../shared/contract/matter';
import { CasefileError } from '../../shared/errors';
import { TEMP_MARK } from '../util/fs';
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
import { Progress } from './progress';

/** A zip without zip64 (fflate writes none) holds at most this many bytes and entries. */
const MAX_ZIP_BYTES = 4 * 1024 ** 3 - 64 * 1024 ** 2;
const MAX_ZIP_ENTRIES = 65_000;
/** Files of a case folder that are not the case: the ingest lock, and writes in flight. */
const SKIPPED_AT_ROOT = new Set(['ingest.lock']);

interface CaseFile {
  rel: string;
  full: string;
  size: number;
}

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
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

function refuseTooLarge(files: CaseFile[]): void {
  const total = files.reduce((n, f) => n + f.size, 0);
  if (total > MAX_ZIP_BYTES || files.length > MAX_ZIP_ENTRIES)
    throw new CasefileError(
      'failed',
      `This case is too large to export as one matter file (${files.length.toLocaleString('en-US')} files, ${(total / 1024 ** 3).toFixed(1)} GB; a matter file holds up to 4 GB and 65,000 files).`,
    );
}

/** Where the zip's bytes go: straight to the file, or through the sealer first. */
class ArchiveSink {
  private queued: Uint8Array[] = [];
  private failure: Error | null = null;
  written = 0;

  constructor(
    private readonly handle: fs.FileHandle,
    private readonly sealer: ChunkSealer | null,
  ) {}

  /** fflate's callback: it runs inside `push`, so the bytes wait for `flush`. */
  readonly ondata = (err: Error | null, data: Uint8Array): void => {
    if (err) this.failure = err;
    else if (data.length) this.queued.push(data);
  };

  async start(): Promise<void> {
    if (this.sealer) await this.write(this.sealer.header);
  }

  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    const queued = this.queued;
    this.queued = [];
    for (const data of queued) {
      if (!this.sealer) await this.write(data);
      else for (const sealed of this.sealer.push(data)) await this.write(sealed);
    }
  }

  async finish(): Promise<void> {
    await this.flush();
    if (this.sealer) await this.write(this.sealer.final());
    await this.handle.sync();
  }

  private async write(data: Uint8Array): Promise<void> {
    await this.handle.write(data);
    this.written += data.length;
  }
}

/** Add one file to the zip, hashing what is read, so the manifest says what the zip holds. */
async function addFile(zip: Zip, sink: ArchiveSink, file: CaseFile, progress: Progress): Promise<ManifestFile> {
  // Originals are mostly compressed already (PDF, Office, images); the rest is text and index data.
  const entry = file.rel.startsWith('files/')
    ? new ZipPassThrough(`${CASE_PREFIX}${file.rel}`)
    : new ZipDeflate(`${CASE_PREFIX}${file.rel}`, { level: 6 });
  zip.add(entry);
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file.full, { highWaterMark: 256 * 1024 })) {
    const bytes = chunk as Buffer;
    hash.update(bytes);
    size += bytes.length;
    entry.push(bytes);
    await sink.flush();
    progress.add(bytes.length);
  }
  entry.push(new Uint8Array(0), true);
  await sink.flush();
  return { path: file.rel, size, sha256: hash.digest('hex') };
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
  const zip = new Zip(sink.ondata);
  const listed: ManifestFile[] = [];
  for (const file of files) listed.push(await addFile(zip, sink, file, progress));
  const manifest: Manifest = { ...head, files: listed };
  const entry = new ZipDeflate(MANIFEST_ENTRY, { level: 6 });
  zip.add(entry);
  entry.push(new TextEncoder().encode(`${JSON.stringify(manifest, null, 1)}\n`), true);
  zip.end();
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
  // not_found before anything else; an index on the firm's object storage is not in the folder.
  if ((await ports.cases.readMeta(caseId)).storage)
    throw new CasefileError(
      'invalid_input',
      'This case’s index is on the firm’s object storage, so it cannot be put in a matter file yet. Export a case kept on this computer.',
    );
  const sealer = passphrase ? await ChunkSealer.create(passphrase) : null;
  return ports.exclusive(caseId, async () => {
    const meta = await ports.cases.readMeta(caseId);
    const files = await caseFiles(ports.cases.caseDir(caseId));
    refuseTooLarge(files);
    const progress = new Progress(
      ports.events,
      caseId,
      'export',
      files.reduce((n, f) => n + f.size, 0),
    );
    const temp = `${target}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`;
    const handle = await fs.open(temp, 'wx');
    const head = {
      format: MATTER_FORMAT,
      format_version: MATTER_FORMAT_VERSION,
      casefile_version: ports.version,
      exported_at: new Date().toISOString(),
      case: { id: meta.id, name: meta.name },
    } as const;
    try {
      const bytes = await writeArchive(handle, files, head, sealer, progress).finally(() => handle.close());
      await fs.rename(temp, target);
      progress.done();
      return { case_id: meta.id, name: meta.name, path: target, bytes, files: files.length, encrypted: !!sealer };
    } catch (err) {
      await fs.rm(temp, { force: true });
      throw err;
    }
  });
}
