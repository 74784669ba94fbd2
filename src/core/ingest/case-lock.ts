/**
 * The cross-process lock of a case's ingest: one process ingests into (or removes files from) a
 * case at a time. `<caseDir>/ingest.lock` names the owner's pid; a lock whose process is gone
 * (killed) is taken over, one held by a live process is a conflict, or is waited for
 * (`lockCaseWhenFree`). Within a process, work on a case is already serialized by the service's
 * case queue, so a lock of this process is taken over too.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CasefileError } from '../../shared/errors';
import { pidAlive } from '../util/concurrency';
import type { JobRecord } from './jobs';

export const LOCK_FILE = 'ingest.lock';

/** How often a run waiting for another process's lock looks again. */
const WAIT_POLL_MS = 1000;

/** The case is held by another live Casefile process (`pid`; 0 when it could not be told). */
export class CaseLockedError extends CasefileError {
  constructor(
    readonly pid: number,
    message: string,
  ) {
    super('conflict', message);
  }
}

/** Take the case's ingest lock; resolves with its release (which leaves a lock taken over by another process alone). */
export async function lockCase(caseDir: string): Promise<() => Promise<void>> {
  const file = path.join(caseDir, LOCK_FILE);
  const mine = JSON.stringify({ pid: process.pid, started: new Date().toISOString() });
  const release = async () => {
    const now = await fs.readFile(file, 'utf8').catch(() => '');
    if (now === mine) await fs.rm(file, { force: true });
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, mine, { flag: 'wx' });
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner = 0;
    try {
      owner = Number((JSON.parse(await fs.readFile(file, 'utf8')) as { pid?: unknown }).pid) || 0;
    } catch {
      owner = 0;
    }
    if (owner === process.pid) {
      // Ours (a run taking the lock its wait took): replaced in one step, so no other process can take it in between.
      const temp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(temp, mine);
      await fs.rename(temp, file);
      return release;
    }
    if (owner && pidAlive(owner)) {
      throw new CaseLockedError(
        owner,
        `Another Casefile process (pid ${owner}) is adding files to this case. Wait for it to finish, then try again.`,
      );
    }
    await fs.rm(file, { force: true });
  }
  throw new CaseLockedError(0, 'Could not take the ingest lock of this case; try again.');
}

/**
 * Take the case's ingest lock, waiting while another live process holds it: `onWait` is told the
 * holder's pid when the wait begins (and again if another process takes over), and the lock is
 * taken as soon as that process lets it go or dies. Rejects with an AbortError when `signal` aborts.
 */
export async function lockCaseWhenFree(
  caseDir: string,
  opts: { signal: AbortSignal; onWait?: (pid: number) => void },
): Promise<() => Promise<void>> {
  let told: number | undefined;
  for (;;) {
    opts.signal.throwIfAborted();
    try {
      return await lockCase(caseDir);
    } catch (err) {
      if (!(err instanceof CaseLockedError)) throw err;
      if (told !== err.pid) opts.onWait?.(err.pid);
      told = err.pid;
    }
    await sleep(WAIT_POLL_MS, undefined, { signal: opts.signal });
  }
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
