import { constants as bufferConstants } from 'node:buffer';
import { inflateRawSync } from 'node:zlib';
import { formatBytes, raiseHint, type IngestLimits, type ChildFile } from '../domain/index';
import { LoadError } from './loaders';

/**
 * Check a DOCX (a ZIP of XML parts) before mammoth unpacks it whole in memory: every part is
 * inflated here with a hard output cap, so a zip bomb, a part that expands hundreds of times, or
 * XML of millions of elements ends as a failed file with a plain reason instead of gigabytes of
 * memory. Sizes are measured, not taken from the ZIP's headers (which a hostile file can fake).
 */
export function checkZip(
  bytes: Uint8Array,
  limits: Pick<IngestLimits, 'maxZipBytes' | 'maxZipRatio' | 'maxXmlElements'>,
  what = 'Word file',
): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(buf)?.entries;
  if (!entries) return; // not a readable ZIP: mammoth says what is wrong with it
  let total = 0;
  let elements = 0;
  for (const e of entries) {
    if (e.method !== 0 && e.method !== 8) continue;
    const cap = Math.min(limits.maxZipBytes - total, bufferConstants.MAX_LENGTH - 1);
    const out = entryBytes(buf, e, cap);
    if (out === null) continue; // damaged part: mammoth reports it
    const size = out === 'over' ? cap + 1 : out.length;
    total += size;
    if (total > limits.maxZipBytes) {
      throw new LoadError(
        'failed',
        `damaged or hostile ${what} (its parts expand beyond ${formatBytes(limits.maxZipBytes)}).${raiseHint('maxZipBytes')}`,
      );
    }
    const packed = Math.max(1, Math.min(e.compressed, buf.length));
    if (size > 10 * 1024 * 1024 && size / packed > limits.maxZipRatio) {
      throw new LoadError(
        'failed',
        `damaged or hostile ${what} (a part expands ${Math.round(size / packed)} times, a zip bomb).${raiseHint('maxZipRatio')}`,
      );
    }
    if (out !== 'over' && /\.(xml|rels)$/i.test(e.name)) {
      elements += countElements(out);
      if (elements > limits.maxXmlElements) {
        throw new LoadError(
          'failed',
          `the ${what} is too large to read (more than ${limits.maxXmlElements.toLocaleString('en-US')} XML elements): split it.${raiseHint('maxXmlElements')}`,
        );
      }
    }
  }
}

interface ZipEntry {
  name: string;
  method: number;
  compressed: number;
  offset: number;
  /** General purpose flag bit 0: the entry is encrypted. */
  encrypted: boolean;
}

/** A ZIP's table of contents: its entries (the first `keep`), how many it lists, and how many its end record says it holds. */
interface Directory {
  entries: ZipEntry[];
  listed: number;
  claimed: number;
}

const END = 0x06054b50;
const END64 = 0x06064b50;
const END64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const MAX32 = 0xffffffff;

/** A 64-bit field as a number (past 2^53: the largest safe number, which no buffer reaches). */
function u64(buf: Buffer, at: number): number {
  return Number(buf.readBigUInt64LE(at) & 0x1fffffffffffffn);
}

/**
 * The ZIP's central directory (null when there is none to read). Every record the directory holds
 * is counted, up to its end record, whatever count the end record gives (it may lie); a ZIP64 end
 * record gives the real count and place of an archive of 65,535 entries or more. Only the first
 * `keep` entries are kept (a hostile directory of millions of records is counted, not held).
 */
function centralDirectory(buf: Buffer, keep = Infinity): Directory | null {
  // End of central directory: signature within the last 64 KB + 22 bytes (a trailing comment).
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === END) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  let claimed = buf.readUInt16LE(eocd + 10);
  let size = buf.readUInt32LE(eocd + 12);
  let start = buf.readUInt32LE(eocd + 16);
  let end = eocd;
  const locator = eocd - 20;
  if (locator >= 0 && buf.readUInt32LE(locator) === END64_LOCATOR) {
    const at = u64(buf, locator + 8);
    if (at + 56 <= locator && buf.readUInt32LE(at) === END64) {
      claimed = u64(buf, at + 32);
      size = u64(buf, at + 40);
      start = u64(buf, at + 48);
      end = at;
    }
  }
  // An archive with bytes before it (a self-extracting program): its offsets count from the archive's start.
  let shift = 0;
  if (
    !(start + 4 <= end && buf.readUInt32LE(start) === CENTRAL) &&
    end - size >= 0 &&
    end - size + 4 <= end &&
    buf.readUInt32LE(end - size) === CENTRAL
  ) {
    shift = end - size - start;
    start = end - size;
  }
  const entries: ZipEntry[] = [];
  let listed = 0;
  for (let p = start; p + 46 <= end && buf.readUInt32LE(p) === CENTRAL; listed++) {
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    if (listed < keep) {
      const e: ZipEntry = {
        method: buf.readUInt16LE(p + 10),
        encrypted: (buf.readUInt16LE(p + 8) & 1) === 1,
        compressed: buf.readUInt32LE(p + 20),
        offset: buf.readUInt32LE(p + 42),
        name: buf.toString('utf8', p + 46, Math.min(end, p + 46 + nameLen)),
      };
      zip64Fields(buf, e, buf.readUInt32LE(p + 24), p + 46 + nameLen, Math.min(end, p + 46 + nameLen + extraLen));
      e.offset += shift;
      entries.push(e);
    }
    p += 46 + nameLen + extraLen + buf.readUInt16LE(p + 32);
  }
  return { entries, listed, claimed };
}

