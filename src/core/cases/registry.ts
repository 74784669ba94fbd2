import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CaseSummary } from '../../shared/contract/cases';
import { CasefileError } from '../../shared/errors';
import { cleanTempFiles, readJson, writeJsonAtomic } from '../util/fs';
import { newId } from '../util/ids';
import {
  CaseStorage,
  caseIndexLocation,
  type IndexLocation,
  newCaseStorage,
  type ObjectStore,
  type RemoteOriginals,
  storeFor,
} from './object-store';

export const CASE_SCHEMA_VERSION = 1;

/** case.json, versioned so later releases can migrate it. */
export const CaseMeta = z.object({
  schemaVersion: z.literal(CASE_SCHEMA_VERSION),
  id: z.string(),
  name: z.string(),
  created: z.string(),
  updated: z.string(),
  /** Which embedding model made this case's vectors (null: none yet). Filled by the index. */
  embedding: z
    .object({
      modelId: z.string(),
      dimension: z.number().int().positive(),
      /** True while passages indexed before this model wait for its vectors: the background catch-up makes them, an ingest only its own files'. */
      catchUp: z.boolean().optional(),
    })
    .nullable()
    .default(null),
  /** Per-case settings (chunking, retrieval); each feature owns its keys. */
  settings: z.record(z.string(), z.unknown()).default({}),
  /** Where the case's index lives when not in its folder: the firm's object storage (object-store.ts). */
  storage: CaseStorage.optional(),
});
export type CaseMeta = z.infer<typeof CaseMeta>;

/** The OCR language when a case names none. */
export const DEFAULT_OCR_LANGUAGE = 'eng';

/** A case's OCR setting (`settings.ocr` in case.json): on, in English, unless the case says otherwise. */
export function ocrSettingsOf(settings: Record<string, unknown>): { enabled: boolean; language: string } {
  const raw = (settings.ocr ?? {}) as { enabled?: unknown; language?: unknown };
  return {
    enabled: raw.enabled !== false,
    language:
      typeof raw.language === 'string' && /^[a-z_]{3,12}$/.test(raw.language) ? raw.language : DEFAULT_OCR_LANGUAGE,
  };
}

/** The case's date order (case.json `settings.dates`); a case never set follows this computer's locale. */
export function dateSettingsOf(settings: Record<string, unknown>): { dayFirst: boolean } {
  const set = (settings.dates as { dayFirst?: unknown } | undefined)?.dayFirst;
  return { dayFirst: typeof set === 'boolean' ? set : localeDayFirst() };
}

/** Whether this computer's locale writes the day before the month (en-GB, fr, de…; not en-US). */
export function localeDayFirst(): boolean {
  const parts = new Intl.DateTimeFormat(undefined, {
    day: 'numeric',
    month: 'numeric',
    year: 'numeric',
    timeZone: 'UTC',
  }).formatToParts(Date.UTC(2020, 2, 4));
  return parts.findIndex((p) => p.type === 'day') < parts.findIndex((p) => p.type === 'month');
}

/** The folders a case follows (case.json `settings.watch`): new and changed files are added, deleted ones marked; off until turned on. */
export function watchSettingsOf(settings: Record<string, unknown>): {
  enabled: boolean;
  folders: string[];
  problem?: string;
} {
  const raw = (settings.watch ?? {}) as { enabled?: unknown; folders?: unknown; problem?: unknown };
  const folders = Array.isArray(raw.folders)
    ? raw.folders.filter((f): f is string => typeof f === 'string' && f.length > 0)
    : [];
  const enabled = raw.enabled === true && folders.length > 0;
  return {
    enabled,
    folders,
    ...(!enabled && typeof raw.problem === 'string' && raw.problem ? { problem: raw.problem } : {}),
  };
}

export interface CaseStats {
  files: number;
  bytes: number;
}
export type CaseStatsProvider = (caseDir: string) => Promise<CaseStats>;

