import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * LanceDB builds its vector and full-text indexes through folders it makes in the system temp
 * folder with Rust's `tempfile` (".tmp" and six letters or digits). An index build keeps its
 * shuffle files there, and a process killed or timed out mid-build (or an IVF build that ends
 * normally) leaves them behind. This sweeps those, at the start of a process that opens LanceDB.
 */
const RUST_TEMP_DIR = /^\.tmp[A-Za-z0-9]{6}$/;
/** The files LanceDB's index builders write there, by name. */
const LANCE_TEMP_FILE = /^(shuffle_(data|offsets)|spill_state)\.(lance|spill)$/;
/** A folder nothing has written to for this long is no longer being built. */
export const LANCE_TEMP_STALE_MS = 60 * 60 * 1000;

export interface LanceTempSweep {
  /** The temp folder (default: the system's, where LanceDB writes). */
  dir?: string;
  now?: number;
  staleMs?: number;
  /** Of `folders`, those a running process has a file open in (default: read from /proc on Linux). */
  inUse?: (folders: string[]) => Promise<Set<string>>;
}

/**
 * Remove LanceDB's stale temp folders; the folders removed. Only folders that are certainly
 * LanceDB's and unused go: this user's own, not a link, holding only LanceDB's index-build files,
 * none written within `staleMs`, none open in a running process. An empty ".tmp…" folder is kept:
 * nothing tells it from another program's (or a running Casefile's) temp folder waiting for its
 * next use, and it holds no space.
 */
export async function sweepLanceTemp(options: LanceTempSweep = {}): Promise<string[]> {
  const dir = await fs.realpath(options.dir ?? os.tmpdir()).catch(() => null);
  if (!dir) return [];
  const cutoff = (options.now ?? Date.now()) - (options.staleMs ?? LANCE_TEMP_STALE_MS);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const candidates: string[] = [];
  for (const name of names) {
    if (RUST_TEMP_DIR.test(name) && (await isStaleLanceTemp(path.join(dir, name), cutoff)))
      candidates.push(path.join(dir, name));
  }
  if (!candidates.length) return [];
  const open = await (options.inUse ?? foldersInUse)(candidates);
  const removed: string[] = [];
  for (const folder of candidates.filter((f) => !open.has(f))) {
    const files = await fs.readdir(folder).catch(() => [] as string[]);
    await Promise.all(
      files.filter((f) => LANCE_TEMP_FILE.test(f)).map((f) => fs.rm(path.join(folder, f), { force: true })),
    );
    // rmdir, not a recursive remove: anything put there meanwhile keeps the folder.
    if (
      await fs.rmdir(folder).then(
        () => true,
        () => false,
      )
    )
      removed.push(folder);
  }
  return removed;
}

async function isStaleLanceTemp(folder: string, cutoff: number): Promise<boolean> {
  const st = await fs.lstat(folder).catch(() => null);
  const uid = process.getuid?.();
  if (!st?.isDirectory() || (uid !== undefined && st.uid !== uid) || st.mtimeMs > cutoff) return false;
  const entries = await fs.readdir(folder, { withFileTypes: true }).catch(() => null);
  if (!entries?.length) return false;
  for (const entry of entries) {
    if (!entry.isFile() || !LANCE_TEMP_FILE.test(entry.name)) return false;
    const file = await fs.lstat(path.join(folder, entry.name)).catch(() => null);
    if (!file || file.mtimeMs > cutoff) return false;
  }
  return true;
}

/**
 * Of `folders`, those a process has a file open in, from the open files of every process this
 * user may read (/proc/<pid>/fd, Linux). Elsewhere none is known: Windows refuses to delete an
 * open file, and elsewhere the age alone decides.
 */
async function foldersInUse(folders: string[]): Promise<Set<string>> {
  const inUse = new Set<string>();
  if (process.platform !== 'linux') return inUse;
  const pids = (await fs.readdir('/proc').catch(() => [] as string[])).filter((n) => /^\d+$/.test(n));
  for (const pid of pids) {
    const fds = await fs.readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
      const folder = target && folders.find((f) => target.startsWith(`${f}${path.sep}`));
      if (folder) inUse.add(folder);
    }
  }
  return inUse;
}
