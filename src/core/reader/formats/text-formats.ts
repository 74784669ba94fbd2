/**
 * Legacy Word (.doc), RTF and HTML: each is read to paragraphs and made a text document of one unit
 * with no label (cited by page number) by `unitsDocument`. Each library is loaded only when a file
 * of its kind is read. Nothing here does any I/O: HTML is converted by html-to-text (no DOM, no
 * fetching: images give no text and links only their text).
 */
import { createRequire } from 'node:module';
import type { DomNode, FormatCallback, HtmlToTextOptions } from 'html-to-text';
import type { FeatureHandler } from 'rtf-stream-parser/dist/src/features/types';
import type { ProcessTokensGlobalState } from 'rtf-stream-parser/dist/src/ProcessTokens.types';
import { decodeText } from '../../domain/index';
import { LoadError, type ParsedDoc } from '../loaders';
import { unitsDocument } from './units';

/** What a Word 97-2003 file protected by a password is recorded with. */
export const WORD97_LOCKED_REASON = 'password protected Word file — save an unlocked copy';

const word97Failed = (why: string) =>
  `damaged or unreadable Word 97-2003 (.doc) file (${why}) — save it as .docx or PDF`;
const rtfFailed = (why: string) => `damaged RTF file, it could not be read (${why})`;
const htmlFailed = (why: string) => `damaged web page (HTML), it could not be read (${why})`;

