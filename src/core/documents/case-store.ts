import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { CasefileError } from '../../shared/errors';
import { readTextIfExists, TEMP_MARK, writeFileAtomic } from '../util/fs';
import {
  changeFiles,
  compactManifest,
  MANIFEST_FILE,
  readManifest,
  sharedFile,
  sharedFiles,
  updateManifest,
  type ManifestChange,
} from './manifest';
import { type DocumentStructure, EVENTS_FORMAT, type DatedEvent } from '../text/index';
import type { RemoteOriginals } from '../cases/index';
import type { ChunkRecord, FileManifest, FileRecord, PageIndex, VersionRecord } from '../domain/index';

/** A chunk as stored on disk: its text is `docText.slice(s, e)`, so only offsets are kept. */
export interface StoredChunk {
  /** chunk_index */
  i: number;
  s: number;
  e: number;
  /** first and last page */
  ps: number;
  pe: number;
  /** sha256 of the chunk text */
  h: string;
  /** the chunk's context (title › section path); absent in versions indexed before contexts */
  c?: string;
}

export { JOURNAL_FILE, MANIFEST_FILE, type ManifestChange } from './manifest';

/**
 * On-disk store of one case's documents: `files.json` + `files.log` (the manifest, manifest.ts),
 * `files/<sha256>` (originals, content-addressed, never modified), and per version
 * `docs/<fileId>/v<N>/`: text.txt, pages.json (PageIndex), structure.json, chunks.json, doc.html
 * (DOCX display) and events.json (text/dates.ts). Every file is written atomically and a version's
 * artifacts are complete before the manifest marks it finished, so a crash leaves at worst
 * unreferenced artifacts that are rewritten.
 */
export class CaseStore {
  /**
   * `remote` gives where else the case keeps its originals (a bucket case's bucket), if anywhere:
   * an original missing from the folder is fetched from there, and `syncOriginals` puts there what
   * the folder has.
   */
  constructor(
    readonly caseDir: string,
    private readonly remote?: () => Promise<RemoteOriginals | null>,
  ) {}

  get manifestPath(): string {
    return path.join(this.caseDir, MANIFEST_FILE);
  }

  blobPath(sha256: string): string {
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new CasefileError('invalid_input', `Not a sha256: ${sha256}`);
    return path.join(this.caseDir, 'files', sha256);
  }

  /**
   * The folder's copy of an original, fetched from the case's bucket first when the folder lacks
   * it (another server added it, or the copy was lost); null when neither has it.
   */
  async localBlob(sha256: string, signal?: AbortSignal): Promise<string | null> {
    const target = this.blobPath(sha256);
    if (await exists(target)) return target;
    const remote = await this.remote?.();
    return remote && (await remote.get(sha256, target, signal)) ? target : null;
  }

  /** Fetch from the case's bucket every original the manifest lists and the folder lacks (nothing for a local case). */
  async fetchOriginals(signal?: AbortSignal): Promise<void> {
    if (!this.remote) return;
    const listed = new Set((await this.files()).flatMap((f) => f.versions.map((v) => v.sha256)));
    for (const sha of listed) await this.localBlob(sha, signal);
  }

  /** Put every original the folder has and the case's bucket lacks there (nothing for a local case). */
  async syncOriginals(signal?: AbortSignal): Promise<void> {
    const remote = await this.remote?.();
    if (!remote) return;
    const names = await fs.readdir(path.join(this.caseDir, 'files')).catch(() => [] as string[]);
    const local = names.filter((n) => /^[0-9a-f]{64}$/.test(n));
    if (!local.length) return;
    const there = await remote.list(signal);
    for (const sha of local) if (!there.has(sha)) await remote.put(sha, this.blobPath(sha), signal);
  }

