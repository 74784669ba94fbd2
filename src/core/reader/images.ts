/**
 * Images as documents: a PNG, JPEG, TIFF (every page), WebP, GIF or BMP is read as a PDF made in
 * memory, one page per image, so the PDF path (OCR with word boxes, page images, citation boxes) does
 * the rest and an image is cited like a scanned PDF. The stored original stays the image; the PDF is
 * made again, byte for byte, whenever its pages are read. Decoders: @napi-rs/canvas, and utif2 for
 * TIFF (including CCITT fax); a JPEG goes in as it is (DCTDecode).
 */
import { deflateSync } from 'node:zlib';
import { createCanvas, loadImage } from '@napi-rs/canvas';
import UTIF from 'utif2';
import { imageFormat } from '../domain/index';

const ascii = (b: Uint8Array, at: number, n: number) => String.fromCharCode(...b.subarray(at, at + n));

/** An image that cannot be read, with the plain reason. */
export class ImageError extends Error {
  override name = 'ImageError';
}

/** One page of the made PDF: the image's pixels (or its JPEG bytes as they are) and its resolution. */
interface PageImage {
  width: number;
  height: number;
  /** Dots per inch when the file says, else null. */
  dpi: number | null;
  colorSpace: 'DeviceGray' | 'DeviceRGB' | 'DeviceCMYK';
  filter: 'FlateDecode' | 'DCTDecode';
  data: Uint8Array;
  /** An Adobe CMYK JPEG stores its inks inverted. */
  invert?: boolean;
}

export interface ImageLimits {
  /** Pixels of one image (width × height). */
  maxImagePixels: number;
  /** Pages of a multi-page TIFF. */
  maxPages: number;
}

/** A PDF with one page per image of `bytes` (an image file); an ImageError says why not. */
export async function imageToPdf(bytes: Uint8Array, limits: ImageLimits): Promise<Uint8Array> {
  const format = imageFormat(bytes);
  if (!format) throw new ImageError('not an image this app can read');
  let pages: PageImage[];
  try {
    pages =
      format === 'tiff'
        ? tiffPages(bytes, limits)
        : format === 'jpeg'
          ? [jpegPage(bytes, limits)]
          : [await canvasPage(bytes, limits)];
  } catch (err) {
    if (err instanceof ImageError) throw err;
    throw new ImageError(
      `damaged or incomplete ${format.toUpperCase()} image, it could not be read (${err instanceof Error ? err.message : String(err)})`,
    );
  }
  return writePdf(pages);
}

function checkPixels(width: number, height: number, limits: ImageLimits): void {
  if (!(width > 0 && height > 0)) throw new ImageError('the image has no pixels (damaged?)');
  if (width * height > limits.maxImagePixels) {
    throw new ImageError(
      `the image is too large (${width.toLocaleString('en-US')} × ${height.toLocaleString('en-US')} pixels; the limit is ${(limits.maxImagePixels / 1e6).toLocaleString('en-US')} million)`,
    );
  }
}

/** A JPEG as it is: its size, components and density from its header. */
function jpegPage(bytes: Uint8Array, limits: ImageLimits): PageImage {
  let at = 2;
  let dpi: number | null = null;
  let adobe = false;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) throw new Error('bad marker');
    const marker = bytes[at + 1]!;
    const len = (bytes[at + 2]! << 8) | bytes[at + 3]!;
    // JFIF density: units 1 = dots per inch, 2 = per cm.
    if (marker === 0xe0 && ascii(bytes, at + 4, 4) === 'JFIF') {
      const units = bytes[at + 11]!;
      const x = (bytes[at + 12]! << 8) | bytes[at + 13]!;
      if (units === 1) dpi = x;
      else if (units === 2) dpi = x * 2.54;
    }
    if (marker === 0xee && ascii(bytes, at + 4, 5) === 'Adobe') adobe = true;
    // Start of frame (baseline, extended, progressive…), not DHT (c4), JPG (c8) or DAC (cc).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = (bytes[at + 5]! << 8) | bytes[at + 6]!;
      const width = (bytes[at + 7]! << 8) | bytes[at + 8]!;
      const components = bytes[at + 9]!;
      checkPixels(width, height, limits);
      if (!jpegComplete(bytes)) throw new Error('it ends before its last part');
      const colorSpace = components === 1 ? 'DeviceGray' : components === 4 ? 'DeviceCMYK' : 'DeviceRGB';
      return { width, height, dpi, colorSpace, filter: 'DCTDecode', data: bytes, invert: components === 4 && adobe };
    }
    at += 2 + len;
  }
  throw new Error('no image frame found');
}

