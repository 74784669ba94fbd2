import { readFileSync } from 'node:fs';

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
