import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of a Linux /proc stat file (`/proc/PID/stat`, `/proc/self/task/TID/stat`) after the
 * command name, which may hold spaces and parentheses: [0] state, [1] parent pid, [11] utime,
 * [12] stime, [16] nice, [21] resident pages. Null when the process or thread is gone.
 */
export function procStat(file: string): string[] | null {
  try {
    const stat = readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The largest resident set among the processes under `pid` (its readers, their children), in bytes (Linux /proc). */
export function largestDescendantRss(pid: number): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const stat = procStat(`/proc/${e}/stat`);
    if (!stat) continue;
    children.set(Number(stat[1]), [...(children.get(Number(stat[1])) ?? []), Number(e)]);
    rss.set(Number(e), Number(stat[21]) * 4096);
  }
  let most = 0;
  const walk = (p: number): void => {
    for (const c of children.get(p) ?? []) {
      most = Math.max(most, rss.get(c) ?? 0);
      walk(c);
    }
  };
  walk(pid);
  return most;
}