const CREATING = '.creating-';
const DELETING = '.deleting-';
/** A case being set aside as an earlier version of itself (an import replacing it): finished at the next start if cut short. */
const EARLIER = '.earlier-';

/** A bucket case's originals on `store` (the S3 client loaded on first use). */
export async function bucketOriginals(store: ObjectStore, storage: CaseStorage): Promise<RemoteOriginals> {
  const { BucketOriginals } = await import('./bucket-originals');
  return new BucketOriginals(store, storage);
}

/**
 * The cases of one data home. A case is a directory `<home>/cases/<id>/` holding everything of
 * that case; creation and deletion go through a dot-prefixed staging name so a crash never leaves
 * half a case visible.
 */
export class CaseRegistry {
  readonly casesDir: string;
  private statsProvider: CaseStatsProvider = async () => ({ files: 0, bytes: 0 });
  /** The home's object storage (none: every case local); a promise, so bad settings fail only what needs them. */
  private objectStore: Promise<ObjectStore | null> = Promise.resolve(null);

  constructor(readonly home: string) {
    this.casesDir = path.join(home, 'cases');
  }

  /** Ingest registers how file counts and sizes are computed. */
  setStatsProvider(provider: CaseStatsProvider): void {
    this.statsProvider = provider;
  }

  /** New cases keep their index on this object storage (read once by the engine from the home's settings). */
  setObjectStore(store: Promise<ObjectStore | null>): void {
    store.catch(() => undefined); // reported when a case needs it, not as an unhandled rejection
    this.objectStore = store;
  }

  /** The home's object storage settings (null: every case keeps its index in its folder). */
  objectStorage(): Promise<ObjectStore | null> {
    return this.objectStore;
  }

  /** Where the case's LanceDB database is (its folder, or the object storage the case recorded). */
  async indexLocation(caseId: string): Promise<IndexLocation> {
    const { storage } = await this.readMeta(caseId);
    return caseIndexLocation(this.caseDir(caseId), storage, storage ? await this.objectStore : null);
  }

  /** Where the case keeps its originals besides its folder: the bucket of a bucket case; null for a local case. */
  async originals(caseId: string): Promise<RemoteOriginals | null> {
    const { storage } = await this.readMeta(caseId);
    return storage ? bucketOriginals(storeFor(storage, await this.objectStore), storage) : null;
  }

