/**
 * Writing a matter file's zip with yazl, one entry after another, each file opened only when its
 * turn comes, so a large case is never held in memory. yazl writes zip64 records only where an
 * entry's size, an offset or the number of entries needs them (past 4 GB or 65,535 entries); a
 * smaller matter is a plain zip, as every earlier export was.
 */
import { Readable } from 'node:stream';
import { ZipFile } from 'yazl';

/** One entry: its name in the zip, whether it is deflated, and its bytes, opened when it is written. */
export interface ZipSource {
  name: string;
  deflate: boolean;
  open(): Readable;
}

/**
 * Write `sources` in order, then `last`, whose bytes are made once every source is written (the
 * manifest, which lists what they held), handing the zip's bytes to `write` as they come. A source
 * that fails to read fails the whole write.
 */
export async function writeZip(
  sources: Iterable<ZipSource>,
  last: { name: string; data: () => Uint8Array },
  write: (chunk: Buffer) => Promise<void>,
): Promise<void> {
  const zip = new ZipFile();
  // A PassThrough, which @types/yazl narrows to NodeJS.ReadableStream.
  const output = zip.outputStream as Readable;
  let reading: Readable | null = null;
  const fail = (err: Error): void => {
    output.destroy(err);
  };
  zip.on('error', fail);
  const lazily = (open: () => Readable) => (cb: (err: null, stream: Readable) => void) => {
    try {
      reading = open();
    } catch (err) {
      return fail(err as Error);
    }
    reading.once('error', fail);
    cb(null, reading);
  };
  for (const source of sources) zip.addReadStreamLazy(source.name, { compress: source.deflate }, lazily(source.open));
  // yazl starts an entry only once the one before it is written, so `last` sees every source read.
  zip.addReadStreamLazy(
    last.name,
    { compress: true },
    lazily(() => Readable.from([Buffer.from(last.data())])),
  );
  zip.end();
  try {
    for await (const chunk of output) await write(chunk as Buffer);
  } finally {
    // A write that failed leaves the file being read open otherwise.
    (reading as Readable | null)?.destroy();
  }
}