/** Sizes and offset over 4 GB are in the entry's ZIP64 extra field (id 1), in this order, each only where its 32-bit field is full. */
function zip64Fields(buf: Buffer, e: ZipEntry, uncompressed: number, from: number, to: number): void {
  for (let q = from; q + 4 <= to; q += 4 + buf.readUInt16LE(q + 2)) {
    if (buf.readUInt16LE(q) !== 1) continue;
    const fieldEnd = Math.min(to, q + 4 + buf.readUInt16LE(q + 2));
    let r = q + 4;
    const next = () => (r + 8 <= fieldEnd ? u64(buf, (r += 8) - 8) : undefined);
    if (uncompressed === MAX32) next();
    if (e.compressed === MAX32) e.compressed = next() ?? e.compressed;
    if (e.offset === MAX32) e.offset = next() ?? e.offset;
    return;
  }
}

/** Where an entry's data lies in the archive (its local header to its last compressed byte); null when its local header is not there. */
function dataRange(buf: Buffer, e: ZipEntry): { start: number; end: number } | null {
  if (e.offset + 30 > buf.length || buf.readUInt32LE(e.offset) !== LOCAL) return null;
  return {
    start: e.offset,
    end: e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28) + e.compressed,
  };
}

/**
 * How many entries share their bytes with another entry: records that point at the same local
 * header, or data that runs into the next entry's. An archiver writes each entry once; overlapping
 * entries are how a small ZIP is made to unpack the same bytes thousands of times (a zip bomb).
 */
function overlapping(buf: Buffer, entries: ZipEntry[]): number {
  const ranges = entries
    .map((e) => dataRange(buf, e))
    .filter((r) => r !== null)
    .sort((a, b) => a.start - b.start || a.end - b.end);
  let count = 0;
  let reach = -1;
  for (const r of ranges) {
    if (r.start < reach) count++;
    reach = Math.max(reach, r.end);
  }
  return count;
}

/** Start tags and empty-element tags (`<w:p>`, `<w:br/>`), not end tags, declarations or comments. */
function countElements(xml: Buffer): number {
  let n = 0;
  let i = xml.indexOf(0x3c);
  while (i >= 0) {
    const next = xml[i + 1];
    if (next !== 0x2f && next !== 0x3f && next !== 0x21) n++;
    i = xml.indexOf(0x3c, i + 1);
  }
  return n;
}

/** An entry's bytes (stored or deflated), inflated with a hard cap of `cap` bytes: 'over' past it, null when damaged. Sizes are measured, not taken from the headers. */
function entryBytes(buf: Buffer, e: ZipEntry, cap: number): Buffer | 'over' | null {
  const range = dataRange(buf, e);
  if (!range) return null;
  const data = buf.subarray(range.end - e.compressed, Math.min(buf.length, range.end));
  if (e.method === 0) return data.length > cap ? 'over' : data;
  try {
    const out = inflateRawSync(data, { maxOutputLength: Math.max(1, Math.min(cap + 1, bufferConstants.MAX_LENGTH)) });
    return out.length > cap ? 'over' : out;
  } catch (err) {
    return err instanceof RangeError ? 'over' : null;
  }
}

/** A ZIP archive opened for its files: what its table of contents says beyond them, and the files one at a time. */
export interface OpenedArchive {
  /** An end record that gives another count than the table of contents holds, in plain words; '' when none. */
  note: string;
  entries: Generator<ChildFile>;
}

/**
 * The files of a ZIP archive, each its own child file (its inner path kept), bounded: too many
 * entries or overlapping ones (a zip bomb) fail the archive; an entry that is encrypted, unreadable,
 * too large or expands past `maxZipRatio` is listed with the reason instead of its bytes, and past
 * `maxZipBytes` the rest are listed as not unpacked. One entry at a time, so a caller that stores
 * each as it comes holds one entry's bytes, not the archive's.
 */
