/**
 * The cross-process lock of a case's ingest: one process ingests into (or removes files from) a
 * case at a time. `<caseDir>/ingest.lock` names the owner's pid; a lock whose process is gone
 * (killed) is taken over, one held by a live process is a conflict. Within a process, work on a
 * case is already serialized by the service's case queue.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CasefileError } from '../../shared/errors';
import { pidAlive } from '../util/concurrency';
import type { JobRecord } from './jobs';

export const LOCK_FILE = 'ingest.lock';

/** Take the case's ingest lock; resolves with its release (which leaves a lock taken over by another process alone). */
export async function lockCase(caseDir: string): Promise<() => Promise<void>> {
  const file = path.join(caseDir, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, started: new Date().toISOString() });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, mine, { flag: 'wx' });
      return async () => {
        const now = await fs.readFile(file, 'utf8').catch(() => '');
        if (now === mine) await fs.rm(file, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = 0;
    try {
      owner = Number((JSON.parse(await fs.readFile(file, 'utf8')) as { pid?: unknown }).pid) || 0;
    } catch {
      owner = 0;
    }
    if (owner && owner !== process.pid && pidAlive(owner)) {
      throw new CasefileError('conflict', `Another Casefile process (pid ${owner}) is adding files to this case. Wait for it to finish, then try again.`);
    }
    await fs.rm(file, { force: true });
  }
  throw new CasefileError('conflict', 'Could not take the ingest lock of this case; try again.');
}

/** Run `fn` holding the case's ingest lock. */
export async function withCaseLock<T>(caseDir: string, fn: () => Promise<T>): Promise<T> {
  const release = await lockCase(caseDir);
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** A job that another live process is running (not an orphan to resume here). */
export function ownedElsewhere(job: JobRecord): boolean {
  return job.pid !== process.pid && pidAlive(job.pid);
}
