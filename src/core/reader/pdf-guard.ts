import { constants as bufferConstants } from 'node:buffer';
import zlib, { inflateSync } from 'node:zlib';
import { enclosingDict } from './fontmetrics';
import { formatBytes, raiseHint, type IngestLimits } from '../domain/index';
import { LoadError } from './loaders';

/** Deflate's largest expansion per layer (an image smaller than the limit at this ratio is not inflated to check it). */
const DEFLATE_MAX_RATIO = 1032;
const MAX_LENGTH = bufferConstants.MAX_LENGTH;

/**
 * Check a PDF's Flate streams before pdf.js reads it: pdf.js inflates a content stream whole, outside
 * the JS heap, so a small file whose one stream inflates to gigabytes would take the process down.
 * Streams that could expand past the per-stream limit are inflated here with a hard output cap, and
 * non-image streams' decoded bytes are summed against the per-document limit (images are bounded by
 * pdf.js's maxImageSize). Throws a LoadError; streams that do not inflate are left to pdf.js.
 */
export function checkPdfStreams(
  bytes: Uint8Array,
  limits: Pick<IngestLimits, 'maxStreamBytes' | 'maxDecodedBytes'>,
): { streams: number; decoded: number } {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('latin1');
  let decoded = 0;
  let streams = 0;
  // Next `endstream` at or after a position, found once per stretch (keeps the scan linear on files full of fake streams).
  let nextEnd = -1;
  const endFrom = (from: number) => {
    if (nextEnd !== -2 && nextEnd < from) nextEnd = text.indexOf('endstream', from);
    if (nextEnd === -1) nextEnd = -2;
    return nextEnd === -2 ? -1 : nextEnd;
  };
  for (const m of text.matchAll(/stream(?:\r\n|\n|\r)/g)) {
    if (m.index >= 3 && text.slice(m.index - 3, m.index) === 'end') continue;
    // The stream's dictionary ends right before the keyword (whitespace between).
    const before = text.slice(Math.max(0, m.index - 64), m.index);
    const at = before.lastIndexOf('>>');
    if (at < 0 || /\S/.test(before.slice(at + 2))) continue;
    const close = m.index - before.length + at;
    const dict = enclosingDict(text, close);
    if (!dict) continue;
    const flates = flateLayers(dict.body);
    if (!flates) continue;
    const from = m.index + m[0].length;
    const length = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dict.body);
    let to = length ? from + Number(length[1]) : -1;
    if (to < from || to > buf.length || text.slice(to, to + 40).indexOf('endstream') < 0) to = endFrom(from);
    if (to < 0) to = buf.length;
    const compressed = to - from;
    const image = /\/Subtype\s*\/Image\b/.test(dict.body);
    const worst = compressed * DEFLATE_MAX_RATIO ** flates;
    if (image && worst <= limits.maxStreamBytes) continue;
    const size = inflatedSize(buf.subarray(from, to), flates, limits.maxStreamBytes);
    if (size === null) continue;
    if (size > limits.maxStreamBytes) {
      throw new LoadError(
        'failed',
        `damaged or hostile PDF (a stream expands beyond ${formatBytes(limits.maxStreamBytes)}).${raiseHint('maxStreamBytes')}`,
      );
    }
    if (!image) decoded += size;
    streams++;
    if (decoded > limits.maxDecodedBytes) {
      throw new LoadError(
        'failed',
        `damaged or hostile PDF (its streams expand beyond ${formatBytes(limits.maxDecodedBytes)} in all).${raiseHint('maxDecodedBytes')}`,
      );
    }
  }
  return { streams, decoded };
}

/** How many FlateDecode filters a stream dictionary applies first (0: none, or another filter first). */
function flateLayers(dict: string): number {
  const f = /\/Filter\s*(\[[^\]]*\]|\/[A-Za-z0-9]+)/.exec(dict);
  if (!f) return 0;
  const names = f[1]!.match(/\/[A-Za-z0-9]+/g) ?? [];
  let n = 0;
  for (const name of names) {
    if (name !== '/FlateDecode' && name !== '/Fl') break;
    n++;
  }
  return n;
}

/**
 * Decoded size through `layers` inflates, stopping past `cap` (returns the bound it passed: cap + 1,
 * or the largest buffer Node can make when the cap is higher); null when the data does not inflate.
 */
function inflatedSize(data: Buffer, layers: number, cap: number): number | null {
  const bound = Math.min(cap + 1, MAX_LENGTH);
  let cur: Buffer = data;
  for (let i = 0; i < layers; i++) {
    try {
      cur = inflateSync(cur, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: bound });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) return bound;
      return i === 0 ? null : cur.length;
    }
  }
  return cur.length;
}
