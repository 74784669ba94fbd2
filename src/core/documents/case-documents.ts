import { CasefileError } from '../../shared/errors';
import {
  pageAt,
  type Section,
  findDefinedTerms,
  type DocumentProfile,
  structureOf,
  type DocumentStructure,
  extractEvents,
  type DatedEvent,
  NAMES_FORMAT,
  profileOf,
} from '../text/index';
import { CaseStore, expandChunks, latestVersion } from './case-store';
import type { RemoteOriginals } from '../cases/index';
import type { ChunkRecord, FileRecord, PageIndex, VersionRecord } from '../domain/index';

/** Structures kept (each a few kB: sections, title, parties, defined terms). */
const STRUCTURE_CACHE = 2048;
/** Titles kept (a few bytes each): enough for every document of a large case. */
const TITLE_CACHE = 20_000;

/** A version's identity, not only its number: a shared reader must not serve a version that was removed and made again under the same number. */
function versionKey(fileId: string, v: VersionRecord): string {
  return `${fileId}@${v.version}:${v.sha256}:${v.ingested_at}`;
}

/** Statuses whose text can be read (and searched). */
export const READABLE_STATUSES = new Set(['indexed', 'unchanged']);

/**
 * Read access to one case's ingested documents, for the index, tools and citations. Every
 * method is bound to this case's directory; text and page indexes are cached (small LRU).
 * `version` defaults to the latest version of the file.
 */
/** A version's names as its stored profile gives them (text/profile.ts). */
export type StoredNames = Pick<DocumentProfile, 'title' | 'short_name' | 'court' | 'docket' | 'decided'>;

export class CaseDocuments {
  readonly store: CaseStore;
  private readonly cache = new Map<string, { text: string; pages: PageIndex }>();
  /** Outlines and profiles, by version identity: small, so many more are kept than texts (routing reads every document's). */
  private readonly structures = new Map<string, DocumentStructure>();
  /** The names each version's stored structure gives, by version identity (the documents list shows every one). */
  private readonly titles = new Map<string, StoredNames>();
  private readonly cacheSize: number;

  /** `remote`: where else the case keeps its originals (the bucket of a bucket case), for `originalPath`. */
  constructor(caseDir: string, options: { cacheSize?: number; remote?: () => Promise<RemoteOriginals | null> } = {}) {
    this.store = new CaseStore(caseDir, options.remote);
    this.cacheSize = options.cacheSize ?? 16;
  }

  /**
   * All file records (each with every version, oldest first). The case's store keeps them in
   * memory between changes (cases/manifest.ts), so a search that places ten results in their
   * documents, or a tool call per agent step, does not read the manifest again. Callers must not
   * change what they get.
   */
  listFiles(): Promise<FileRecord[]> {
    return this.store.files();
  }

  /** A file by id, or undefined. */
  getFile(fileId: string): Promise<FileRecord | undefined> {
    return this.store.file(fileId);
  }

  /** A file by its name (path relative to the dropped folder), or undefined. */
  async getFileByName(name: string): Promise<FileRecord | undefined> {
    return (await this.listFiles()).find((f) => f.name === name);
  }

  /** File and version, throwing `not_found` with a plain message when either is missing. */
  async resolve(fileId: string, version?: number): Promise<{ file: FileRecord; version: VersionRecord }> {
    const file = await this.getFile(fileId);
    if (!file) throw new CasefileError('not_found', `No file with id ${fileId} in this case.`);
    const v = version === undefined ? latestVersion(file) : file.versions.find((x) => x.version === version);
    if (!v) {
      throw new CasefileError(
        'not_found',
        `${file.name} has no version ${version}; it has ${file.versions.map((x) => `v${x.version}`).join(', ') || 'none'}.`,
      );
    }
    return { file, version: v };
  }

