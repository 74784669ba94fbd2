import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readJson, writeJsonAtomic } from '../util/fs';

/**
 * A persisted ingest job: what was dropped into which case. Written before any work starts and
 * removed when the run finishes; a job file that is still there on the next start means the run
 * was interrupted (or cancelled) and is resumed by walking its paths again. File versions that
 * were already registered are finished from the case's file manifest.
 */
export interface JobRecord {
  schemaVersion: 1;
  id: string;
  caseId: string;
  paths: string[];
  /**
   * Folders of `paths` of which only these files are read (names as a drop of the folder names
   * them): a followed folder's new and changed files. A path not listed is read whole.
   */
  only?: Record<string, string[]>;
  created: string;
  state: 'running' | 'cancelled';
  /** Process that owns a running job (a job whose process is gone was interrupted). */
  pid: number;
  /** The machine of that process (a data folder shared by several; absent in jobs of earlier versions). */
  host?: string;
}

/** What several jobs read, as one walk: a path any of them reads whole is read whole, else the files they name in it. */
export function mergeWalks(jobs: ReadonlyArray<Pick<JobRecord, 'paths' | 'only'>>): {
  paths: string[];
  only?: Record<string, string[]>;
} {
  const paths = [...new Set(jobs.flatMap((j) => j.paths))];
  const only: Record<string, string[]> = {};
  for (const p of paths) {
    const named = jobs.filter((j) => j.paths.includes(p)).map((j) => j.only?.[p]);
    if (named.every((n) => n !== undefined)) only[p] = [...new Set(named.flat())];
  }
  return Object.keys(only).length ? { paths, only } : { paths };
}

export class JobStore {
  constructor(readonly dir: string) {}

  private file(id: string): string {
    return path.join(this.dir, `${id}.json`);
  }

  async save(job: JobRecord): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    await writeJsonAtomic(this.file(job.id), job);
  }

  async remove(id: string): Promise<void> {
    await fs.rm(this.file(id), { force: true });
  }

  async list(caseId?: string): Promise<JobRecord[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    const jobs: JobRecord[] = [];
    for (const n of names) {
      if (!/^[A-Za-z0-9_-]+\.json$/.test(n)) continue;
      try {
        const job = (await readJson(path.join(this.dir, n))) as JobRecord | undefined;
        if (job && job.schemaVersion === 1 && (!caseId || job.caseId === caseId)) jobs.push(job);
      } catch {
        // A damaged job file (crash mid-write is impossible with atomic writes) is dropped.
        await fs.rm(path.join(this.dir, n), { force: true });
      }
    }
    return jobs.sort((a, b) => a.created.localeCompare(b.created));
  }
}