/** A JPEG ends with its end-of-image marker (some writers add bytes after it: looked for near the end). */
function jpegComplete(bytes: Uint8Array): boolean {
  for (let i = bytes.length - 2; i >= Math.max(0, bytes.length - 65536); i--)
    if (bytes[i] === 0xff && bytes[i + 1] === 0xd9) return true;
  return false;
}

/** PNG, WebP, GIF, BMP: decoded by canvas, size checked from the header first where the format has one. */
async function canvasPage(bytes: Uint8Array, limits: ImageLimits): Promise<PageImage> {
  const size = headerSize(bytes);
  if (size) checkPixels(size[0], size[1], limits);
  // A cut PNG decodes into a part of the image with the rest blank: refuse it rather than read half a page.
  if (imageFormat(bytes) === 'png' && ascii(bytes, Math.max(0, bytes.length - 12), 12).indexOf('IEND') < 0)
    throw new Error('it ends before its last part');
  const image = await loadImage(Buffer.from(bytes));
  checkPixels(image.width, image.height, limits);
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  // Transparent parts show as paper.
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, image.width, image.height);
  ctx.drawImage(image, 0, 0);
  const rgba = ctx.getImageData(0, 0, image.width, image.height).data;
  return { ...pixelsOf(rgba, image.width, image.height), dpi: pngDpi(bytes) };
}

/** Width and height from a PNG, GIF or WebP header (to refuse a huge image before decoding it). */
function headerSize(b: Uint8Array): [number, number] | null {
  const be32 = (at: number) => ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
  const le16 = (at: number) => b[at]! | (b[at + 1]! << 8);
  const le24 = (at: number) => b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16);
  const format = imageFormat(b);
  if (format === 'png' && b.length >= 24) return [be32(16), be32(20)];
  if (format === 'gif' && b.length >= 10) return [le16(6), le16(8)];
  if (format === 'webp' && b.length >= 30) {
    const chunk = ascii(b, 12, 4);
    if (chunk === 'VP8X') return [le24(24) + 1, le24(27) + 1];
    if (chunk === 'VP8 ') return [le16(26) & 0x3fff, le16(28) & 0x3fff];
    if (chunk === 'VP8L') {
      const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24);
      return [(bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1];
    }
  }
  return null;
}

/** A PNG's pHYs density in dots per inch (unit 1 = per metre), else null. */
function pngDpi(b: Uint8Array): number | null {
  if (imageFormat(b) !== 'png') return null;
  let at = 8;
  while (at + 12 <= b.length) {
    const len = ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
    const type = ascii(b, at + 4, 4);
    if (type === 'pHYs' && b[at + 16] === 1)
      return (((b[at + 8]! << 24) | (b[at + 9]! << 16) | (b[at + 10]! << 8) | b[at + 11]!) >>> 0) * 0.0254;
    if (type === 'IDAT' || type === 'IEND') return null;
    at += 12 + len;
  }
  return null;
}

/** Every page of a TIFF (thumbnails and other reduced images left out). */
function tiffPages(bytes: Uint8Array, limits: ImageLimits): PageImage[] {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const ifds = UTIF.decode(buffer).filter((ifd) => !(Number((ifd.t254 as number[] | undefined)?.[0] ?? 0) & 1));
  if (!ifds.length) throw new Error('no image inside');
  if (ifds.length > limits.maxPages)
    throw new ImageError(
      `too many pages (${ifds.length.toLocaleString('en-US')}; the limit is ${limits.maxPages.toLocaleString('en-US')}): split the file.`,
    );
  return ifds.map((ifd) => {
    const width = Number((ifd.t256 as number[])?.[0]);
    const height = Number((ifd.t257 as number[])?.[0]);
    checkPixels(width, height, limits);
    UTIF.decodeImage(buffer, ifd);
    const rgba = UTIF.toRGBA8(ifd);
    // XResolution with ResolutionUnit 2 (inch, the default) or 3 (cm).
    const res = (ifd.t282 as unknown[] | undefined)?.[0];
    const unit = Number((ifd.t296 as number[] | undefined)?.[0] ?? 2);
    // A rational [numerator, denominator].
    const x = Array.isArray(res) ? Number(res[0]) / Number(res[1] || 1) : Number(res);
    const dpi = Number.isFinite(x) && x > 0 ? (unit === 3 ? x * 2.54 : unit === 2 ? x : null) : null;
    return { ...pixelsOf(rgba, width, height), dpi };
  });
}