export function openArchive(
  bytes: Uint8Array,
  limits: Pick<
    IngestLimits,
    'maxZipBytes' | 'maxZipRatio' | 'maxArchiveEntries' | 'maxFileBytes' | 'maxInnerFiles' | 'maxInnerBytes'
  >,
): OpenedArchive {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // Folders and junk are kept too (up to twice the limit): a count of files that passes the limit is a count, not a list to hold.
  const dir = centralDirectory(buf, 2 * limits.maxArchiveEntries + 1000);
  if (!dir)
    throw new LoadError('failed', 'damaged ZIP archive (its table of contents is missing) — ask for a new copy');
  const files = dir.entries.filter((e) => !e.name.endsWith('/') && !isJunk(e.name));
  const count = dir.listed > dir.entries.length ? dir.listed - (dir.entries.length - files.length) : files.length;
  if (count > limits.maxArchiveEntries) {
    throw new LoadError(
      'failed',
      `the archive holds ${count.toLocaleString('en-US')} files, more than ${limits.maxArchiveEntries.toLocaleString('en-US')}: unpack it and add the folders you need.${raiseHint('maxArchiveEntries')}`,
    );
  }
  const overlaps = overlapping(buf, dir.entries);
  if (overlaps) {
    const which =
      overlaps === 1
        ? 'one of its entries shares its bytes with another'
        : `${overlaps.toLocaleString('en-US')} of its entries share their bytes with others`;
    throw new LoadError(
      'failed',
      `damaged or hostile ZIP archive (${which}, the trick of a zip bomb) — ask for a new copy`,
    );
  }
  return { note: countNote(dir), entries: unpack(buf, files, limits) };
}

/** An end record's count that is not the table of contents': said, not passed over. */
function countNote(dir: Directory): string {
  const n = (x: number) => `${x.toLocaleString('en-US')} ${x === 1 ? 'entry' : 'entries'}`;
  if (dir.listed > dir.claimed)
    return `the archive's end record says it holds ${n(dir.claimed)}, but its table of contents lists ${n(dir.listed)}: all of them were read — the archive may have been altered`;
  if (dir.listed < dir.claimed)
    return `the archive's end record says it holds ${n(dir.claimed)}, but only ${n(dir.listed)} could be found: it may be damaged or cut short — ask for a new copy`;
  return '';
}

/**
 * The entries, unpacked one at a time. Past what is left of the caps on what the dropped file
 * expands to (the reader is given what is left, `maxInnerFiles` and `maxInnerBytes`), entries are
 * listed without being unpacked: the app would not add them.
 */
function* unpack(
  buf: Buffer,
  files: ZipEntry[],
  limits: Pick<IngestLimits, 'maxZipBytes' | 'maxZipRatio' | 'maxFileBytes' | 'maxInnerFiles' | 'maxInnerBytes'>,
): Generator<ChildFile> {
  let total = 0;
  let taken = 0;
  for (const e of files) {
    if (taken >= limits.maxInnerFiles || total >= limits.maxInnerBytes) {
      yield {
        name: entryName(e),
        reason:
          'left out: the file it was added in holds more files than one added file may bring in, counting the files inside the files it holds',
      };
      continue;
    }
    const child = entryFile(buf, e, limits, limits.maxZipBytes - total);
    total += child.bytes?.byteLength ?? 0;
    taken++;
    yield child;
  }
}

/** An entry's path inside the archive, without the parts that could lead out of it. */
function entryName(e: ZipEntry): string {
  return (
    e.name
      .replace(/\\/g, '/')
      .split('/')
      .filter((p) => p && p !== '.' && p !== '..')
      .join('/') || 'unnamed'
  );
}

/** One entry as a child file: its bytes, or why it is not unpacked (`left`: bytes the archive may still unpack). */
function entryFile(
  buf: Buffer,
  e: ZipEntry,
  limits: Pick<IngestLimits, 'maxZipBytes' | 'maxZipRatio' | 'maxFileBytes'>,
  left: number,
): ChildFile {
  const name = entryName(e);
  const overTotal = {
    name,
    reason: `not unpacked: the archive's files add up to more than ${formatBytes(limits.maxZipBytes)}.${raiseHint('maxZipBytes')}`,
  };
  if (e.encrypted)
    return { name, reason: 'encrypted inside the archive (it needs a password) — ask for an unencrypted copy' };
  if (e.method !== 0 && e.method !== 8)
    return {
      name,
      reason: `compressed in a way Casefile cannot unpack (method ${e.method}) — unpack the archive with your archive tool and add the file`,
    };
  if (left <= 0) return overTotal;
  const cap = Math.min(left, limits.maxFileBytes);
  const data = entryBytes(buf, e, cap);
  if (data === null)
    return { name, reason: 'damaged inside the archive, it could not be unpacked — ask for a new copy' };
  if (data === 'over')
    return left < limits.maxFileBytes
      ? overTotal
      : { name, reason: `too large to unpack (over ${formatBytes(limits.maxFileBytes)}).${raiseHint('maxFileBytes')}` };
  if (data.length > 10 * 1024 * 1024 && data.length / Math.max(1, e.compressed) > limits.maxZipRatio) {
    return {
      name,
      reason: `damaged or hostile (it expands ${Math.round(data.length / Math.max(1, e.compressed))} times, a zip bomb).${raiseHint('maxZipRatio')}`,
    };
  }
  return { name, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** macOS resource forks and desktop files that archivers add: not documents. */
function isJunk(name: string): boolean {
  return /(^|\/)__MACOSX\//.test(name) || /(^|\/)(\.DS_Store|Thumbs\.db|desktop\.ini)$/i.test(name);
}
