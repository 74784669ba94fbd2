import { constants as bufferConstants } from 'node:buffer';
import { inflateRawSync } from 'node:zlib';
import { formatBytes, raiseHint, type IngestLimits } from './limits';
import { LoadError } from './loaders';
import type { ChildFile } from './types';

/**
 * Check a DOCX (a ZIP of XML parts) before mammoth unpacks it whole in memory: every part is
 * inflated here with a hard output cap, so a zip bomb, a part that expands hundreds of times, or
 * XML of millions of elements ends as a failed file with a plain reason instead of gigabytes of
 * memory. Sizes are measured, not taken from the ZIP's headers (which a hostile file can fake).
 */
export function checkZip(bytes: Uint8Array, limits: Pick<IngestLimits, 'maxZipBytes' | 'maxZipRatio' | 'maxXmlElements'>, what = 'Word file'): void {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(buf);
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
      throw new LoadError('failed', `damaged or hostile ${what} (its parts expand beyond ${formatBytes(limits.maxZipBytes)}).${raiseHint('maxZipBytes')}`);
    }
    const packed = Math.max(1, Math.min(e.compressed, buf.length));
    if (size > 10 * 1024 * 1024 && size / packed > limits.maxZipRatio) {
      throw new LoadError('failed', `damaged or hostile ${what} (a part expands ${Math.round(size / packed)} times, a zip bomb).${raiseHint('maxZipRatio')}`);
    }
    if (out !== 'over' && /\.(xml|rels)$/i.test(e.name)) {
      elements += countElements(out);
      if (elements > limits.maxXmlElements) {
        throw new LoadError('failed', `the ${what} is too large to read (more than ${limits.maxXmlElements.toLocaleString('en-US')} XML elements): split it.${raiseHint('maxXmlElements')}`);
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

/** The ZIP's central directory (null when there is none to read). */
function centralDirectory(buf: Buffer): ZipEntry[] | null {
  // End of central directory: signature within the last 64 KB + 22 bytes (a trailing comment).
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let i = 0; i < count && p + 46 <= buf.length; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) break;
    const nameLen = buf.readUInt16LE(p + 28);
    out.push({
      method: buf.readUInt16LE(p + 10),
      encrypted: (buf.readUInt16LE(p + 8) & 1) === 1,
      compressed: buf.readUInt32LE(p + 20),
      offset: buf.readUInt32LE(p + 42),
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
    });
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  return out;
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
  if (e.offset + 30 > buf.length || buf.readUInt32LE(e.offset) !== 0x04034b50) return null;
  const start = e.offset + 30 + buf.readUInt16LE(e.offset + 26) + buf.readUInt16LE(e.offset + 28);
  const data = buf.subarray(start, Math.min(buf.length, start + e.compressed));
  if (e.method === 0) return data.length > cap ? 'over' : data;
  try {
    const out = inflateRawSync(data, { maxOutputLength: Math.max(1, Math.min(cap + 1, bufferConstants.MAX_LENGTH)) });
    return out.length > cap ? 'over' : out;
  } catch (err) {
    return err instanceof RangeError ? 'over' : null;
  }
}

/**
 * The files of a ZIP archive, each its own child file (its path inside the archive kept), bounded:
 * more than `maxArchiveEntries` files fails the archive; an entry that is encrypted, compressed
 * with a method we cannot read, damaged, larger than one file may be, or a zip bomb (a large
 * entry expanding more than `maxZipRatio` times) is listed with the reason instead of its bytes;
 * once the entries read add up to `maxZipBytes`, the rest are listed as not unpacked. One entry at
 * a time: a caller that stores each as it comes holds one entry's bytes, not the archive's.
 */
export function* archiveEntries(bytes: Uint8Array, limits: Pick<IngestLimits, 'maxZipBytes' | 'maxZipRatio' | 'maxArchiveEntries' | 'maxFileBytes'>): Generator<ChildFile> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = centralDirectory(buf);
  if (!entries) throw new LoadError('failed', 'damaged ZIP archive (its table of contents is missing) — ask for a new copy');
  const files = entries.filter((e) => !e.name.endsWith('/') && !isJunk(e.name));
  if (files.length > limits.maxArchiveEntries) {
    throw new LoadError('failed', `the archive holds ${files.length.toLocaleString('en-US')} files, more than ${limits.maxArchiveEntries.toLocaleString('en-US')}: unpack it and add the folders you need.${raiseHint('maxArchiveEntries')}`);
  }
  let total = 0;
  for (const e of files) {
    const child = entryFile(buf, e, limits, limits.maxZipBytes - total);
    total += child.bytes?.byteLength ?? 0;
    yield child;
  }
}

/** One entry as a child file: its bytes, or why it is not unpacked (`left`: bytes the archive may still unpack). */
function entryFile(buf: Buffer, e: ZipEntry, limits: Pick<IngestLimits, 'maxZipBytes' | 'maxZipRatio' | 'maxFileBytes'>, left: number): ChildFile {
  const name = e.name.replace(/\\/g, '/').split('/').filter((p) => p && p !== '.' && p !== '..').join('/') || 'unnamed';
  const overTotal = { name, reason: `not unpacked: the archive's files add up to more than ${formatBytes(limits.maxZipBytes)}.${raiseHint('maxZipBytes')}` };
  if (e.encrypted) return { name, reason: 'encrypted inside the archive (it needs a password) — ask for an unencrypted copy' };
  if (e.method !== 0 && e.method !== 8) return { name, reason: `compressed in a way Casefile cannot unpack (method ${e.method}) — unpack the archive with your archive tool and add the file` };
  if (left <= 0) return overTotal;
  const cap = Math.min(left, limits.maxFileBytes);
  const data = entryBytes(buf, e, cap);
  if (data === null) return { name, reason: 'damaged inside the archive, it could not be unpacked — ask for a new copy' };
  if (data === 'over') return left < limits.maxFileBytes ? overTotal : { name, reason: `too large to unpack (over ${formatBytes(limits.maxFileBytes)}).${raiseHint('maxFileBytes')}` };
  if (data.length > 10 * 1024 * 1024 && data.length / Math.max(1, e.compressed) > limits.maxZipRatio) {
    return { name, reason: `damaged or hostile (it expands ${Math.round(data.length / Math.max(1, e.compressed))} times, a zip bomb).${raiseHint('maxZipRatio')}` };
  }
  return { name, bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) };
}

/** macOS resource forks and desktop files that archivers add: not documents. */
function isJunk(name: string): boolean {
  return /(^|\/)__MACOSX\//.test(name) || /(^|\/)(\.DS_Store|Thumbs\.db|desktop\.ini)$/i.test(name);
}
