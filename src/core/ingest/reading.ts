/**
 * `<caseDir>/reading.json`: versions whose reading is being stored now → how many times that
 * began. The count is raised when the app starts storing what a reader handed over and cleared
 * once it is stored, so a count left behind means the app died while storing that file (while a
 * reader works, the app dying is not the file's doing: readers are processes of their own); at
 * `limits.quarantineAfter` (3 by default) the version is set aside instead of being read again.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { KeyedQueue } from '../util/concurrency';
import { readJson, writeJsonAtomic } from '../util/fs';

/** The reason of a version set aside after the app closed `times` times while reading it. */
export function quarantineReason(times: number): string {
  return `stopped: Casefile closed unexpectedly ${times} times while storing what it read from this file, so it was set aside (the file may be damaged or hostile). Retry it by hand if it should be read.`;
}

/** Reading counts of cases; writes of each case's file go one at a time. */
export class ReadingCounts {
  private readonly writes = new KeyedQueue<string>();

  /** The counts of a case (after the writes queued so far). */
  async read(caseDir: string): Promise<Record<string, number>> {
    await this.writes.idle(caseDir);
    const raw = (await readJson(path.join(caseDir, 'reading.json')).catch(() => undefined)) as
      | Record<string, unknown>
      | undefined;
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(raw ?? {})) if (typeof v === 'number' && v > 0) out[k] = v;
    return out;
  }

  /** Set a version's count, or clear it with null (the file goes when nothing is left in it). */
  set(caseDir: string, key: string, count: number | null): Promise<void> {
    return this.update(caseDir, key, () => count);
  }

  /** Raise a version's count by one, queued at once (so a clear asked for later lands after it). */
  increment(caseDir: string, key: string): Promise<void> {
    return this.update(caseDir, key, (now) => (now ?? 0) + 1);
  }

  private update(caseDir: string, key: string, next: (now: number | undefined) => number | null): Promise<void> {
    const file = path.join(caseDir, 'reading.json');
    return this.writes.run(caseDir, async () => {
      const now = (await readJson(file).catch(() => undefined)) as Record<string, number> | undefined;
      const counts = { ...(now ?? {}) };
      const count = next(typeof counts[key] === 'number' ? counts[key] : undefined);
      if (count === null) delete counts[key];
      else counts[key] = count;
      if (Object.keys(counts).length === 0) await fs.rm(file, { force: true });
      else await writeJsonAtomic(file, counts);
    });
  }

  /** Run a step, then clear its count however it ended (a cancel or an error is not a crash of this process). */
  async during<T>(caseDir: string, key: string, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } finally {
      await this.set(caseDir, key, null);
    }
  }
}
