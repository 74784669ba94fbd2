import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Engine } from '../core/engine';
import { detectKind, imageFormat, type ImageFormat, type DetectedKind } from '../core/domain/index';
import { pidAlive } from '../core/util/concurrency';
import { CaseId } from '../shared/contract/common';
import { CasefileError } from '../shared/errors';
import { parseInput } from '../shared/validate';

const OpenOriginalInput = z
  .object({ case_id: CaseId, file_id: z.string().min(1).max(100), version: z.number().int().positive().optional() })
  .strict();

/** How many bytes of the original are read to tell its format within the kind ingest detected. */
const HEAD_BYTES = 64 * 1024;

const IMAGE_EXTENSIONS: Record<ImageFormat, string[]> = {
  png: ['png'],
  jpeg: ['jpg', 'jpeg'],
  tiff: ['tif', 'tiff'],
  webp: ['webp'],
  gif: ['gif'],
  bmp: ['bmp'],
};

/**
 * Files Casefile does not read but a lawyer may still want to see in their own program: they are
 * documents or recordings that no system runs as a program. Any other unrecognised file is refused
 * (an .exe, .bat, .js, .hta or .lnk could run code when handed to the system opener).
 */
const OPENABLE_UNREAD = new Set([
  'pptx',
  'ppt',
  'odt',
  'odp',
  'key',
  'pages',
  'numbers',
  'wpd',
  'mp3',
  'm4a',
  'wav',
  'mp4',
  'mov',
  'heic',
]);

const isOle = (b: Uint8Array) => b.length >= 8 && b[0] === 0xd0 && b[1] === 0xcf && b[2] === 0x11 && b[3] === 0xe0;
const isZip = (b: Uint8Array) => b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;
const startsAscii = (b: Uint8Array, s: string) => Buffer.from(b.subarray(0, s.length)).toString('latin1') === s;

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * The extensions a stored version may be opened under, from the kind ingest detected in its content
 * (and, within a kind, the format its first bytes show); the first is the one added when the name
 * has none of them. Null: the system is not given the file.
 */
export function openExtensions(kind: DetectedKind, head: Uint8Array, name: string): string[] | null {
  switch (kind) {
    case 'pdf':
      return ['pdf'];
    case 'docx':
      return ['docx'];
    case 'image': {
      const format = imageFormat(head);
      return format ? IMAGE_EXTENSIONS[format] : null;
    }
    case 'email':
      return isOle(head) ? ['msg'] : ['eml'];
    case 'spreadsheet':
      if (isOle(head)) return ['xls'];
      if (isZip(head))
        return Buffer.from(head).includes('application/vnd.oasis.opendocument.spreadsheet') ? ['ods'] : ['xlsx'];
      return ['csv', 'tsv'];
    case 'archive':
      return ['zip'];
    case 'text':
      if (isOle(head)) return ['doc'];
      if (startsAscii(head, '{\\rtf')) return ['rtf'];
      if (detectKind(head, name).format === 'html') return ['html', 'htm'];
      return ['txt', 'text', 'md', 'markdown', 'log'];
    case 'unknown': {
      const ext = extensionOf(name);
      return OPENABLE_UNREAD.has(ext) ? [ext] : null;
    }
  }
}

/**
 * The copy's name: the stored name made safe for any file system (no path, no control or bidi
 * characters, none of Windows' reserved ones), with the detected type's extension added where the
 * name ends in another ("report.pdf.bat" → "report.pdf.bat.pdf"), so the system picks its viewer
 * by what the file is, never by what it is called.
 */
