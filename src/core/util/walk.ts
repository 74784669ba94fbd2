import { promises as fs } from 'node:fs';
import path from 'node:path';

/** One file found under a dropped path; `name` is its path relative to the dropped folder, with '/' separators. */
export interface WalkEntry {
  name: string;
  absPath: string;
  size: number;
}

export interface WalkResult {
  files: WalkEntry[];
  /**
   * Things not taken, with why (links leaving the dropped folder, broken links, pipes and devices,
   * unreadable folders, missing paths); `name` as a file there would be named.
   */
  skipped: { path: string; name: string; reason: string }[];
  /** Set when a folder went past the walk's bounds (`WalkBounds`): what was not read, in plain words. */
  truncated?: string;
}

/**
 * How much of a folder one walk reads. A followed or dropped tree can be any size (a network
 * share, a link farm, a loop of bind mounts): past these, the rest is left unread and said so,
 * instead of memory growing with the tree.
 */
export interface WalkBounds {
  /** Files and folders seen in all (default `MAX_WALK_ENTRIES`). */
  maxEntries?: number;
  /** Folders inside folders (default `MAX_WALK_DEPTH`). */
  maxDepth?: number;
}

export const MAX_WALK_ENTRIES = 200_000;
export const MAX_WALK_DEPTH = 64;

const NOT_REGULAR = 'not a regular file (a pipe, socket or device)';
const JUNK_FILES = new Set(['thumbs.db', 'desktop.ini', 'ehthumbs.db', 'icon\r']);
const JUNK_DIRS = new Set(['__macosx', 'node_modules', '$recycle.bin', 'system volume information']);

/** Hidden and OS junk files: dot files, Thumbs.db, desktop.ini, Office lock files (~$…), editor backups. */
export function isJunk(name: string, isDir: boolean): boolean {
  const lower = name.toLowerCase();
  if (name.startsWith('.')) return true;
  if (isDir) return JUNK_DIRS.has(lower);
  return JUNK_FILES.has(lower) || name.startsWith('~$') || name.endsWith('~');
}

/**
 * Walk dropped files and folders. Folders are walked recursively in name order; hidden and junk
 * entries are skipped; symbolic links are followed only when they resolve inside the dropped
 * folder (a folder already visited, by device and inode, is not walked twice, so loops end), and
 * a walk stops at its bounds (`WalkBounds`), saying so in `truncated`. A folder listed
 * in `only` is not walked: just the files named there are taken (a followed folder's changed
 * files), each named as walking the folder would name it.
 */
export async function walkPaths(
  paths: string[],
  signal?: AbortSignal,
  only: Record<string, string[]> = {},
  bounds: WalkBounds = {},
): Promise<WalkResult> {
  const result: WalkResult = { files: [], skipped: [] };
  const walk: Walk = {
    out: result,
    signal,
    visited: new Set(),
    entries: 0,
    maxEntries: bounds.maxEntries ?? MAX_WALK_ENTRIES,
    maxDepth: bounds.maxDepth ?? MAX_WALK_DEPTH,
  };
  for (const p of paths) {
    signal?.throwIfAborted();
    const abs = path.resolve(p);
    let stat;
    try {
      stat = await fs.stat(abs);
    } catch {
      result.skipped.push({ path: abs, name: path.basename(abs), reason: 'not found' });
      continue;
    }
    if (stat.isDirectory()) {
      const root = await fs.realpath(abs);
      const named = only[abs];
      walk.visited.add(`${stat.dev}:${stat.ino}`);
      if (named) await takeNamed(abs, root, named, result, signal);
      else await walkDir(walk, abs, root, '', 0);
    } else if (stat.isFile()) {
      const base = path.basename(abs);
      if (isJunk(base, false)) continue;
      result.files.push({ name: base, absPath: abs, size: stat.size });
    } else {
      result.skipped.push({ path: abs, name: path.basename(abs), reason: NOT_REGULAR });
    }
  }
  return result;
}

