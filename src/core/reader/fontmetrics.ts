import { inflateSync, constants as zlib } from 'node:zlib';

/**
 * A font's vertical extent the way poppler's text layer (pdftotext -bbox) sizes word boxes: ascent
 * and descent in em from the FontDescriptor's /Ascent and /Descent, which pdf.js does not pass on.
 * poppler's rules (GfxFont.cc): 0.95 / −0.35, replaced by non-zero descriptor values under 3 em, and
 * for a non-embedded simple standard-14 font (or alias) the built-in AFM values win.
 */

/** What the raw PDF says about one FontDescriptor. */
export interface FontDescriptorInfo {
  name: string;
  /** /Ascent and /Descent in 1/1000 em, when they are direct numbers. */
  ascent?: number;
  descent?: number;
  embedded: boolean;
}

const DEFAULT_ASCENT = 0.95;
const DEFAULT_DESCENT = -0.35;

/**
 * The FontDescriptor dictionaries of a PDF, found by scanning its bytes (and the Flate-compressed
 * object streams of PDF 1.5+). Best effort: encrypted or unusual files yield fewer (or none), and
 * their fonts then keep pdf.js's metrics.
 */
/** Object streams are small (a few hundred objects); anything far larger is not worth inflating. */
const MAX_INFLATED_STREAM = 16 * 1024 * 1024;
const MAX_INFLATED_TOTAL = 64 * 1024 * 1024;

export function readFontDescriptors(bytes: Uint8Array): FontDescriptorInfo[] {
  const out: FontDescriptorInfo[] = [];
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('latin1');
  scanDescriptors(text, out);
  // A hostile file may hold a decompression bomb: cap each object stream and the total inflated.
  let budget = MAX_INFLATED_TOTAL;
  for (const m of text.matchAll(/\/Type\s*\/ObjStm\b/g)) {
    if (budget <= 0) break;
    const dict = enclosingDict(text, m.index);
    if (!dict || !/\/Filter\s*\/FlateDecode\b/.test(dict.body) || /\/DecodeParms/.test(dict.body)) continue;
    const s = /^\s*stream\r?\n/.exec(text.slice(dict.end, dict.end + 20));
    if (!s) continue;
    const from = dict.end + s[0].length;
    const to = text.indexOf('endstream', from);
    if (to < 0) continue;
    try {
      const inflated = inflateSync(buf.subarray(from, to), {
        finishFlush: zlib.Z_SYNC_FLUSH,
        maxOutputLength: Math.min(MAX_INFLATED_STREAM, budget),
      });
      budget -= inflated.length;
      const data = inflated.toString('latin1');
      scanDescriptors(data, out);
    } catch {
      // A stream that does not inflate (encrypted, damaged): its fonts keep pdf.js's metrics.
    }
  }
  return out;
}

function scanDescriptors(text: string, out: FontDescriptorInfo[]): void {
  for (const m of text.matchAll(/\/Type\s*\/FontDescriptor\b/g)) {
    const dict = enclosingDict(text, m.index);
    if (!dict) continue;
    const body = dict.body;
    const name = /\/FontName\s*\/([^\s/<>[\]()%]+)/.exec(body)?.[1];
    if (!name) continue;
    const num = (key: string) => {
      const v = new RegExp(`/${key}\\s+(-?\\d*\\.?\\d+)(?![\\d.])(?!\\s+\\d+\\s+R\\b)`).exec(body)?.[1];
      return v === undefined ? undefined : Number(v);
    };
    out.push({
      name: unescapeName(name),
      ascent: num('Ascent'),
      descent: num('Descent'),
      embedded: /\/FontFile[23]?\b/.test(body),
    });
  }
}

const unescapeName = (n: string) =>
  n.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));

