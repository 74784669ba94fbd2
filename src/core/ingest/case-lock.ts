/**
 * The cross-process lock of a case's ingest: one process ingests into (or removes files from) a
 * case at a time. `<caseDir>/ingest.lock` names the owner's pid and machine; a lock whose process is
 * gone (killed) is taken over, one held by a live process is a conflict, or is waited for
 * (`lockCaseWhenFree`). Within a process, work on a case is already serialized by the service's
 * case queue, so a lock of this process is taken over too. A data folder shared by several
 * machines (a network drive) cannot tell whether another machine's process lives: there the lock is
 * a lease its holder renews (the file's time, every few seconds), taken over once left unrenewed.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CasefileError } from '../../shared/errors';
import { pidAlive } from '../util/concurrency';
import type { JobRecord } from './jobs';

export const LOCK_FILE = 'ingest.lock';

/** How often a run waiting for another process's lock looks again. */
const WAIT_POLL_MS = 1000;
/** How often the holder renews its lease, and how long another machine's unrenewed lease lasts. */
const LEASE_RENEW_MS = 10_000;
const LEASE_TTL_MS = 60_000;

/** This machine's name, as locks and jobs record it. */
export const HOST = os.hostname();

/** Whether the owner of a lock or job still holds it: on this machine its process lives; on another, its lease was renewed lately. */
async function ownerAlive(owner: { pid: number; host?: string }, file: string): Promise<boolean> {
  if (!owner.host || owner.host === HOST) return pidAlive(owner.pid);
  const stat = await fs.stat(file).catch(() => null);
  return stat !== null && Date.now() - stat.mtimeMs < LEASE_TTL_MS;
}

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
  const mine = JSON.stringify({ pid: process.pid, host: HOST, started: new Date().toISOString() });
  const held = (): (() => Promise<void>) => {
    // The lease: the file's time moves while this process holds it (while it is still ours).
    const renew = setInterval(() => {
      void fs
        .readFile(file, 'utf8')
        .then((now) => (now === mine ? fs.utimes(file, new Date(), new Date()) : undefined))
        .catch(() => {});
    }, LEASE_RENEW_MS);
    renew.unref();
    return async () => {
      clearInterval(renew);
      const now = await fs.readFile(file, 'utf8').catch(() => '');
      if (now === mine) await fs.rm(file, { force: true });
    };
  };
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await fs.writeFile(file, mine, { flag: 'wx' });
      return held();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    let owner: { pid: number; host?: string } = { pid: 0 };
    try {
      const read = JSON.parse(await fs.readFile(file, 'utf8')) as { pid?: unknown; host?: unknown };
      owner = { pid: Number(read.pid) || 0, ...(typeof read.host === 'string' ? { host: read.host } : {}) };
    } catch {
      owner = { pid: 0 };
    }
    if (owner.pid === process.pid && (!owner.host || owner.host === HOST)) {
      // Ours (a run taking the lock its wait took): replaced in one step, so no other process can take it in between.
      const temp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(temp, mine);
      await fs.rename(temp, file);
      return held();
    }
    if (owner.pid && (await ownerAlive(owner, file))) {
      const where = owner.host && owner.host !== HOST ? ` on ${owner.host}` : '';
      throw new CaseLockedError(
        owner.pid,
        `Another Casefile process (pid ${owner.pid}${where}) is adding files to this case. Wait for it to finish, then try again.`,
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

/**
 * A job that another live process is running (not an orphan to resume here). Another machine's job
 * is always left to it: whether its process lives cannot be told from here, and that machine
 * resumes its own jobs.
 */
export function ownedElsewhere(job: JobRecord): boolean {
  if (job.host && job.host !== HOST) return true;
  return job.pid !== process.pid && pidAlive(job.pid);
}