export function copyName(stored: string, version: number, extensions: string[]): string {
  const raw = path.basename(stored.replace(/\\/g, '/'));
  let base = raw
    .replace(/[\u0000-\u001f\u007f-\u009f<>:"/\\|?*\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '_')
    .replace(/[. ]+$/, '');
  if (!base || /^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i.test(base)) base = `document${base ? `_${base}` : ''}`;
  if (base.length > 120) base = `${base.slice(0, 100)}…${base.slice(-19)}`;
  const ext = extensionOf(base);
  const kept = extensions.includes(ext);
  const stem = kept ? base.slice(0, base.length - ext.length - 1) : base;
  return `${stem}${version > 1 ? ` (v${version})` : ''}.${kept ? base.slice(-ext.length) : extensions[0]!}`;
}

const COPY_DIR = /^casefile-open-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * The private copies handed to the system viewer. Each is read-only for its owner only (0o400) in
 * a folder of its own that only the owner may enter (0o700, made by mkdtemp); the folder's name
 * carries this process's id. The viewer reads the copy for as long as it shows it, so copies stay
 * while the app runs: `clear` removes this process's at quit, `sweep` at start removes those of
 * app processes that are gone (killed before they could clear).
 */
export class OpenCopies {
  private readonly dirs = new Set<string>();

  constructor(private readonly root: string = os.tmpdir()) {}

  /** Copy `original` as `name` into a new private folder; its path. */
  async make(original: string, name: string): Promise<string> {
    const dir = await fs.mkdtemp(path.join(this.root, `casefile-open-${process.pid}-`));
    this.dirs.add(dir);
    await fs.chmod(dir, 0o700);
    const copy = path.join(dir, name);
    await fs.copyFile(original, copy, fs.constants.COPYFILE_EXCL);
    if (process.platform === 'win32') {
      // Mark of the Web: Office opens the copy in Protected View and Windows checks it before running anything in it.
      await fs.writeFile(`${copy}:Zone.Identifier`, '[ZoneTransfer]\r\nZoneId=3\r\n').catch(() => undefined);
    }
    await fs.chmod(copy, 0o400);
    return copy;
  }

  /** Remove every copy this process made (at quit). */
  async clear(): Promise<void> {
    const dirs = [...this.dirs];
    this.dirs.clear();
    await Promise.all(dirs.map((d) => removeTree(d)));
  }

  /** Remove the copies of app processes no longer running, and the shared folder older versions used. */
  async sweep(): Promise<void> {
    let names: string[];
    try {
      names = await fs.readdir(this.root);
    } catch {
      return;
    }
    const uid = process.getuid?.();
    await Promise.all(
      names.map(async (name) => {
        const m = COPY_DIR.exec(name);
        if (!(m && !pidAlive(Number(m[1]))) && name !== 'casefile-open') return;
        const full = path.join(this.root, name);
        const st = await fs.lstat(full).catch(() => null);
        // Only our own folders: never a link, never another user's.
        if (!st?.isDirectory() || (uid !== undefined && st.uid !== uid)) return;
        await removeTree(full);
      }),
    );
  }
}

/** Remove a folder of read-only copies (Windows refuses to delete read-only files: they are made writable first). */
async function removeTree(dir: string): Promise<void> {
  if (process.platform === 'win32') {
    const entries = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
    await Promise.all(entries.map((e) => fs.chmod(path.join(dir, e), 0o600).catch(() => undefined)));
  }
  await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

async function readHead(file: string): Promise<Uint8Array> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await handle.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

const defaultCopies = new OpenCopies();

/**
 * Open one version of a case file in the system's default viewer. Originals are stored
 * content-addressed and must never be modified, so a private read-only copy goes to a fresh folder
 * and that copy is opened, named for the type its content was detected as: a file whose content is
 * not a document Casefile recognises (a program, a script) is refused. `open` is Electron's
 * shell.openPath (injected so this module has no electron import and can be tested).
 */
export async function openOriginalInSystemViewer(
  engine: Engine,
  input: unknown,
  open: (file: string) => Promise<string>,
  copies: OpenCopies = defaultCopies,
): Promise<{ opened: true }> {
  const { case_id: caseId, file_id: fileId, version } = parseInput(OpenOriginalInput, input);
  const docs = (await engine.openCases.open(caseId)).documents; // not_found for an unknown case
  const { file, version: v } = await docs.resolve(fileId, version);
  const original = await docs.originalPath(fileId, v.version);
  const shown = path.basename(file.name.replace(/\\/g, '/')) || 'document';
  const extensions = openExtensions(v.kind, await readHead(original), shown);
  if (!extensions) {
    throw new CasefileError(
      'failed',
      `Casefile does not open ${shown} with another program: its content is not a type of document Casefile recognises, and a file like it could run a program on this computer.`,
    );
  }
  const copy = await copies.make(original, copyName(file.name, v.version, extensions));
  const problem = await open(copy);
  if (problem) throw new CasefileError('failed', `The system could not open ${shown}: ${problem}`);
  return { opened: true };
}

/** The copies this process opened (removed at quit) and those of earlier runs (swept at start). */
export const openedCopies = defaultCopies;