/** The innermost `<< … >>` dictionary around position `at` (strings and hex strings skipped). */
export function enclosingDict(text: string, at: number): { body: string; end: number } | undefined {
  // Backwards to the opening `<<` at depth 0 (a key sits at the top level of its dictionary).
  let depth = 0;
  let start = -1;
  for (let i = at - 1; i >= Math.max(0, at - 4000); i--) {
    if (text[i] === '>' && text[i - 1] === '>') {
      depth++;
      i--;
    } else if (text[i] === '<' && text[i - 1] === '<') {
      if (depth === 0) {
        start = i - 1;
        break;
      }
      depth--;
      i--;
    }
  }
  if (start < 0) return undefined;
  depth = 0;
  const limit = Math.min(text.length, start + 20000);
  for (let i = start; i < limit; i++) {
    const c = text[i];
    if (c === '(') {
      // Literal string: balanced parentheses, backslash escapes.
      let n = 1;
      for (i++; i < limit && n > 0; i++) {
        if (text[i] === '\\') i++;
        else if (text[i] === '(') n++;
        else if (text[i] === ')') n--;
      }
      i--;
    } else if (c === '<') {
      if (text[i + 1] === '<') {
        depth++;
        i++;
      } else {
        const close = text.indexOf('>', i);
        if (close < 0) return undefined;
        i = close;
      }
    } else if (c === '>' && text[i + 1] === '>') {
      depth--;
      i++;
      if (depth === 0) return { body: text.slice(start, i + 1), end: i + 1 };
    }
  }
  return undefined;
}

/** Built-in (AFM) ascender/descender of the standard 14 families, as poppler's tables hold them. */
const BUILTIN: Record<string, [number, number]> = {
  Courier: [0.629, -0.157],
  Helvetica: [0.718, -0.207],
  Times: [0.683, -0.217],
  Symbol: [1.01, -0.293],
  ZapfDingbats: [0.82, -0.143],
};

/** The standard-14 family a font name stands for (poppler's base-14 alias table, spaces removed), if any. */
function base14(name: string): keyof typeof BUILTIN | undefined {
  const n = name.replace(/ /g, '');
  const style = '(?:[-,](?:Bold|Italic|BoldItalic|Oblique|BoldOblique|Roman))?';
  if (new RegExp(`^(?:Arial(?:MT)?|Arial${style}(?:MT)?|Helvetica${style})$`).test(n)) return 'Helvetica';
  if (new RegExp(`^(?:Courier${style}|CourierNew${style}|CourierNewPS(?:-(?:Bold|Italic|BoldItalic))?MT)$`).test(n))
    return 'Courier';
  if (
    new RegExp(
      `^(?:Times${style}|TimesNewRoman${style}|TimesNewRomanPS(?:-(?:Bold|Italic|BoldItalic))?(?:MT)?(?:,(?:Bold|Italic|BoldItalic))?)$`,
    ).test(n)
  )
    return 'Times';
  if (/^Symbol(?:,(?:Bold|Italic|BoldItalic))?$/.test(n)) return 'Symbol';
  if (n === 'ZapfDingbats') return 'ZapfDingbats';
  return undefined;
}

/** What pdf.js tells about a loaded font (with its style in the text content, patches/). */
export interface PdfJsFontInfo {
  name?: string;
  composite?: boolean;
  isType3Font?: boolean;
  /** True when the font program is not embedded (nor a standard font pdf.js substitutes). */
  missingFile?: boolean;
}

/**
 * poppler's [ascent, descent] (em) for a font, or undefined where the PDF's descriptors could not
 * be read for it (then callers keep pdf.js's metrics).
 */
export function popplerMetrics(font: PdfJsFontInfo, descriptors: FontDescriptorInfo[]): [number, number] | undefined {
  const name = font.name ?? '';
  let found = descriptors.filter((d) => d.name === name);
  const distinct = () => new Set(found.map((d) => `${d.ascent}/${d.descent}/${d.embedded}`)).size;
  // The same name twice (a "Tahoma" embedded and one not): the one embedded as pdf.js found it.
  if (distinct() > 1 && font.missingFile !== undefined) found = found.filter((d) => d.embedded === !font.missingFile);
  // Still different metrics under one name: which one is meant is unknown.
  if (distinct() > 1) return undefined;
  const d = found[0];
  const family = !font.composite && !font.isType3Font ? base14(name) : undefined;
  if (family && !d?.embedded) return BUILTIN[family];
  if (!d) return font.isType3Font ? [DEFAULT_ASCENT, DEFAULT_DESCENT] : undefined;
  let ascent = DEFAULT_ASCENT;
  let descent = DEFAULT_DESCENT;
  if (d.ascent !== undefined) {
    const t = Math.abs(d.ascent / 1000);
    if (t !== 0 && t < 3) ascent = t;
  }
  if (d.descent !== undefined) {
    const t = -Math.abs(d.descent / 1000);
    if (t !== 0 && t > -3) descent = t;
  }
  return [ascent, descent];
}