  private async load(
    fileId: string,
    version?: number,
  ): Promise<{ file: FileRecord; version: VersionRecord; text: string; pages: PageIndex }> {
    const r = await this.resolve(fileId, version);
    const key = versionKey(fileId, r.version);
    let hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
    } else {
      const [text, pages] = await Promise.all([
        this.store.readText(fileId, r.version.version),
        this.store.readPages(fileId, r.version.version),
      ]);
      if (text === undefined || pages === undefined || !READABLE_STATUSES.has(r.version.status)) {
        const why = r.version.reason ? `: ${r.version.reason}` : ` (status ${r.version.status})`;
        throw new CasefileError('unavailable', `${r.file.name} v${r.version.version} has no readable text${why}.`);
      }
      hit = { text, pages };
      this.cache.set(key, hit);
      while (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value as string);
    }
    return { ...r, ...hit };
  }

  /** The outline of a version as sections (text/outline.ts). */
  async getSections(fileId: string, version?: number): Promise<Section[]> {
    return (await this.getStructure(fileId, version)).sections;
  }

  /**
   * Outline and profile of a version: as ingest stored them (without reading its text), or — a
   * version indexed before structure or defined terms were stored — completed from its text once.
   */
  async getStructure(fileId: string, version?: number): Promise<DocumentStructure> {
    const { file, version: v } = await this.resolve(fileId, version);
    const key = versionKey(file.id, v);
    const cached = this.structures.get(key);
    if (cached) return cached;
    let structure = READABLE_STATUSES.has(v.status) ? await this.store.readStructure(file.id, v.version) : undefined;
    if (!structure?.profile.defined) {
      const { text, pages } = await this.load(file.id, v.version);
      if (!structure) {
        const html = v.kind === 'docx' ? await this.store.readHtml(file.id, v.version) : undefined;
        structure = structureOf(text, pages, file.name, html, { subject: v.email?.subject });
      }
      structure.profile.defined ??= findDefinedTerms(text);
    }
    this.structures.set(key, structure);
    while (this.structures.size > STRUCTURE_CACHE)
      this.structures.delete(this.structures.keys().next().value as string);
    return structure;
  }

  /**
   * The names a readable version's structure profile stored when it was read (title, short name; a
   * court paper's court, docket and date decided), without reading its text; undefined when it has
   * none. Kept until the version is re-indexed or removed ({@link invalidate}).
   */
  async storedNames(file: FileRecord, v: VersionRecord): Promise<StoredNames | undefined> {
    if (!READABLE_STATUSES.has(v.status)) return undefined;
    const key = versionKey(file.id, v);
    const known = this.titles.get(key);
    if (known !== undefined) return known;
    const profile = (await this.store.readStructure(file.id, v.version).catch(() => undefined))?.profile;
    const title = profile?.title?.trim();
    if (!profile || !title) return undefined;
    const names: StoredNames = { title };
    for (const k of ['short_name', 'court', 'docket', 'decided'] as const) if (profile[k]) names[k] = profile[k];
    this.titles.set(key, names);
    if (this.titles.size > TITLE_CACHE) this.titles.delete(this.titles.keys().next().value as string);
    return names;
  }

  /** The title alone ({@link storedNames}). */
  async storedTitle(file: FileRecord, v: VersionRecord): Promise<string | undefined> {
    return (await this.storedNames(file, v))?.title;
  }

  /**
   * The dated events of a version, for the chronology: as ingest stored them, or — a version read
   * before events were kept, or by older rules — extracted from its text once and stored.
   */
  async getEvents(fileId: string, version?: number, options: { dayFirst?: boolean } = {}): Promise<DatedEvent[]> {
    const dayFirst = options.dayFirst ?? false;
    const { file, version: v } = await this.resolve(fileId, version);
    const stored = READABLE_STATUSES.has(v.status)
      ? await this.store.readEvents(file.id, v.version, dayFirst)
      : undefined;
    if (stored) return stored;
    const { text, pages } = await this.load(file.id, v.version);
    const { sections, profile } = await this.getStructure(file.id, v.version);
    // Named by older rules (the case not reindexed since): its parties by today's.
    const parties =
      (profile.names ?? 0) < NAMES_FORMAT ? profileOf(text, sections, file.name).parties : profile.parties;
    const events = await extractEvents(text, pages, { docDate: v.doc_date, dayFirst, parties });
    await this.store.writeEvents(file.id, v.version, events, dayFirst).catch(() => undefined);
    return events;
  }

  /** The document text of a version (what chunk offsets point into). */
  async getText(fileId: string, version?: number): Promise<string> {
    return (await this.load(fileId, version)).text;
  }

  /** Page ranges (and PDF geometry) of a version. */
  async getPages(fileId: string, version?: number): Promise<PageIndex> {
    return (await this.load(fileId, version)).pages;
  }

  /** DOCX: the HTML rendering kept for display; undefined for other kinds. */
  async getHtml(fileId: string, version?: number): Promise<string | undefined> {
    const r = await this.resolve(fileId, version);
    return this.store.readHtml(fileId, r.version.version);
  }

  /** All chunks of a version, in order (text included). */
  async getChunks(fileId: string, version?: number): Promise<ChunkRecord[]> {
    const r = await this.load(fileId, version);
    const stored = (await this.store.readStoredChunks(fileId, r.version.version)) ?? [];
    return expandChunks(stored, r.text, r.file, r.version);
  }

  /** 1-based page holding character `offset` of a version's text. */
  async pageOfOffset(fileId: string, offset: number, version?: number): Promise<number> {
    const { pages } = await this.load(fileId, version);
    return pageAt(
      pages.pages.map((p) => p.start),
      offset,
    );
  }

  /** First and last page of the character range [start, end). */
  async pagesOfSpan(fileId: string, start: number, end: number, version?: number): Promise<[number, number]> {
    const { pages } = await this.load(fileId, version);
    const starts = pages.pages.map((p) => p.start);
    return [pageAt(starts, start), pageAt(starts, Math.max(start, end - 1))];
  }

  /** Path of a version's original bytes (for rendering pages or "open in system viewer"). */
  async originalPath(fileId: string, version?: number): Promise<string> {
    const r = await this.resolve(fileId, version);
    return (await this.store.localBlob(r.version.sha256)) ?? this.store.blobPath(r.version.sha256);
  }

  /** Drop what is cached of a file's versions, or of all (after a file was removed or re-indexed). */
  invalidate(fileId?: string): void {
    for (const map of [this.cache, this.structures, this.titles]) {
      if (fileId === undefined) map.clear();
      else for (const k of [...map.keys()]) if (k.startsWith(`${fileId}@`)) map.delete(k);
    }
  }
}
