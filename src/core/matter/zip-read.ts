/**
 * Reading a matter file's zip by its central directory, one entry at a time from disk, with yauzl
 * (zip64 included, so a matter past 4 GB or 65,535 files reads like any other). A streaming reader
 * finds the end of an entry by searching its data for a signature, which an original stored whole
 * (a Word file is itself a zip) can hold; the central directory gives each entry's exact place and
 * size instead. Only what an export writes is accepted: plain files, stored or deflated, no links,
 * no folders, no zip encryption, no archive spanning disks.
 */
import { promises as fs } from 'node:fs';
import { Readable, Transform } from 'node:stream';
import { type Entry, fromRandomAccessReaderPromise, RandomAccessReader, type ZipFile } from 'yauzl';
import { CasefileError } from '../../shared/errors';

export interface ZipEntry {
  /** The entry's path in the zip, as written (UTF-8). */
  name: string;
  entry: Entry;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const MADE_ON_UNIX = 3;

export const INCOMPLETE =
  'This matter file is incomplete: it ends before its list of contents (it was cut short while being copied or downloaded). Ask for a fresh copy.';
const DAMAGED = 'This matter file’s zip structure is damaged. Ask for a fresh copy.';
const refuse = (why: string): CasefileError => new CasefileError('invalid_input', why);

/** Reads of at most this many bytes are served from one larger block read ahead. */
const SMALL_READ = 64 * 1024;
const BLOCK = 1024 * 1024;
/** Bytes per chunk of an entry's data. */
const CHUNK = 256 * 1024;

/**
 * The file as yauzl reads it. Its central directory is two small reads per entry, and each entry's
 * local header one more: served from a block read ahead, a matter of many small files costs a few
 * system calls per megabyte instead of several per file.
 */
class BlockReader extends RandomAccessReader {
  private block = Buffer.alloc(0);
  private blockStart = 0;

  constructor(private readonly handle: fs.FileHandle) {
    super();
  }

  async readAt(buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
    const from = position - this.blockStart;
    if (from < 0 || from + length > this.block.length) {
      if (length > SMALL_READ) return (await this.handle.read(buffer, offset, length, position)).bytesRead;
      const block = Buffer.allocUnsafe(BLOCK);
      const { bytesRead } = await this.handle.read(block, 0, BLOCK, position);
      this.block = block.subarray(0, bytesRead);
      this.blockStart = position;
    }
    const at = position - this.blockStart;
    return this.block.copy(buffer, offset, at, Math.min(at + length, this.block.length));
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void {
    this.readAt(buffer, offset, length, position).then((n) => callback(null, n), callback);
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const reader = this;
    return Readable.from(
      (async function* () {
        for (let at = start; at < end; ) {
          const buffer = Buffer.allocUnsafe(Math.min(CHUNK, end - at));
          const n = await reader.readAt(buffer, 0, buffer.length, at);
          if (n === 0) throw new Error('the file ends inside this entry');
          at += n;
          yield buffer.subarray(0, n);
        }
      })(),
      { objectMode: false },
    );
  }

  override close(callback: (err: Error | null) => void): void {
    this.handle.close().then(() => callback(null), callback);
  }
}

/** One central-directory entry, refused if it is something an export never writes. */
function checked(entry: Entry): ZipEntry {
  // Names are read as UTF-8 without yauzl's own checks: import.ts refuses a path outside the case with its reason.
  const name = entry.fileNameRaw.toString('utf8');
  const mode = entry.externalFileAttributes >>> 16;
  if (entry.versionMadeBy >> 8 === MADE_ON_UNIX && mode !== 0 && (mode & S_IFMT) !== S_IFREG)
    throw refuse(
      `This matter file holds “${name}”, which is a link or a folder, not a file; it was not made by Casefile.`,
    );
  if (name.endsWith('/')) throw refuse(`This matter file holds a folder entry “${name}”; it was not made by Casefile.`);
  if (entry.generalPurposeBitFlag & 1)
    throw refuse('This matter file uses zip encryption, which Casefile does not write.');
  if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8)
    throw refuse(`This matter file packs “${name}” in a way Casefile does not write.`);
  return { name, entry };
}

/** A matter file's zip, open for reading its entries until `close`. */
export class MatterZip {
  private constructor(
    private readonly zip: ZipFile,
    readonly entries: ZipEntry[],
  ) {}

  /** Open the zip at `file` and read its central directory. */
  static async open(file: string): Promise<MatterZip> {
    const handle = await fs.open(file, 'r');
    let zip: ZipFile;
    try {
      const { size } = await handle.stat();
      const options = { lazyEntries: true, decodeStrings: false, autoClose: false };
      zip = await fromRandomAccessReaderPromise(new BlockReader(handle), size, options);
    } catch (err) {
      await handle.close();
      throw refuse(/signature not found/i.test((err as Error).message) ? INCOMPLETE : DAMAGED);
    }
    const entries: ZipEntry[] = [];
    try {
      for await (const entry of zip.eachEntry()) entries.push(checked(entry));
    } catch (err) {
      zip.close();
      throw err instanceof CasefileError ? err : refuse(DAMAGED);
    }
    return new MatterZip(zip, entries);
  }

  /** The entry's bytes as a stream, inflated, and stopped once it would give more than `limit` bytes. */
  async stream(e: ZipEntry, limit: number): Promise<Readable> {
    const raw = await this.zip.openReadStreamPromise(e.entry).catch(() => {
      throw refuse(`This matter file’s entry for “${e.name}” is damaged. Ask for a fresh copy.`);
    });
    let given = 0;
    const cap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        given += chunk.length;
        if (given > limit) done(refuse(`“${e.name}” in this matter file is larger than its list of contents says.`));
        else done(null, chunk);
      },
    });
    raw.on('error', (err: Error) => cap.destroy(err));
    // Stopped early (too large, or its reader failed): yauzl's stream is unpiped before it is destroyed.
    cap.on('close', () => {
      if (raw.readableEnded) return;
      raw.unpipe(cap);
      raw.destroy();
    });
    return raw.pipe(cap);
  }

  close(): void {
    this.zip.close();
  }
}