  caseDir(caseId: string): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(caseId))
      throw CasefileError.withRemedy('invalid_input', `“${caseId}” is not a case id.`, {
        app: 'Pick the case from the list of cases.',
        cli: 'Name the case as the case list shows it (casefile cases list).',
      });
    return path.join(this.casesDir, caseId);
  }

  async init(): Promise<void> {
    await fs.mkdir(this.casesDir, { recursive: true });
    await this.cleanup();
  }

  /** Remove leftovers of crashed creates/deletes and of interrupted atomic writes. */
  async cleanup(): Promise<void> {
    const entries = await fs.readdir(this.casesDir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const full = path.join(this.casesDir, e.name);
      if (e.name.startsWith(CREATING) || e.name.startsWith(DELETING)) {
        await fs.rm(full, { recursive: true, force: true });
      } else if (e.name.startsWith(EARLIER)) {
        await this.finishEarlier(full, e.name.slice(EARLIER.length));
      } else if (e.isDirectory()) {
        await cleanTempFiles(full);
      }
    }
  }

  async create(name: string): Promise<CaseSummary> {
    await fs.mkdir(this.casesDir, { recursive: true });
    const id = newId('c', 12);
    const now = new Date().toISOString();
    const storage = newCaseStorage(await this.objectStore, id);
    const meta: CaseMeta = {
      schemaVersion: CASE_SCHEMA_VERSION,
      id,
      name,
      created: now,
      updated: now,
      embedding: null,
      settings: {},
      ...(storage ? { storage } : {}),
    };
    const staging = path.join(this.casesDir, `${CREATING}${id}`);
    await fs.mkdir(staging, { recursive: true });
    await writeJsonAtomic(path.join(staging, 'case.json'), meta);
    await fs.rename(staging, this.caseDir(id));
    return this.summary(meta);
  }

  /** A new folder to assemble a case arriving whole (an import) in; `cleanup` removes it if the app dies first. */
  async newStaging(): Promise<string> {
    await fs.mkdir(this.casesDir, { recursive: true });
    const dir = path.join(this.casesDir, `${CREATING}import-${newId('i', 12)}`);
    await fs.mkdir(dir);
    return dir;
  }

  /** Put a case assembled in `staged` (its case.json names `caseId`) in place, in one rename. */
  async install(staged: string, caseId: string): Promise<CaseSummary> {
    const target = this.caseDir(caseId);
    if (await fs.stat(target).catch(() => null))
      throw new CasefileError('conflict', `A case with id ${caseId} is already here.`);
    await fs.rename(staged, target);
    return this.get(caseId);
  }

  /**
   * Keep a case as an earlier version of itself under a new id, named “… (earlier version, <when>)”
   * and following no folder, so its id is free for the version replacing it. Nothing is deleted.
   */
  async keepAsEarlier(caseId: string): Promise<CaseSummary> {
    const meta = await this.readMeta(caseId);
    const id = newId('c', 12);
    const hidden = path.join(this.casesDir, `${EARLIER}${id}`);
    await fs.rename(this.caseDir(caseId), hidden);
    const suffix = ` (earlier version, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC)`;
    const { folders } = watchSettingsOf(meta.settings);
    const kept: CaseMeta = {
      ...meta,
      id,
      name: `${[...meta.name].slice(0, 200 - suffix.length).join('')}${suffix}`,
      settings: { ...meta.settings, watch: { enabled: false, folders } },
    };
    await writeJsonAtomic(path.join(hidden, 'case.json'), kept);
    await fs.rename(hidden, this.caseDir(id));
    return this.summary(kept);
  }

  /** An earlier version set aside when the app stopped: named for its new id, and made visible. */
  private async finishEarlier(dir: string, id: string): Promise<void> {
    const raw = (await readJson(path.join(dir, 'case.json')).catch(() => undefined)) as CaseMeta | undefined;
    if (!raw || !/^[A-Za-z0-9_-]{1,64}$/.test(id)) return;
    if (raw.id !== id)
      await writeJsonAtomic(path.join(dir, 'case.json'), { ...raw, id, name: `${raw.name} (earlier version)` });
    await fs.rename(dir, this.caseDir(id)).catch(() => undefined);
  }

  async readMeta(caseId: string): Promise<CaseMeta> {
    const file = path.join(this.caseDir(caseId), 'case.json');
    let raw: unknown;
    try {
      raw = await readJson(file);
    } catch (err) {
      throw new CasefileError('failed', `The case file of ${caseId} is unreadable: ${(err as Error).message}`);
    }
    if (raw === undefined) throw new CasefileError('not_found', `No case with id ${caseId}.`);
    const parsed = CaseMeta.safeParse(raw);
    if (!parsed.success)
      throw new CasefileError('failed', `The case file of ${caseId} is damaged: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /** Read-modify-write of case.json (atomic). */
  async updateMeta(caseId: string, change: (meta: CaseMeta) => CaseMeta): Promise<CaseMeta> {
    const meta = change(await this.readMeta(caseId));
    meta.updated = new Date().toISOString();
    await writeJsonAtomic(path.join(this.caseDir(caseId), 'case.json'), meta);
    return meta;
  }

  async get(caseId: string): Promise<CaseSummary> {
    return this.summary(await this.readMeta(caseId));
  }

  /** Every case's case.json (unordered). */
  async metas(): Promise<CaseMeta[]> {
    const entries = await fs.readdir(this.casesDir, { withFileTypes: true }).catch(() => []);
    const metas: CaseMeta[] = [];
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.')) continue;
      try {
        metas.push(await this.readMeta(e.name));
      } catch {
        // A directory without a readable case.json is not a case (e.g. foreign files); skip it.
      }
    }
    return metas;
  }

  async list(query?: string): Promise<CaseSummary[]> {
    const metas = await this.metas();
    const needle = query?.trim().toLocaleLowerCase();
    const shown = needle ? metas.filter((m) => m.name.toLocaleLowerCase().includes(needle)) : metas;
    shown.sort((a, b) => b.created.localeCompare(a.created) || a.name.localeCompare(b.name));
    return Promise.all(shown.map((m) => this.summary(m)));
  }

  async rename(caseId: string, name: string): Promise<CaseSummary> {
    return this.summary(await this.updateMeta(caseId, (m) => ({ ...m, name })));
  }

  /** Change the case's OCR setting (it applies to files read from now on). */
  async setDateOrder(caseId: string, dayFirst: boolean): Promise<CaseSummary> {
    return this.summary(
      await this.updateMeta(caseId, (m) => ({ ...m, settings: { ...m.settings, dates: { dayFirst } } })),
    );
  }

  async setOcr(caseId: string, change: { enabled?: boolean; language?: string }): Promise<CaseSummary> {
    return this.summary(
      await this.updateMeta(caseId, (m) => ({
        ...m,
        settings: { ...m.settings, ocr: { ...ocrSettingsOf(m.settings), ...change } },
      })),
    );
  }

  /**
   * Turn following the case's folders on or off, or change which folders it follows. `problem`:
   * why the app switched following off by itself (kept until the next change, which clears it).
   */
  async setWatch(
    caseId: string,
    change: { enabled?: boolean; folders?: string[]; problem?: string },
  ): Promise<CaseSummary> {
    return this.summary(
      await this.updateMeta(caseId, (m) => {
        const now = watchSettingsOf(m.settings);
        const folders = change.folders ?? now.folders;
        const enabled = (change.enabled ?? (m.settings.watch as { enabled?: boolean } | undefined)?.enabled) === true;
        return {
          ...m,
          settings: {
            ...m.settings,
            watch: { enabled, folders, ...(change.problem ? { problem: change.problem } : {}) },
          },
        };
      }),
    );
  }

  async delete(caseId: string): Promise<void> {
    const dir = this.caseDir(caseId);
    await this.readMeta(caseId); // not_found if absent
    const staging = path.join(this.casesDir, `${DELETING}${caseId}-${Date.now()}`);
    await fs.rename(dir, staging);
    await fs.rm(staging, { recursive: true, force: true });
  }

  /** Resolve what a user typed: an exact id, else a unique exact name, else a unique case-insensitive name. */
  async resolve(ref: string): Promise<CaseSummary> {
    const all = await this.list();
    const byId = all.find((c) => c.id === ref);
    if (byId) return byId;
    const exact = all.filter((c) => c.name === ref);
    const matches = exact.length ? exact : all.filter((c) => c.name.toLocaleLowerCase() === ref.toLocaleLowerCase());
    if (matches.length === 1) return matches[0]!;
    if (matches.length === 0) throw new CasefileError('not_found', `No case with id or name "${ref}".`);
    throw new CasefileError(
      'ambiguous',
      `${matches.length} cases are named "${ref}"; use an id instead: ${matches.map((m) => m.id).join(', ')}.`,
    );
  }

  private async summary(meta: CaseMeta): Promise<CaseSummary> {
    const stats = await this.statsProvider(this.caseDir(meta.id));
    return {
      id: meta.id,
      name: meta.name,
      created: meta.created,
      updated: meta.updated,
      files: stats.files,
      bytes: stats.bytes,
      ocr: ocrSettingsOf(meta.settings),
      dates: { day_first: dateSettingsOf(meta.settings).dayFirst },
      watch: watchSettingsOf(meta.settings),
    };
  }
}