function inside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * The files `names` of the folder `dir` (real path `root`), as walking it would give them: a name
 * gone since, one that leads out of the folder (a `..`, a link pointing outside) or through a
 * hidden or junk entry is not taken.
 */
async function takeNamed(
  dir: string,
  root: string,
  names: string[],
  out: WalkResult,
  signal?: AbortSignal,
): Promise<void> {
  for (const name of [...new Set(names)].sort()) {
    signal?.throwIfAborted();
    const parts = name.split('/');
    const full = path.join(dir, ...parts);
    const junk = parts.some((p, i) => p === '' || p === '.' || p === '..' || isJunk(p, i < parts.length - 1));
    if (junk) {
      out.skipped.push({ path: full, name, reason: 'not a file of the folder' });
      continue;
    }
    const real = await fs.realpath(full).catch(() => null);
    if (!real) {
      out.skipped.push({ path: full, name, reason: 'not found' });
      continue;
    }
    if (!inside(root, real)) {
      out.skipped.push({ path: full, name, reason: 'link pointing outside the dropped folder' });
      continue;
    }
    const st = await fs.stat(real).catch(() => null);
    if (st?.isFile()) out.files.push({ name, absPath: full, size: st.size });
    else out.skipped.push({ path: full, name, reason: st ? NOT_REGULAR : 'it vanished while the folder was read' });
  }
}

/** One walk's state: where results go, the folders seen (device and inode: a loop through links or bind mounts ends), and the bounds. */
interface Walk {
  out: WalkResult;
  signal?: AbortSignal;
  visited: Set<string>;
  entries: number;
  maxEntries: number;
  maxDepth: number;
}

async function walkDir(walk: Walk, dir: string, root: string, prefix: string, depth: number): Promise<void> {
  const { out, signal } = walk;
  signal?.throwIfAborted();
  if (walk.out.truncated) return;
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (err) {
    out.skipped.push({
      path: dir,
      name: prefix || path.basename(dir),
      reason: `folder could not be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (++walk.entries > walk.maxEntries) {
      const tooMany = `more than ${walk.maxEntries.toLocaleString('en-US')} files and folders; the rest was not read`;
      out.truncated = `it holds ${tooMany}`;
      out.skipped.push({ path: dir, name: prefix || path.basename(dir), reason: `the folder holds ${tooMany}` });
      return;
    }
    const full = path.join(dir, e.name);
    const name = prefix ? `${prefix}/${e.name}` : e.name;
    let isDir = e.isDirectory();
    let isFile = e.isFile();
    if (e.isSymbolicLink()) {
      let real;
      try {
        real = await fs.realpath(full);
      } catch {
        out.skipped.push({ path: full, name, reason: 'broken link (it points to nothing)' });
        continue;
      }
      if (!inside(root, real)) {
        out.skipped.push({ path: full, name, reason: 'link pointing outside the dropped folder' });
        continue;
      }
      const st = await fs.stat(real).catch(() => null);
      isDir = !!st?.isDirectory();
      isFile = !!st?.isFile();
    }
    if (isJunk(e.name, isDir)) continue;
    if (isDir) {
      const st = await fs.stat(full).catch(() => null);
      if (!st) continue;
      const key = `${st.dev}:${st.ino}`;
      if (walk.visited.has(key)) continue;
      walk.visited.add(key);
      if (depth + 1 > walk.maxDepth) {
        out.skipped.push({ path: full, name, reason: `folders nested more than ${walk.maxDepth} deep are not read` });
        continue;
      }
      await walkDir(walk, full, root, name, depth + 1);
      if (out.truncated) return;
    } else if (isFile) {
      const st = await fs.stat(full).catch(() => null);
      if (st) out.files.push({ name, absPath: full, size: st.size });
      else out.skipped.push({ path: full, name, reason: 'it vanished while the folder was read' });
    } else {
      out.skipped.push({ path: full, name, reason: NOT_REGULAR });
    }
  }
}