/** A library's error in a few plain words. */
function short(err: unknown): string {
  // A read past the end of a buffer: the file is cut short or its tables point nowhere.
  if (err instanceof RangeError || (err as { code?: string } | null)?.code === 'ERR_OUT_OF_RANGE')
    return 'it is incomplete or its structure is damaged';
  const msg = err instanceof Error ? err.message : String(err);
  return msg.replace(/\s+/g, ' ').trim().slice(0, 160) || 'unknown error';
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** Lines of `text` as paragraphs: trimmed, runs of tabs and spaces around a tab made one tab, blank ones left out. */
function lineParagraphs(text: string): string[] {
  return text
    .split(/\r\n?|\n|\u2028|\u2029/)
    .map((l) => l.replace(/[ \t]*\t[ \t]*/g, '\t').trim())
    .filter((l) => /\S/.test(l));
}

const CP1252_C1 = '€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ';

/**
 * Text decoded as Windows-1252 with its bytes 0x80–0x9F as Windows-1252 has them: Node 20's
 * TextDecoder('windows-1252') reads them as Latin-1 control characters (U+0080–U+009F).
 */
export function fixCp1252(text: string): string {
  return text.replace(/[\u0080-\u009f]/g, (c) => CP1252_C1[c.charCodeAt(0) - 0x80]!);
}

// ---------------------------------------------------------------- Word 97-2003

interface WordDocumentLike {
  getBody(options?: { filterUnicode?: boolean }): string;
  getFootnotes(options?: { filterUnicode?: boolean }): string;
  getEndnotes(options?: { filterUnicode?: boolean }): string;
}
type WordExtractorClass = new () => { extract(source: Buffer): Promise<WordDocumentLike> };

const CFB_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const FIB_IDENT_WORD97 = 0xa5ec;
const FIB_F_ENCRYPTED = 0x0100;

/** A legacy Word (.doc, Word 97-2003) file: its body's paragraphs, then its footnotes' and endnotes'. */
export async function loadWord97(bytes: Uint8Array): Promise<ParsedDoc> {
  if (!CFB_MAGIC.every((b, i) => bytes[i] === b)) throw new LoadError('failed', word97Failed('not an Office file'));
  const flags = word97Flags(bytes);
  if (flags !== null && (flags & FIB_F_ENCRYPTED) !== 0) throw new LoadError('failed', WORD97_LOCKED_REASON);
  // @ts-expect-error word-extractor ships no type declarations; the part used is WordExtractorClass.
  const WordExtractor = (await import('word-extractor')).default as WordExtractorClass;
  let doc: WordDocumentLike;
  try {
    doc = await new WordExtractor().extract(asBuffer(bytes));
  } catch (err) {
    throw new LoadError('failed', word97Failed(short(err)));
  }
  // Keep the document's own quotes and dashes (word-extractor makes them ASCII by default).
  const keep = { filterUnicode: false };
  const paragraphs = [doc.getBody(keep), doc.getFootnotes(keep), doc.getEndnotes(keep)].flatMap(lineParagraphs);
  return unitsDocument([{ label: '', paragraphs }], 'the Word file has no text');
}

/**
 * The flags word of a Word 97-2003 file's FIB (offset 0x0A of its WordDocument stream), read from the
 * compound file directly; null when the stream cannot be found this simply (the reader then decides).
 */
export function word97Flags(bytes: Uint8Array): number | null {
  const start = cfbStreamStart(bytes, 'WordDocument');
  if (start === null || start + 12 > bytes.length) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return view.getUint16(start, true) === FIB_IDENT_WORD97 ? view.getUint16(start + 0x0a, true) : null;
}

/** Where a stream of at least 4096 bytes (kept in regular sectors) starts, found by name in the root storage's directory. */
function cfbStreamStart(bytes: Uint8Array, name: string): number | null {
  if (bytes.length < 512) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shift = view.getUint16(0x1e, true);
  if (shift !== 9 && shift !== 12) return null;
  const size = 1 << shift;
  const sectorAt = (s: number) => (s + 1) * size;
  const END = 0xfffffffa;
  // The next sector in a chain, through the FAT sectors the header lists (the first 109).
  const next = (s: number): number => {
    const perSector = size / 4;
    const fatIndex = Math.floor(s / perSector);
    if (fatIndex >= 109) return END;
    const at = sectorAt(view.getUint32(0x4c + fatIndex * 4, true)) + (s % perSector) * 4;
    return at + 4 <= bytes.length ? view.getUint32(at, true) : END;
  };
  let dir = view.getUint32(0x30, true);
  for (let guard = 0; dir < END && guard < 4096; guard++, dir = next(dir)) {
    for (let at = sectorAt(dir); at < sectorAt(dir) + size && at + 128 <= bytes.length; at += 128) {
      if (bytes[at + 0x42] !== 2 || view.getUint16(at + 0x40, true) !== (name.length + 1) * 2) continue;
      const entryName = String.fromCharCode(
        ...Array.from({ length: name.length }, (_, i) => view.getUint16(at + i * 2, true)),
      );
      if (entryName !== name) continue;
      if (view.getUint32(at + 0x78, true) < 4096) return null;
      return sectorAt(view.getUint32(at + 0x74, true));
    }
  }
  return null;
}

// ---------------------------------------------------------------- RTF

type CodePageDecoder = (buf: Buffer, encoding: string) => string;

/** A document in RTF, or an Outlook body that wraps HTML or text in RTF (`\fromhtml1`, `\fromtext`). */
export async function loadRtf(bytes: Uint8Array): Promise<ParsedDoc> {
  return unitsDocument([{ label: '', paragraphs: await rtfToParagraphs(bytes) }], 'the RTF file has no text');
}

/** The paragraphs of an RTF file (one a line or `\par`; footnotes after the body). Throws LoadError. */
export async function rtfToParagraphs(bytes: Uint8Array): Promise<string[]> {
  const rtf = await import('rtf-stream-parser');
  const decode = await codePageDecoder();
  const buffer = asBuffer(bytes);
  try {
    // Encapsulated HTML or text (Outlook) says so at the start; a file that only mentions it later is read as RTF.
    if (/\\from(?:html|text)/.test(buffer.subarray(0, 512).toString('latin1'))) {
      try {
        const out = rtf.deEncapsulateSync(buffer, {
          decode,
          warn: () => {},
          mode: 'either',
          replaceSymbolFontChars: true,
        });
        const text = typeof out.text === 'string' ? out.text : out.text.toString('utf8');
        return out.mode === 'html' ? htmlToParagraphs(text) : lineParagraphs(text);
      } catch {
        // Not encapsulated after all: read it as a document.
      }
    }
    return await rtfPlainParagraphs(rtf.Tokenize, buffer, decode);
  } catch (err) {
    throw new LoadError('failed', rtfFailed(short(err)));
  }
}

/** Destinations whose text is not part of the document's text (metadata, pictures, field codes, headers and footers). */
const RTF_HIDDEN = new Set([
  'info',
  'pict',
  'objdata',
  'fldinst',
  'xe',
  'tc',
  'tcn',
  'bin',
  'datafield',
  'themedata',
  'colorschememapping',
  'datastore',
  'latentstyles',
  'listtable',
  'listoverridetable',
  'rsidtbl',
  'generator',
  'xmlnstbl',
  'filetbl',
  'revtbl',
  'nonshppict',
  'header',
  'headerl',
  'headerr',
  'headerf',
  'footer',
  'footerl',
  'footerr',
  'footerf',
  'fonttbl',
  'colortbl',
  'stylesheet',
  'pntext',
]);
/** Marks the end of a table cell in the parser's output (private use; replaced by " · "). */
const CELL = '\uE000';

/** Plain RTF through rtf-stream-parser's tokenizer and ToPlainText, run synchronously as its deEncapsulateSync does. */
async function rtfPlainParagraphs(
  Tokenize: typeof import('rtf-stream-parser').Tokenize,
  buffer: Buffer,
  decode: CodePageDecoder,
): Promise<string[]> {
  const { ToPlainText } = await import('rtf-stream-parser/dist/src/ToPlainText');
  const tokenizer = new Tokenize();
  // Symbol and Wingdings characters (a bullet list's "\'b7") become the Unicode characters they show.
  const plain = new ToPlainText({ decode, warn: () => {}, replaceSymbolFontChars: true });
  const footnotes: string[] = [];
  const feature: FeatureHandler<ProcessTokensGlobalState> = {
    controlHandlers: {
      cell: (g) => g._pushOutput(CELL),
      nestcell: (g) => g._pushOutput(CELL),
      row: (g) => g._pushOutput('\n'),
      nestrow: (g) => g._pushOutput('\n'),
      page: (g) => g._pushOutput('\n'),
      sect: (g) => g._pushOutput('\n'),
      footnote: () => void footnotes.push('\n'),
    },
    outputDataFilter: (g, data) => {
      const dests = g._state.allDestinations ?? {};
      for (const d in dests) if (RTF_HIDDEN.has(d)) return true;
      if (!dests['footnote']) return;
      footnotes.push(plain._getOutputAsString(data, plain._getCurrentFont())[0]);
      return true;
    },
  };
  plain._featureHandlers.push(feature);
  const chunks: string[] = [];
  const fail = (err?: unknown) => {
    if (err) throw err;
  };
  tokenizer.push = (token: unknown) => (plain._transform(token as never, undefined, fail), true);
  plain.push = (piece: unknown) => (chunks.push(String(piece)), true);
  tokenizer._transform(buffer, undefined, fail);
  tokenizer._flush(fail);
  plain._flush(fail);
  const cells = (line: string) =>
    line
      .split(CELL)
      .map((c) => c.trim())
      .filter(Boolean)
      .join(' · ');
  return [...lineParagraphs(chunks.join('')), ...lineParagraphs(footnotes.join(''))].map(cells).filter(Boolean);
}

/** RTF code pages decoded by iconv-lite where it is installed (it comes with the email readers), else by TextDecoder. */
async function codePageDecoder(): Promise<CodePageDecoder> {
  type Iconv = { decode(buf: Buffer, encoding: string): string; encodingExists(encoding: string): boolean };
  let iconv: Iconv | null = null;
  try {
    const mod = (await import('iconv-lite')) as unknown as Iconv & { default?: Iconv };
    iconv = mod.default ?? mod;
  } catch {
    iconv = null;
  }
  const whatwg: Record<string, string> = {
    cp932: 'shift_jis',
    cp936: 'gbk',
    cp949: 'euc-kr',
    cp950: 'big5',
    cp10000: 'macintosh',
    cp20866: 'koi8-r',
    cp28591: 'iso-8859-1',
  };
  return (buf, encoding) => {
    if (iconv?.encodingExists(encoding)) return iconv.decode(buf, encoding);
    let decoder: TextDecoder;
    try {
      decoder = new TextDecoder(whatwg[encoding] ?? encoding.replace(/^cp(12\d\d|874)$/, 'windows-$1'));
    } catch {
      decoder = new TextDecoder('windows-1252');
    }
    const text = decoder.decode(buf);
    return decoder.encoding === 'windows-1252' ? fixCp1252(text) : text;
  };
}

// ---------------------------------------------------------------- HTML

/** A web page (.html, .htm, a saved page): its text, the page's title first. */
export async function loadHtml(bytes: Uint8Array): Promise<ParsedDoc> {
  let paragraphs: string[];
  let html: string;
  try {
    html = decodeHtml(bytes);
    paragraphs = htmlToParagraphs(html);
  } catch (err) {
    throw new LoadError('failed', htmlFailed(short(err)));
  }
  const doc = unitsDocument([{ label: '', paragraphs }], 'the web page has no text');
  return { ...doc, html: outlineHtml(paragraphs, headingsOf(html)) };
}

const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The page's headings (<h1>–<h6>), in order: their level and their text. */
function headingsOf(html: string): { level: number; text: string }[] {
  const out: { level: number; text: string }[] = [];
  for (const m of html.matchAll(/<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi)) {
    const text = squash(
      m[2]!
        .replace(/<[^>]*>/g, ' ')
        .replace(/&nbsp;/g, ' ')
        .replace(/&amp;/g, '&'),
    );
    if (text) out.push({ level: Number(m[1]), text });
  }
  return out;
}

/**
 * The paragraphs as simple HTML, headings as <h1>–<h6> in the page's order, the rest as <p>: the
 * same blocks as the text, so the outline (text/outline.ts, as for a DOCX) finds the page's headings.
 */
function outlineHtml(paragraphs: string[], headings: { level: number; text: string }[]): string {
  let next = 0;
  return paragraphs
    .map((p) => {
      const h = headings[next];
      if (h && squash(p).toLowerCase() === h.text.toLowerCase()) {
        next++;
        return `<h${h.level}>${escapeHtml(p)}</h${h.level}>`;
      }
      return `<p>${escapeHtml(p)}</p>`;
    })
    .join('');
}

/** HTML bytes as text: the charset of a BOM, else of a `<meta charset>` / `http-equiv` near the start, else UTF-8 (Windows-1252 when it is not). */
export function decodeHtml(bytes: Uint8Array): string {
  const bom =
    (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) ||
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (bom) return decodeText(bytes).text;
  const head = new TextDecoder('windows-1252').decode(bytes.subarray(0, 4096));
  const label = /<meta\b[^>]*?charset\s*=\s*["']?\s*([\w.:-]+)/i.exec(head)?.[1];
  if (label) {
    try {
      const decoder = new TextDecoder(label.toLowerCase());
      // UTF-8 (checked, with its fallback) and UTF-16 (a page whose tags read as ASCII is not UTF-16) go to decodeText.
      if (decoder.encoding === 'windows-1252') return fixCp1252(decoder.decode(bytes));
      if (decoder.encoding !== 'utf-8' && !decoder.encoding.startsWith('utf-16')) return decoder.decode(bytes);
    } catch {
      // An unknown charset: decode as UTF-8 or Windows-1252.
    }
  }
  const decoded = decodeText(bytes);
  return decoded.encoding === 'windows-1252' ? fixCp1252(decoded.text) : decoded.text;
}

interface HtmlMeta {
  title?: string;
  firstHeading?: string;
}
type HtmlConvert = (html: string, metadata: HtmlMeta) => string;
let htmlConvert: HtmlConvert | undefined;

/**
 * The paragraphs of an HTML document or fragment (also an email's HTML body): blocks split at blank
 * lines, headings their own paragraphs, table rows "cell · cell", the `<title>` first unless the first
 * heading already says it (`title: false`: never, for an email body whose subject is said elsewhere).
 * Scripts, styles, images, embedded objects and the rest of the head are left out.
 */
export function htmlToParagraphs(html: string, options: { title?: boolean } = {}): string[] {
  // Loaded on first use, synchronously (this function is synchronous for the email readers): the
  // package's CommonJS build through require, which does no I/O of its own beyond loading itself.
  if (!htmlConvert) {
    const { compile } = createRequire(import.meta.url)('html-to-text') as typeof import('html-to-text');
    htmlConvert = compile(HTML_OPTIONS) as unknown as HtmlConvert;
  }
  const meta: HtmlMeta = {};
  const text = htmlConvert(html, meta);
  const paragraphs = text
    .split(/\n[ \t]*\n/)
    .map((p) => p.replace(/[ \t]+$/gm, '').replace(/^\n+|\s+$/g, ''))
    .filter((p) => /\S/.test(p))
    // A block of thousands of characters without blank lines (a page made of <div>s) is split at its lines.
    .flatMap((p) => (p.length > 3000 ? p.split('\n').filter((l) => /\S/.test(l)) : [p]));
  const same = (a: string | undefined, b: string | undefined) =>
    squash(a ?? '').toLowerCase() === squash(b ?? '').toLowerCase();
  const title = squash(meta.title ?? '');
  if (options.title !== false && title && !same(title, meta.firstHeading) && !same(title, paragraphs[0]))
    paragraphs.unshift(title);
  return paragraphs;
}

const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/** The text of an element's text nodes. */
function textOf(node: DomNode): string {
  if (node.type === 'text') return node.data ?? '';
  if (node.type === 'script' || node.type === 'style' || node.type === 'comment') return '';
  return (node.children ?? []).map(textOf).join('');
}

type Builder = Parameters<FormatCallback>[2];
const metaOf = (builder: Builder) => (builder as unknown as { metadata?: HtmlMeta }).metadata;

/** `<head>` (or a stray `<title>`): only the title is kept, for the caller. */
const formatTitle: FormatCallback = (elem, _walk, builder) => {
  const meta = metaOf(builder);
  if (!meta || meta.title) return;
  const title =
    elem.name === 'title' ? elem : (elem.children ?? []).find((c) => c.type === 'tag' && c.name === 'title');
  if (title) meta.title = squash(textOf(title));
};

/** A heading: its own paragraph, as written; the first one's text is kept for the caller. */
const formatHeading: FormatCallback = (elem, walk, builder) => {
  const meta = metaOf(builder);
  if (meta && !meta.firstHeading) meta.firstHeading = squash(textOf(elem)) || undefined;
  builder.openBlock({ leadingLineBreaks: 2 });
  walk(elem.children, builder);
  builder.closeBlock({ trailingLineBreaks: 2 });
};

/**
 * A table: each row its own paragraph, its cells joined by " · ". A row with a cell of several
 * paragraphs or of much text (a table used for layout) gives its cells as paragraphs instead.
 */
const formatTable: FormatCallback = (elem, walk, builder) => {
  builder.openTable();
  const cell = (node: DomNode) => {
    builder.openTableCell();
    walk(node.children, builder);
    builder.closeTableCell({
      colspan: Number(node.attribs?.colspan) || 1,
      rowspan: Number(node.attribs?.rowspan) || 1,
    });
  };
  const walkTable = (node: DomNode) => {
    if (node.type !== 'tag') return;
    if (node.name === 'thead' || node.name === 'tbody' || node.name === 'tfoot' || node.name === 'center')
      node.children.forEach(walkTable);
    if (node.name !== 'tr') return;
    builder.openTableRow();
    for (const c of node.children) if (c.type === 'tag' && (c.name === 'td' || c.name === 'th')) cell(c);
    builder.closeTableRow();
  };
  elem.children.forEach(walkTable);
  builder.closeTable({ tableToString: tableRows, leadingLineBreaks: 2, trailingLineBreaks: 2 });
};

function tableRows(rows: { text: string }[][]): string {
  const out: string[] = [];
  for (const row of rows) {
    const texts = row.map((c) => c.text.trim()).filter(Boolean);
    if (texts.some((t) => /\n[ \t]*\n/.test(t) || t.length > 300)) out.push(...texts);
    else if (texts.length) out.push(texts.map((t) => t.replace(/\s*\n\s*/g, ' ')).join(' · '));
  }
  return out.join('\n\n');
}

const HTML_SKIPPED = [
  'script',
  'style',
  'noscript',
  'template',
  'iframe',
  'frame',
  'object',
  'embed',
  'applet',
  'svg',
  'math',
  'canvas',
  'audio',
  'video',
  'img',
  'picture',
  'map',
  'button',
  'select',
  'hr',
  'link',
  'meta',
  'base',
];

const HTML_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  // The whole document (a fragment has no <body>); the head gives only its title (formatTitle).
  baseElements: { selectors: [], returnDomByDefault: true },
  // No silent truncation of long pages (the reader process has its own limits); a hostile nesting depth is cut.
  limits: { maxInputLength: Number.MAX_SAFE_INTEGER, maxDepth: 1000, ellipsis: '' },
  formatters: { casefileTitle: formatTitle, casefileHeading: formatHeading, casefileTable: formatTable },
  selectors: [
    ...HTML_SKIPPED.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'head', format: 'casefileTitle' },
    { selector: 'title', format: 'casefileTitle' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, format: 'casefileHeading' })),
    { selector: 'table', format: 'casefileTable' },
    { selector: 'a', options: { ignoreHref: true } },
    { selector: 'ul', options: { itemPrefix: '• ' } },
  ],
};
