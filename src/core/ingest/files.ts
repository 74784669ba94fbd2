/**
 * The files of a case, as the Documents view and `files.*` operations see them: list (with what a
 * running ingest is doing overlaid), remove, set a doc type, read. Not ingest itself, but it writes
 * the same manifest and index, so its writes queue behind the case's runs and take the case lock.
 */
import type { FileContent, FileInfo } from '../../shared/contract/ingest';
import { CasefileError } from '../../shared/errors';
import { createIndexSink } from '../retrieval/sink';
import type { KeyedQueue } from '../util/concurrency';
import { withCaseLock } from './case-lock';
import { READABLE_STATUSES, type CaseDocuments, CaseStore, latestVersion } from '../documents/index';
import type { IngestPorts } from './ports';
import { currentFile, LIVE_STATUS, type CurrentFile } from './progress';
import { markBates } from '../text/index';
import {
  PENDING_STATUSES,
  type BatesRange,
  type DocType,
  type FileManifest,
  type FileRecord,
  type FileStatus,
  type VersionRecord,
} from '../domain/index';
import { passwordKey } from '../util/passwords';
import { readableFileName } from '../util/names';

/** The case's files by id, and how many files (with a version) were taken out of each: built once for a whole list. */
export interface Family {
  byId: Map<string, FileRecord>;
  children: Map<string, number>;
}

export function familyOf(all: readonly FileRecord[]): Family {
  const byId = new Map<string, FileRecord>();
  const children = new Map<string, number>();
  for (const x of all) {
    byId.set(x.id, x);
    if (x.parent && x.versions.length) children.set(x.parent, (children.get(x.parent) ?? 0) + 1);
  }
  return { byId, children };
}

/** A file as listed; `all` (the case's files, or their family) links it to its container and counts the files taken out of it. */
export function fileInfo(
  f: FileRecord,
  hasPassword: (sha256: string) => boolean = () => false,
  all: readonly FileRecord[] | Family = [],
): FileInfo {
  const family = Array.isArray(all) ? familyOf(all) : (all as Family);
  const v = latestVersion(f)!;
  const parent = f.parent ? family.byId.get(f.parent) : undefined;
  const parentEmail = parent && latestVersion(parent)?.email;
  const children = family.children.get(f.id) ?? 0;
  // A protected PDF: can its pages be shown (this engine has its password), or is one needed?
  const lockState = ({ locked, sha256 }: VersionRecord) =>
    locked ? { locked: hasPassword(sha256) ? ('unlocked' as const) : ('needs_password' as const) } : {};
  return {
    id: f.id,
    name: f.name,
    version: v.version,
    versions: f.versions.map(({ locked, ...x }) => ({ ...x, ...lockState({ ...x, locked }) })),
    ...lockState(v),
    type: f.doc_type_override ?? v.doc_type,
    pages: v.pages,
    status: v.status,
    reason: v.reason,
    date: v.doc_date,
    size: v.size,
    kind: v.kind,
    ...(v.email ? { email: v.email } : {}),
    ...(parent
      ? {
          parent: {
            id: parent.id,
            name: parent.name,
            ...(parentEmail ? { subject: parentEmail.subject, date: parentEmail.iso_date } : {}),
          },
        }
      : {}),
    ...(children ? { children } : {}),
    ...(f.source_removed ? { source_removed: f.source_removed } : {}),
  };
}

export interface CaseFilesDeps {
  ports: IngestPorts;
  /** The service's per-case queue: removals and doc-type changes wait for the case's runs. */
  queue: KeyedQueue<string>;
  /** Files in flight in the case's runs now. */
  inFlight: (caseId: string) => Iterable<CurrentFile>;
}

export class CaseFiles {
  constructor(private readonly deps: CaseFilesDeps) {}

  private get ports(): IngestPorts {
    return this.deps.ports;
  }

  /** Whether this engine holds the password of a protected original of the case. */
  private hasPassword(caseId: string): (sha256: string) => boolean {
    return (sha256) => this.ports.passwords.get(passwordKey(caseId, sha256)) !== undefined;
  }

  /** The case's documents (not_found for an unknown case). */
  async documents(caseId: string): Promise<CaseDocuments> {
    return (await this.ports.openCases.open(caseId)).documents;
  }

