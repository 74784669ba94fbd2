/**
 * In-process concurrency helpers used across the core: a keyed serial queue (the per-key promise
 * lock that guards read-modify-write of one file, or the runs of one case) and a liveness check for
 * another process (the owner of a lock file or a staging folder).
 */

/**
 * Runs tasks one at a time per key, in the order they were queued. A task starts once every task
 * queued before it for the same key has settled; a failure is returned to its own caller only and
 * never blocks the next task. Keys with nothing queued are forgotten.
 */
export class KeyedQueue<K = string> {
  /** Per key: settles (never rejects) when the last task queued for it has settled. */
  private readonly tails = new Map<K, Promise<void>>();

  /** Run `fn` after everything queued for `key`; resolves or rejects with its outcome. */
  run<T>(key: K, fn: () => T | Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const run = before.then(() => fn());
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return run;
  }

  /** Settles (never rejects) once everything queued for `key` so far has settled. */
  idle(key: K): Promise<void> {
    return this.tails.get(key) ?? Promise.resolve();
  }

  /** Settles (never rejects) once everything queued so far, for every key, has settled. */
  async idleAll(): Promise<void> {
    await Promise.all(this.tails.values());
  }

  /** Keys with a task queued or running. */
  get size(): number {
    return this.tails.size;
  }
}

/** Is a process with this id running (ours, or one we may not signal)? */
export function pidAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
