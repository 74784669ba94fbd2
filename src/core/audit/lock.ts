/**
 * The audit trail's cross-process lock: `audit.lock` created exclusively (O_EXCL) names its
 * holder's pid and a token of its own. Each entry's hash depends on the one before, so reading the
 * tail and appending must not interleave between two processes sharing a data folder; O_APPEND alone
 * keeps lines whole but would let two writers chain to the same entry. A lock whose process is gone
 * (killed while holding it) is taken over, and so is one unchanged for longer than any write takes
 * (left empty by a crash, or naming a pid the system has given to another program since); one held
 * by a live process is waited for, briefly.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CasefileError } from '../../shared/errors';
import { pidAlive } from '../util/concurrency';

/** How long an append waits for another writer before giving up. The lock is held only for one line's write. */
const WAIT_LIMIT_MS = 15_000;
/** A lock older than this is left over, whoever it names: a writer holds it for one line's write and one small file. */
const STALE_MS = 10_000;

/** Whether the lock as read (`held`) was left by a process that is gone, or is older than any write takes. */
async function isStale(file: string, held: string): Promise<boolean> {
  let owner = 0;
  try {
    owner = Number((JSON.parse(held) as { pid?: unknown }).pid) || 0;
  } catch {
    owner = 0; // being written this instant, or left empty by a crash: judged by its age
  }
  if (owner && !pidAlive(owner)) return true;
  const stat = await fs.stat(file).catch(() => null);
  return stat !== null && Date.now() - stat.mtimeMs > STALE_MS;
}

/** Take the lock at `file`; resolves with its release. */
export async function lockAudit(file: string): Promise<() => Promise<void>> {
  const mine = JSON.stringify({ pid: process.pid, token: randomUUID() });
  const release = async () => {
    const now = await fs.readFile(file, 'utf8').catch(() => '');
    if (now === mine) await fs.rm(file, { force: true });
  };
  const deadline = Date.now() + WAIT_LIMIT_MS;
  for (let pause = 1; ; pause = Math.min(pause * 2, 25)) {
    try {
      await fs.writeFile(file, mine, { flag: 'wx' });
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const held = await fs.readFile(file, 'utf8').catch(() => '');
    if (await isStale(file, held)) {
      // Removed only if it is still that same lock, so a lock just taken by another writer stays.
      if ((await fs.readFile(file, 'utf8').catch(() => '')) === held) await fs.rm(file, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new CasefileError(
        'unavailable',
        `The audit trail is busy: another Casefile process holds ${file}. Try again in a moment.`,
      );
    await sleep(pause);
  }
}