/** RGBA pixels as deflated grey (when every pixel is grey: most scans) or RGB, alpha over white. */
function pixelsOf(
  rgba: Uint8Array | Uint8ClampedArray,
  width: number,
  height: number,
): Pick<PageImage, 'width' | 'height' | 'colorSpace' | 'filter' | 'data'> {
  const n = width * height;
  let grey = true;
  for (let i = 0; i < n && grey; i++) {
    const o = i * 4;
    grey = rgba[o] === rgba[o + 1] && rgba[o + 1] === rgba[o + 2];
  }
  const channels = grey ? 1 : 3;
  const out = new Uint8Array(n * channels);
  for (let i = 0; i < n; i++) {
    const o = i * 4;
    const a = rgba[o + 3]! / 255;
    for (let c = 0; c < channels; c++) out[i * channels + c] = Math.round(rgba[o + c]! * a + 255 * (1 - a));
  }
  return {
    width,
    height,
    colorSpace: grey ? 'DeviceGray' : 'DeviceRGB',
    filter: 'FlateDecode',
    data: deflateSync(out),
  };
}

/**
 * The page size in points for an image: its own resolution when the file gives a plausible one;
 * else the image fills a US Letter width (8.5 in) when that makes at least 100 dpi (a scan or a
 * photo of a page), or is shown at 96 dpi (a screenshot).
 */
export function pageSize(width: number, height: number, dpi: number | null): [number, number] {
  const d = dpi !== null && dpi >= 50 && dpi <= 2400 ? dpi : width / 8.5 >= 100 ? width / 8.5 : 96;
  return [Math.round((width * 72 * 100) / d) / 100, Math.round((height * 72 * 100) / d) / 100];
}

/** A minimal PDF 1.7: one page per image, the image filling the page. */
function writePdf(pages: PageImage[]): Uint8Array {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let length = 0;
  const push = (b: Buffer) => {
    parts.push(b);
    length += b.length;
  };
  const object = (n: number, dict: string, stream?: Uint8Array) => {
    offsets[n] = length;
    push(Buffer.from(`${n} 0 obj\n${dict}\n`, 'latin1'));
    if (stream) {
      push(Buffer.from('stream\n', 'latin1'));
      push(Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength));
      push(Buffer.from('\nendstream\n', 'latin1'));
    }
    push(Buffer.from('endobj\n', 'latin1'));
  };
  push(Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1'));
  // Objects: 1 catalog, 2 page tree, then per page: page, content stream, image.
  const kids = pages.map((_, i) => `${3 + i * 3} 0 R`).join(' ');
  object(1, '<< /Type /Catalog /Pages 2 0 R >>');
  object(2, `<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  pages.forEach((p, i) => {
    const [w, h] = pageSize(p.width, p.height, p.dpi);
    const [page, content, image] = [3 + i * 3, 4 + i * 3, 5 + i * 3];
    const draw = Buffer.from(`q ${w} 0 0 ${h} 0 0 cm /Im0 Do Q`, 'latin1');
    object(
      page,
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /XObject << /Im0 ${image} 0 R >> >> /Contents ${content} 0 R >>`,
    );
    object(content, `<< /Length ${draw.length} >>`, draw);
    const decode = p.invert ? ' /Decode [1 0 1 0 1 0 1 0]' : '';
    object(
      image,
      `<< /Type /XObject /Subtype /Image /Width ${p.width} /Height ${p.height} /ColorSpace /${p.colorSpace} /BitsPerComponent 8${decode} /Filter /${p.filter} /Length ${p.data.length} >>`,
      p.data,
    );
  });
  const xref = length;
  const count = 3 + pages.length * 3;
  const rows = [
    '0000000000 65535 f \n',
    ...Array.from({ length: count - 1 }, (_, i) => `${String(offsets[i + 1]).padStart(10, '0')} 00000 n \n`),
  ];
  push(
    Buffer.from(
      `xref\n0 ${count}\n${rows.join('')}trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`,
      'latin1',
    ),
  );
  // A plain Uint8Array (pdf.js refuses a Buffer).
  const out = Buffer.concat(parts);
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
