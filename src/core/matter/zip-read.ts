/**
 * Reading a matter file's zip by its central directory, one entry at a time from disk. fflate's
 * streaming reader finds the end of an entry by searching its data for a signature, which an
 * original stored whole (a Word file is itself a zip) can hold; the central directory gives each
 * entry's exact place and size instead. Only what an export writes is accepted: plain files,
 * stored or deflated, no links, no folders, no archive spanning disks.
 */
import { createReadStream, promises as fs } from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';
import { CasefileError } from '../../shared/errors';

export interface ZipEntry {
  name: string;
  method: 0 | 8;
  compressedSize: number;
  size: number;
  /** Where the entry's data starts in the file. */
  dataStart: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

export const INCOMPLETE =
  'This matter file is incomplete: it ends before its list of contents (it was cut short while being copied or downloaded). Ask for a fresh copy.';
const refuse = (why: string): CasefileError => new CasefileError('invalid_input', why);

async function readAt(handle: fs.FileHandle, position: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await handle.read(buf, 0, length, position);
  return buf.subarray(0, bytesRead);
}

/** The end-of-directory record: the directory's offset and size, found at the very end of the file. */
async function endRecord(
  handle: fs.FileHandle,
  size: number,
): Promise<{ offset: number; bytes: number; count: number }> {
  const tail = await readAt(handle, Math.max(0, size - 22 - 0xffff), Math.min(size, 22 + 0xffff));
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD) continue;
    if (i + 22 + tail.readUInt16LE(i + 20) !== tail.length) continue;
    const at = size - tail.length + i;
    const count = tail.readUInt16LE(i + 10);
    const bytes = tail.readUInt32LE(i + 12);
    const offset = tail.readUInt32LE(i + 16);
    if (tail.readUInt16LE(i + 4) !== 0 || tail.readUInt16LE(i + 8) !== count || offset + bytes !== at)
      throw refuse('This matter file’s zip structure is damaged. Ask for a fresh copy.');
    return { offset, bytes, count };
  }
  throw refuse(INCOMPLETE);
}

/** One central-directory record as an entry, refusing what an export never writes. */
function entryAt(dir: Buffer, at: number): { entry: Omit<ZipEntry, 'dataStart'> & { local: number }; next: number } {
  if (at + 46 > dir.length || dir.readUInt32LE(at) !== CENTRAL)
    throw refuse('This matter file’s zip structure is damaged. Ask for a fresh copy.');
  const flags = dir.readUInt16LE(at + 8);
  const method = dir.readUInt16LE(at + 10);
  const nameLength = dir.readUInt16LE(at + 28);
  const next = at + 46 + nameLength + dir.readUInt16LE(at + 30) + dir.readUInt16LE(at + 32);
  const name = dir.subarray(at + 46, at + 46 + nameLength).toString('utf8');
  const madeOnUnix = dir[at + 5] === 3;
  const mode = dir.readUInt32LE(at + 38) >>> 16;
  if (madeOnUnix && mode !== 0 && (mode & S_IFMT) !== S_IFREG)
    throw refuse(
      `This matter file holds “${name}”, which is a link or a folder, not a file; it was not made by Casefile.`,
    );
  if (name.endsWith('/')) throw refuse(`This matter file holds a folder entry “${name}”; it was not made by Casefile.`);
  if (flags & 1) throw refuse('This matter file uses zip encryption, which Casefile does not write.');
  if (method !== 0 && method !== 8) throw refuse(`This matter file packs “${name}” in a way Casefile does not write.`);
  const entry = {
    name,
    method: method as 0 | 8,
    compressedSize: dir.readUInt32LE(at + 20),
    size: dir.readUInt32LE(at + 24),
    local: dir.readUInt32LE(at + 42),
  };
  return { entry, next };
}

/** Every entry of the zip at `file`, each checked to lie within the file before its directory. */
export async function readZipEntries(file: string): Promise<ZipEntry[]> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    const end = await endRecord(handle, size);
    const dir = await readAt(handle, end.offset, end.bytes);
    const entries: ZipEntry[] = [];
    let at = 0;
    for (let i = 0; i < end.count; i++) {
      const { entry, next } = entryAt(dir, at);
      at = next;
      const local = await readAt(handle, entry.local, 30);
      if (local.length < 30 || local.readUInt32LE(0) !== LOCAL)
        throw refuse(`This matter file’s entry for “${entry.name}” is damaged. Ask for a fresh copy.`);
      const dataStart = entry.local + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
      if (dataStart + entry.compressedSize > end.offset)
        throw refuse(`This matter file’s entry for “${entry.name}” is damaged. Ask for a fresh copy.`);
      const { local: _, ...rest } = entry;
      entries.push({ ...rest, dataStart });
    }
    if (at !== dir.length) throw refuse('This matter file’s zip structure is damaged. Ask for a fresh copy.');
    return entries;
  } finally {
    await handle.close();
  }
}

/** The entry's bytes as a stream, inflated, and stopped once it would give more than `limit` bytes. */
export function entryStream(file: string, entry: ZipEntry, limit: number): Readable {
  const raw = createReadStream(file, {
    start: entry.dataStart,
    end: entry.dataStart + entry.compressedSize - 1,
  });
  let given = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      given += chunk.length;
      if (given > limit) done(refuse(`“${entry.name}” in this matter file is larger than its list of contents says.`));
      else done(null, chunk);
    },
  });
  if (entry.compressedSize === 0) {
    raw.destroy();
    cap.end();
    return cap;
  }
  const inflated = entry.method === 8 ? raw.pipe(createInflateRaw()) : raw;
  inflated.on('error', (err: Error) => cap.destroy(err));
  raw.on('error', (err) => cap.destroy(err));
  return inflated.pipe(cap);
}
