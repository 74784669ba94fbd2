import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { KeyedQueue, pidAlive } from '../../src/core/util/concurrency';

/** A promise resolved (or rejected) from outside. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

describe('KeyedQueue: one task at a time per key', () => {
  it('runs tasks of one key in order, each after the previous has settled', async () => {
    const q = new KeyedQueue<string>();
    const log: string[] = [];
    const first = deferred();
    const a = q.run('k', async () => {
      log.push('a start');
      await first.promise;
      log.push('a end');
      return 'A';
    });
    const b = q.run('k', () => {
      log.push('b');
      return 'B';
    });
    await tick();
    expect(log).toEqual(['a start']);
    first.resolve();
    expect(await a).toBe('A');
    expect(await b).toBe('B');
    expect(log).toEqual(['a start', 'a end', 'b']);
  });

  it('runs tasks of different keys at the same time', async () => {
    const q = new KeyedQueue<string>();
    const hold = deferred();
    const log: string[] = [];
    const a = q.run('one', async () => {
      log.push('one');
      await hold.promise;
    });
    const b = q.run('two', async () => {
      log.push('two');
    });
    await b;
    expect(log).toEqual(['one', 'two']);
    hold.resolve();
    await a;
  });

  it('a failure goes to its own caller only and does not block the next task', async () => {
    const q = new KeyedQueue<string>();
    const failing = q.run('k', async () => {
      throw new Error('boom');
    });
    const syncThrow = q.run('k', () => {
      throw new Error('sync boom');
    });
    const next = q.run('k', async () => 42);
    await expect(failing).rejects.toThrow('boom');
    await expect(syncThrow).rejects.toThrow('sync boom');
    expect(await next).toBe(42);
  });

  it('a task does not start before the one queued before it, even when that one fails late', async () => {
    const q = new KeyedQueue<string>();
    const gate = deferred();
    let secondStarted = false;
    const first = q.run('k', async () => {
      await gate.promise;
    });
    const second = q.run('k', () => {
      secondStarted = true;
    });
    await tick();
    expect(secondStarted).toBe(false);
    gate.reject(new Error('late'));
    await expect(first).rejects.toThrow('late');
    await second;
    expect(secondStarted).toBe(true);
  });

  it('idle and idleAll wait for what is queued and never reject; idle keys are forgotten', async () => {
    const q = new KeyedQueue<string>();
    expect(q.size).toBe(0);
    await q.idle('nothing');
    const gate = deferred();
    let done = false;
    const t = q.run('k', async () => {
      await gate.promise;
      done = true;
      throw new Error('fails');
    });
    t.catch(() => {});
    const other = q.run('j', async () => 'j');
    expect(q.size).toBe(2);
    let idle = false;
    const waiting = q.idle('k').then(() => (idle = true));
    await tick();
    expect(idle).toBe(false);
    gate.resolve();
    await waiting;
    expect(done).toBe(true);
    await other;
    await q.idleAll();
    await tick();
    expect(q.size).toBe(0);
  });

  it('idleAll waits for every key', async () => {
    const q = new KeyedQueue<number>();
    const gates = [deferred(), deferred()];
    const finished: number[] = [];
    gates.forEach(
      (g, i) =>
        void q.run(i, async () => {
          await g.promise;
          finished.push(i);
        }),
    );
    let all = false;
    const waiting = q.idleAll().then(() => (all = true));
    gates[1]!.resolve();
    await tick();
    expect(all).toBe(false);
    gates[0]!.resolve();
    await waiting;
    expect(finished.sort()).toEqual([0, 1]);
  });
});

describe('pidAlive', () => {
  it('is true for this process and a running child, false once the child is gone', async () => {
    expect(pidAlive(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    await new Promise((r) => child.once('spawn', r));
    const pid = child.pid!;
    expect(pidAlive(pid)).toBe(true);
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    expect(pidAlive(pid)).toBe(false);
  });
});