  versionDir(fileId: string, version: number): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(fileId)) throw new CasefileError('invalid_input', `Not a file id: ${fileId}`);
    return path.join(this.caseDir, 'docs', fileId, `v${version}`);
  }

  /** Every file record, the caller's to change (a copy). */
  readManifest(): Promise<FileManifest> {
    return readManifest(this.caseDir);
  }

  /** Every file record, shared with other callers and kept in memory between changes: never change what this gives. */
  files(): Promise<FileRecord[]> {
    return sharedFiles(this.caseDir);
  }

  /** One file record, shared: never change it (use `change`). */
  file(fileId: string): Promise<FileRecord | undefined> {
    return sharedFile(this.caseDir, fileId);
  }

  /**
   * Change the manifest as a whole (serialized per case within this process): every record is
   * written again, so this is for changes across the case (a run's start, a removal), not for
   * recording one file — `change` does that.
   */
  update<T>(change: (manifest: FileManifest) => T | Promise<T>): Promise<T> {
    return updateManifest(this.caseDir, change);
  }

  /** Change a few records (one file's, a container's children): one line appended to the manifest's log, whatever the size of the case. */
  change<T>(fn: (change: ManifestChange) => T): Promise<T> {
    return changeFiles(this.caseDir, fn);
  }

  /** Fold the manifest's log into files.json (the end of a run). */
  compactManifest(): Promise<void> {
    return compactManifest(this.caseDir);
  }

  /**
   * Copy a file into `files/<sha256>` while hashing it (one read). Files over `maxBytes` are
   * hashed but not copied (`stored: false`): they are registered as too large.
   */
  async importBlob(
    source: string,
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<{ sha256: string; size: number; stored: boolean }> {
    const stat = await fs.stat(source);
    const dir = path.join(this.caseDir, 'files');
    await fs.mkdir(dir, { recursive: true });
    const hash = createHash('sha256');
    const store = stat.size <= maxBytes;
    const tmp = path.join(dir, `import${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
    const out = store ? await fs.open(tmp, 'w') : undefined;
    let size = 0;
    try {
      for await (const chunk of createReadStream(source, { highWaterMark: 1 << 20, signal })) {
        const buf = chunk as Buffer;
        hash.update(buf);
        size += buf.length;
        if (out) await out.write(buf);
      }
      if (out) await out.sync();
    } catch (err) {
      await out?.close();
      await fs.rm(tmp, { force: true });
      throw err;
    }
    await out?.close();
    const sha256 = hash.digest('hex');
    if (!store) return { sha256, size, stored: false };
    const target = this.blobPath(sha256);
    if (await exists(target)) await fs.rm(tmp, { force: true });
    else await fs.rename(tmp, target);
    return { sha256, size, stored: true };
  }

  /** Store bytes taken out of a file (an attachment, an archive entry) as an original: content-addressed, once. */
  async writeBlob(bytes: Uint8Array): Promise<{ sha256: string; size: number }> {
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const target = this.blobPath(sha256);
    if (!(await exists(target))) {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await writeFileAtomic(target, bytes);
    }
    return { sha256, size: bytes.byteLength };
  }

  async writeArtifacts(
    fileId: string,
    version: number,
    parts: {
      text: string;
      index: PageIndex;
      html?: string | undefined;
      structure: DocumentStructure;
      chunks: StoredChunk[];
    },
  ): Promise<void> {
    const dir = this.versionDir(fileId, version);
    await fs.mkdir(dir, { recursive: true });
    await writeFileAtomic(path.join(dir, 'text.txt'), parts.text);
    await writeFileAtomic(path.join(dir, 'pages.json'), JSON.stringify(parts.index));
    if (parts.html !== undefined) await writeFileAtomic(path.join(dir, 'doc.html'), parts.html);
    await this.writeChunking(fileId, version, parts.structure, parts.chunks);
  }

  /** The structure and chunks of a version (ingest, and the upgrade of a version indexed before structure). */
  async writeChunking(
    fileId: string,
    version: number,
    structure: DocumentStructure,
    chunks: StoredChunk[],
  ): Promise<void> {
    const dir = this.versionDir(fileId, version);
    await writeFileAtomic(path.join(dir, 'structure.json'), JSON.stringify(structure));
    await writeFileAtomic(path.join(dir, 'chunks.json'), JSON.stringify(chunks));
  }

  /** A version's pages (pages.json), written again (the Bates marks the user corrected). */
  async writePages(fileId: string, version: number, index: PageIndex): Promise<void> {
    await writeFileAtomic(path.join(this.versionDir(fileId, version), 'pages.json'), JSON.stringify(index));
  }

  /** A version's dated events (text/dates.ts), with the rules' format they were extracted by. */
  async writeEvents(fileId: string, version: number, events: DatedEvent[], dayFirst = false): Promise<void> {
    const dir = this.versionDir(fileId, version);
    await fs.mkdir(dir, { recursive: true });
    await writeFileAtomic(path.join(dir, 'events.json'), JSON.stringify({ format: EVENTS_FORMAT, dayFirst, events }));
  }

  /** The stored events of a version; undefined when none were stored, by older rules, or read in the other date order. */
  async readEvents(fileId: string, version: number, dayFirst = false): Promise<DatedEvent[] | undefined> {
    const raw = await readTextIfExists(path.join(this.versionDir(fileId, version), 'events.json'));
    if (raw === undefined) return undefined;
    try {
      const stored = JSON.parse(raw) as { format?: number; dayFirst?: boolean; events?: DatedEvent[] };
      return stored.format === EVENTS_FORMAT && (stored.dayFirst ?? false) === dayFirst && Array.isArray(stored.events)
        ? stored.events
        : undefined;
    } catch {
      return undefined;
    }
  }

  async readStructure(fileId: string, version: number): Promise<DocumentStructure | undefined> {
    const raw = await readTextIfExists(path.join(this.versionDir(fileId, version), 'structure.json'));
    return raw === undefined ? undefined : (JSON.parse(raw) as DocumentStructure);
  }

  async readText(fileId: string, version: number): Promise<string | undefined> {
    return readTextIfExists(path.join(this.versionDir(fileId, version), 'text.txt'));
  }

  async readPages(fileId: string, version: number): Promise<PageIndex | undefined> {
    const raw = await readTextIfExists(path.join(this.versionDir(fileId, version), 'pages.json'));
    return raw === undefined ? undefined : (JSON.parse(raw) as PageIndex);
  }

  async readStoredChunks(fileId: string, version: number): Promise<StoredChunk[] | undefined> {
    const raw = await readTextIfExists(path.join(this.versionDir(fileId, version), 'chunks.json'));
    return raw === undefined ? undefined : (JSON.parse(raw) as StoredChunk[]);
  }

  async readHtml(fileId: string, version: number): Promise<string | undefined> {
    return readTextIfExists(path.join(this.versionDir(fileId, version), 'doc.html'));
  }

  /** Delete parsed artifacts of a file: one version or all. */
  async removeArtifacts(fileId: string, version?: number): Promise<void> {
    const target = version === undefined ? path.join(this.caseDir, 'docs', fileId) : this.versionDir(fileId, version);
    await fs.rm(target, { recursive: true, force: true });
  }

  /** Delete originals no version references any more. */
  async collectGarbage(manifest: FileManifest): Promise<void> {
    const used = new Set(manifest.files.flatMap((f) => f.versions.map((v) => v.sha256)));
    const dir = path.join(this.caseDir, 'files');
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const n of names) {
      if (/^[0-9a-f]{64}$/.test(n) && !used.has(n)) await fs.rm(path.join(dir, n), { force: true });
    }
  }

  /** File count (records with at least one version) and bytes of stored originals. */
  async stats(): Promise<{ files: number; bytes: number }> {
    const files = await this.files().catch(() => [] as FileRecord[]);
    const shas = new Map<string, number>();
    for (const f of files) for (const v of f.versions) shas.set(v.sha256, v.size);
    let bytes = 0;
    for (const size of shas.values()) bytes += size;
    return { files: files.filter((f) => f.versions.length).length, bytes };
  }
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p);
    return true;
  } catch {
    return false;
  }
}

export function latestVersion(file: FileRecord): VersionRecord | undefined {
  return file.versions[file.versions.length - 1];
}

/** Expand stored chunk offsets to full records (text sliced from the document text). */
export function expandChunks(
  stored: StoredChunk[],
  text: string,
  file: FileRecord,
  version: VersionRecord,
): ChunkRecord[] {
  const latest = latestVersion(file)?.version === version.version;
  const docType = file.doc_type_override ?? version.doc_type;
  return stored.map((c) => ({
    chunk_id: `${file.name}@v${version.version}#${c.i}`,
    file_id: file.id,
    file_name: file.name,
    version: version.version,
    is_latest: latest,
    chunk_index: c.i,
    start: c.s,
    end: c.e,
    page_start: c.ps,
    page_end: c.pe,
    text: text.slice(c.s, c.e),
    context: c.c ?? '',
    hash: c.h,
    doc_type: docType,
    doc_date: version.doc_date,
  }));
}

export function compactChunks(chunks: ChunkRecord[]): StoredChunk[] {
  return chunks.map((c) => ({
    i: c.chunk_index,
    s: c.start,
    e: c.end,
    ps: c.page_start,
    pe: c.page_end,
    h: c.hash,
    ...(c.context ? { c: c.context } : {}),
  }));
}
