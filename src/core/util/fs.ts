import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Suffix marking an in-flight atomic write; leftovers from a crash are ignored and cleaned. */
export const TEMP_MARK = '.tmp-';

/**
 * Write a file atomically: write a sibling temp file, fsync it, rename it over the target,
 * then fsync the directory. A crash at any point leaves either the old or the new content.
 */
export async function writeFileAtomic(file: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(file);
  const tmp = path.join(dir, `${path.basename(file)}${TEMP_MARK}${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await fs.open(tmp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

export async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  await writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** Read and parse JSON; `undefined` when the file does not exist. */
export async function readJson(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  return JSON.parse(text) as unknown;
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

/** Remove temp files left behind by a crashed atomic write in `dir`. */
export async function cleanTempFiles(dir: string): Promise<void> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch {
    return;
  }
  await Promise.all(
    names.filter((n) => n.includes(TEMP_MARK)).map((n) => fs.rm(path.join(dir, n), { force: true, recursive: true })),
  );
}
