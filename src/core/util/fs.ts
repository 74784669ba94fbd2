import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { pidAlive } from './concurrency';

/** Suffix marking an in-flight atomic write; leftovers from a crash are ignored and cleaned. */
export const TEMP_MARK = '.tmp-';

/**
 * Write a file atomically: write a sibling temp file, fsync it, rename it over the target,
 * then fsync the directory. A crash at any point leaves either the old or the new content.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `${path.basename(file)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
  // 'wx': the temp name is new; an existing file or link of that name is an error, never followed.
  const handle = await fs.open(tmp, 'wx');
  try {
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(tmp, file);
  } catch (err) {
    // A failed write (a full disk) leaves no half-written temp file beside the target.
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

/**
 * Write a file the user named (an export): atomically, so a failure or a kill mid-write keeps the
 * previous file whole. A link is written through (its target replaced atomically), as a plain write
 * would; a target that exists but is not a regular file (`/dev/stdout`, a pipe) is written directly,
 * since nothing may be renamed over it.
 */
export async function writeUserFile(file: string, data: string | Uint8Array): Promise<void> {
  const st = await fs.stat(file).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (st && !st.isFile()) {
    await fs.writeFile(file, data);
    return;
  }
  await writeFileAtomic(st ? await fs.realpath(file) : file, data);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A text file's contents, or undefined when there is no such file (any other error is thrown). */
export async function readTextIfExists(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Read and parse JSON; `undefined` when the file does not exist. */
export async function readJson(file: string): Promise<unknown> {
  const text = await readTextIfExists(file);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

async function syncDir(dir: string): Promise<void> {
  // Directory fsync makes the rename durable on POSIX; Windows cannot open directories.
  if (process.platform === 'win32') return;
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The process that wrote a temp file (its name carries the pid) is still running: its write may be in flight. */
function writerAlive(name: string): boolean {
  const pid = Number(new RegExp(`${TEMP_MARK.replace('.', '\\.')}(\\d+)-`).exec(name)?.[1]);
  return Number.isInteger(pid) && pid > 0 && pidAlive(pid);
}

/**
 * Remove temp files left behind by a crashed atomic write in `dir`. A temp file of a process still
 * running (this one, or the CLI beside the app) is a write in flight and is left alone: removing
 * it would make that write fail.
 */
export async function cleanTempFiles(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names
      .filter((n) => n.includes(TEMP_MARK) && !writerAlive(n))
      .map((n) => fs.rm(path.join(dir, n), { force: true, recursive: true })),
  );
}