  async listFiles(caseId: string): Promise<FileInfo[]> {
    const records = await new CaseStore(this.ports.cases.caseDir(caseId)).files();
    const hasPassword = this.hasPassword(caseId);
    const family = familyOf(records);
    const files = records.filter((f) => f.versions.length).map((f) => fileInfo(f, hasPassword, family));
    // The manifest says `queued` until a version is finished: overlay what the running ingest is doing.
    const live = new Map<string, CurrentFile>();
    for (const c of this.deps.inFlight(caseId)) if (c.fileId) live.set(`${c.fileId}@${c.version}`, c);
    if (live.size) {
      const now = Date.now();
      for (const f of files) {
        const c = live.get(`${f.id}@${f.version}`);
        if (!c || !PENDING_STATUSES.includes(f.status as FileStatus)) continue;
        f.status = LIVE_STATUS[c.stage];
        f.live = { stage: c.stage, fraction: currentFile(c, now).fraction };
      }
    }
    await Promise.all([this.overlaySemantic(caseId, files), this.addTitles(caseId, records, files)]);
    return files.sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Each file's names as its structure profile stored them when the version was read (title, short
   * name, a court paper's court, docket and date decided: text/profile.ts); no stored structure:
   * the file name made readable. The case's documents keep them, each until its version is
   * re-indexed or removed.
   */
  private async addTitles(caseId: string, records: FileRecord[], files: FileInfo[]): Promise<void> {
    if (!files.length) return;
    const documents = await this.documents(caseId);
    const byId = new Map(records.map((r) => [r.id, r]));
    const todo = files.slice();
    const work = async () => {
      for (let f = todo.pop(); f; f = todo.pop()) {
        const record = byId.get(f.id)!;
        const names = await documents.storedNames(record, latestVersion(record)!);
        Object.assign(f, names ?? { title: readableFileName(f.name) });
      }
    };
    await Promise.all(Array.from({ length: Math.min(16, files.length) }, work));
  }

  /** Each file whose latest passages still wait for their vectors gets how many have one (found by its words meanwhile). */
  private async overlaySemantic(caseId: string, files: FileInfo[]): Promise<void> {
    if (!files.length) return;
    const share = await (await (await this.ports.openCases.open(caseId)).chunks()).embeddedByFile();
    if (!share?.size) return;
    for (const f of files) {
      const s = share.get(f.id);
      if (s && s.embedded < s.total) f.semantic = s;
    }
  }

  /** Remove a file (every version, or one): chunks and index entries first, then the record and artifacts. */
  async removeFile(caseId: string, fileId: string, version?: number): Promise<{ file_id: string; versions: number[] }> {
    const caseDir = this.ports.cases.caseDir(caseId);
    // Never while an ingest of the case writes the same manifest: queue behind it.
    return this.deps.queue.run(caseId, () =>
      withCaseLock(caseDir, () => this.removeLocked(caseId, caseDir, fileId, version)),
    );
  }

  private async removeLocked(
    caseId: string,
    caseDir: string,
    fileId: string,
    version: number | undefined,
  ): Promise<{ file_id: string; versions: number[] }> {
    const store = new CaseStore(caseDir);
    const m = await store.readManifest();
    const file = m.files.find((f) => f.id === fileId);
    if (!file) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
    const versions = version === undefined ? file.versions.map((v) => v.version) : [version];
    if (version !== undefined && !file.versions.some((v) => v.version === version)) {
      throw new CasefileError('not_found', `${file.name} has no version ${version}.`);
    }
    const sink = await createIndexSink(await this.ports.indexSinkOptions(caseId));
    let left: FileManifest | undefined;
    try {
      await sink.removeFile(fileId, versions);
      let newLatest: number | null = null;
      left = await store.update((man) => {
        const f = man.files.find((x) => x.id === fileId);
        if (f) {
          f.versions = f.versions.filter((v) => !versions.includes(v.version));
          newLatest = latestVersion(f)?.version ?? null;
          if (!f.versions.length) man.files = man.files.filter((x) => x.id !== fileId);
        }
        return structuredClone(man);
      });
      await sink.setLatest(fileId, newLatest);
    } finally {
      await sink.close();
    }
    if (version === undefined) await store.removeArtifacts(fileId);
    else await store.removeArtifacts(fileId, version);
    // The files taken out of it (attachments, an archive's files) go with it.
    if (version === undefined)
      for (const child of left!.files.filter((f) => f.parent === fileId))
        await this.removeLocked(caseId, caseDir, child.id, undefined);
    if (version === undefined) left = await store.readManifest();
    await store.collectGarbage(left!);
    this.ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
    return { file_id: fileId, versions };
  }

  /**
   * The user says which Bates prefix a file is stamped with (null: not stamped): kept on the file
   * (a new version is read so too), and its readable versions' pages marked again from their stored
   * text and geometry — no reading of the file again. A prefix found on no page is refused.
   */
  async setBates(caseId: string, fileId: string, prefix: string | null): Promise<FileInfo> {
    const caseDir = this.ports.cases.caseDir(caseId);
    const docs = await this.documents(caseId);
    return this.deps.queue.run(caseId, () =>
      withCaseLock(caseDir, async () => {
        const store = new CaseStore(caseDir);
        const file = (await store.readManifest()).files.find((f) => f.id === fileId);
        if (!file) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
        const marked = new Map<number, BatesRange | null>();
        for (const v of file.versions.filter((x) => READABLE_STATUSES.has(x.status))) {
          const [text, index] = await Promise.all([
            store.readText(fileId, v.version),
            store.readPages(fileId, v.version),
          ]);
          if (text === undefined || index === undefined) continue;
          const range = markBates({ text, index }, prefix);
          if (prefix !== null && !range)
            throw new CasefileError(
              'invalid_input',
              `No page of ${file.name} has a Bates number starting ${prefix} in its header or footer.`,
            );
          await store.writePages(fileId, v.version, index);
          marked.set(v.version, range);
        }
        const files = await store.update((m) => {
          const f = m.files.find((x) => x.id === fileId);
          if (!f) return structuredClone(m.files);
          f.bates_prefix = prefix;
          for (const v of f.versions) {
            if (!marked.has(v.version)) continue;
            const range = marked.get(v.version);
            if (range) v.bates = range;
            else delete v.bates;
          }
          return structuredClone(m.files);
        });
        docs.invalidate(fileId);
        this.ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
        return fileInfo(files.find((f) => f.id === fileId)!, this.hasPassword(caseId), files);
      }),
    );
  }

  /**
   * Mark the files named (top-level names, as a folder's walk gives them) as deleted from the folder
   * the case follows (`at`), or as back in it (null). Their stored copies are kept. Returns the names changed.
   */
  async markSourceRemoved(caseId: string, names: string[], at: string | null): Promise<string[]> {
    if (names.length === 0) return [];
    const caseDir = this.ports.cases.caseDir(caseId);
    const wanted = new Set(names);
    const changed = await this.deps.queue.run(caseId, () =>
      withCaseLock(caseDir, () =>
        new CaseStore(caseDir).update((m) => {
          const out: string[] = [];
          for (const f of m.files) {
            if (
              f.parent ||
              !wanted.has(f.name) ||
              (f.source_removed ?? null) === at ||
              (at !== null && f.source_removed)
            )
              continue;
            if (at === null) delete f.source_removed;
            else f.source_removed = at;
            out.push(f.name);
          }
          return out;
        }),
      ),
    );
    if (changed.length) this.ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
    return changed;
  }

  /** Set (or clear, with null) the user's doc type of a file; indexed versions are re-indexed so filters see it. */
  async setDocType(caseId: string, fileId: string, type: DocType | null): Promise<FileInfo> {
    const caseDir = this.ports.cases.caseDir(caseId);
    return this.deps.queue.run(caseId, () =>
      withCaseLock(caseDir, () => this.setDocTypeLocked(caseId, caseDir, fileId, type)),
    );
  }

  private async setDocTypeLocked(
    caseId: string,
    caseDir: string,
    fileId: string,
    type: DocType | null,
  ): Promise<FileInfo> {
    const store = new CaseStore(caseDir);
    const { file, files } = await store.update((m) => {
      const f = m.files.find((x) => x.id === fileId);
      if (!f) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
      f.doc_type_override = type;
      return structuredClone({ file: f, files: m.files });
    });
    const docs = await this.documents(caseId);
    const sink = await createIndexSink(await this.ports.indexSinkOptions(caseId));
    try {
      for (const v of file.versions) {
        if (v.status !== 'indexed') continue;
        await sink.indexVersion(await docs.getChunks(fileId, v.version), {});
      }
      const latest = latestVersion(file);
      if (latest) await sink.setLatest(fileId, latest.version);
    } finally {
      await sink.close();
    }
    this.ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
    return fileInfo(file, this.hasPassword(caseId), files);
  }

  async read(caseId: string, fileId: string, version?: number): Promise<FileContent> {
    const docs = await this.documents(caseId);
    const { file, version: v } = await docs.resolve(fileId, version);
    const text = await docs.getText(fileId, v.version);
    const pages = await docs.getPages(fileId, v.version);
    const html = (await docs.getHtml(fileId, v.version)) ?? null;
    return {
      file_id: fileId,
      name: file.name,
      version: v.version,
      kind: pages.kind,
      text,
      html,
      pages: pages.pages.map((p) => ({ page: p.page, start: p.start, end: p.end })),
    };
  }
}
