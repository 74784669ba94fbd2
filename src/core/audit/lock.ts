/**
 * The audit trail's cross-process lock: `audit.lock` created exclusively (O_EXCL) names its
 * holder's pid and a token of its own. Each entry's hash depends on the one before, so reading the
 * tail and appending must not interleave between two processes sharing a data folder; O_APPEND alone
 * keeps lines whole but would let two writers chain to the same entry. A lock whose process is gone
 * (killed while holding it) is taken over; one held by a live process is waited for, briefly.
 */
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { CasefileError } from '../../shared/errors';
import { pidAlive } from '../util/concurrency';

/** How long an append waits for another writer before giving up. The lock is held only for one line's write. */
const WAIT_LIMIT_MS = 15_000;

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
    let owner = 0;
    try {
      owner = Number((JSON.parse(held) as { pid?: unknown }).pid) || 0;
    } catch {
      owner = 0; // being written this instant, or left half-written by a crash: judged on the next look
    }
    if (owner && !pidAlive(owner)) {
      // Left by a process that died holding it: removed only if it is still that same lock.
      if ((await fs.readFile(file, 'utf8').catch(() => '')) === held) await fs.rm(file, { force: true });
      continue;
    }
    if (Date.now() > deadline)
      throw new CasefileError(
        'unavailable',
        `The audit trail is busy: another Casefile process (pid ${owner || 'unknown'}) holds ${file}. Try again; if no Casefile is running, remove that file.`,
      );
    await sleep(pause);
  }
}
