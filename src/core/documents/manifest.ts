/**
 * The file manifest of a case on disk: `files.json` (every record, rewritten atomically now and then)
 * plus `files.log` (one appended, synced line per change since), so recording one file costs the same
 * in a case of ten files as in one of ten thousand. The log names the files.json it applies to (token
 * and size) and is ignored otherwise; a line cut short by a kill was never acknowledged and is skipped.
 * Each process caches recent manifests, checked against both files' identity before every use.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { CasefileError } from '../../shared/errors';
import { KeyedQueue } from '../util/concurrency';
import { readTextIfExists, writeFileAtomic } from '../util/fs';
import type { FileManifest, FileRecord } from '../domain/index';

export const MANIFEST_FILE = 'files.json';
export const JOURNAL_FILE = 'files.log';

/** Log bytes past which a change folds the log into files.json: this, or files.json's size if larger (so each record is written a bounded number of times on average). */
const FOLD_MIN_BYTES = 1024 * 1024;
/** Cases whose manifest a process keeps in memory. */
const KEEP_CASES = 8;

/** A change to a few records of the manifest, saved as one line of the log. */
export interface ManifestChange {
  /** The record with this id, to change in place (saved when the change ends); undefined when there is none. */
  edit(id: string): FileRecord | undefined;
  /** The record with this name, to change in place; undefined when there is none. */
  editNamed(name: string): FileRecord | undefined;
  /** The record with this id as it is now, not to be changed (to follow parents, to count). */
  peek(id: string): Readonly<FileRecord> | undefined;
  /** Add a new record (its id and name must be new). */
  add(record: FileRecord): void;
  remove(id: string): void;
}

interface Loaded {
  /** Identity of files.json ('' when there is none). */
  jsonId: string;
  jsonBytes: number;
  /** The token files.json carries; the log applies only when its header names it. */
  token: string | undefined;
  /** The log's inode (0: none), the bytes of it read (whole lines), whether it applies to this files.json. */
  logIno: number;
  logOffset: number;
  logApplies: boolean;
  /** Bytes of the log's header: a log no longer than this holds no change. */
  logBase: number;
  /** Records in manifest order, and the id of each name. */
  records: Map<string, FileRecord>;
  names: Map<string, string>;
  /** The records as an array, made when asked for after a change. */
  list: FileRecord[] | undefined;
}

const queue = new KeyedQueue<string>();
/** Most recently used last. */
const loaded = new Map<string, Loaded>();

function identity(st: Stats | null): string {
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : '';
}

async function statOrNull(file: string): Promise<Stats | null> {
  try {
    return await fs.stat(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

function damaged(why: string): CasefileError {
  return new CasefileError('failed', `The file list of this case is damaged (${why}).`);
}

function index(files: FileRecord[]): Pick<Loaded, 'records' | 'names'> {
  const records = new Map<string, FileRecord>();
  const names = new Map<string, string>();
  for (const f of files) {
    records.set(f.id, f);
    if (!names.has(f.name)) names.set(f.name, f.id);
  }
  return { records, names };
}

/** Apply one log line's change; false when the line is not one (cut short, or damaged). */
function applyLine(state: Loaded, line: string): boolean {
  if (!line.trim()) return true;
  let change: { put?: FileRecord[]; del?: string[] };
  try {
    change = JSON.parse(line) as typeof change;
  } catch {
    return false;
  }
  for (const id of change.del ?? []) {
    const old = state.records.get(id);
    if (!old) continue;
    state.records.delete(id);
    if (state.names.get(old.name) === id) state.names.delete(old.name);
  }
  for (const rec of change.put ?? []) {
    const old = state.records.get(rec.id);
    if (old && old.name !== rec.name && state.names.get(old.name) === rec.id) state.names.delete(old.name);
    state.records.set(rec.id, rec);
    if (!state.names.has(rec.name)) state.names.set(rec.name, rec.id);
  }
  state.list = undefined;
  return true;
}

/** Apply the whole lines of `text` (a part of the log); returns the bytes they took. */
function applyLines(state: Loaded, text: string, first: boolean): number {
  const end = text.lastIndexOf('\n') + 1;
  const lines = text.slice(0, end).split('\n');
  lines.pop();
  let skipped = 0;
  lines.forEach((line, i) => {
    if (first && i === 0) return; // the header
    if (!applyLine(state, line)) skipped++;
  });
  if (skipped)
    console.error(
      `casefile: ${skipped} damaged ${skipped === 1 ? 'line' : 'lines'} of a case's ${JOURNAL_FILE} left out`,
    );
  return Buffer.byteLength(text.slice(0, end));
}

/** Does the log's header name this files.json? */
function logApplies(header: string, token: string | undefined, jsonBytes: number): boolean {
  if (!token) return false;
  try {
    const h = JSON.parse(header) as { base?: unknown; size?: unknown };
    return h.base === token && h.size === jsonBytes;
  } catch {
    return false;
  }
}

/** Read files.json and the log that applies to it. */
async function loadFromDisk(jsonPath: string, logPath: string): Promise<Loaded> {
  for (let attempt = 0; ; attempt++) {
    const jsonStat = await statOrNull(jsonPath);
    const text = jsonStat ? await readTextIfExists(jsonPath) : undefined;
    let m: (FileManifest & { journal?: unknown }) | undefined;
    if (text !== undefined) {
      try {
        m = JSON.parse(text) as typeof m;
      } catch (err) {
        throw damaged((err as Error).message);
      }
      if (m?.schemaVersion !== 1 || !Array.isArray(m.files))
        throw new CasefileError('failed', 'The file list of this case has an unknown format.');
    }
    const token = typeof m?.journal === 'string' ? m.journal : undefined;
    const jsonBytes = text === undefined ? 0 : Buffer.byteLength(text);
    const logStat = await statOrNull(logPath);
    const log = logStat ? ((await readTextIfExists(logPath)) ?? '') : '';
    // A fold by another process between the two reads: read both again.
    if (identity(await statOrNull(jsonPath)) !== identity(jsonStat) && attempt < 3) continue;
    const state: Loaded = {
      jsonId: identity(jsonStat),
      jsonBytes,
      token,
      logIno: logStat?.ino ?? 0,
      logOffset: 0,
      logApplies: false,
      logBase: 0,
      ...index(m?.files ?? []),
      list: undefined,
    };
    const headerEnd = log.indexOf('\n');
    state.logApplies = headerEnd > 0 && logApplies(log.slice(0, headerEnd), token, jsonBytes);
    state.logBase = Buffer.byteLength(log.slice(0, headerEnd + 1));
    state.logOffset = state.logApplies ? applyLines(state, log, true) : Buffer.byteLength(log);
    return state;
  }
}

/**
 * The manifest at `caseDir`, caught up with the disk: as kept in memory when neither file changed,
 * the log's new lines applied when only they were added, else read again. Call inside `locked`.
 */
async function current(caseDir: string): Promise<Loaded> {
  const jsonPath = path.join(caseDir, MANIFEST_FILE);
  const logPath = path.join(caseDir, JOURNAL_FILE);
  let state = loaded.get(jsonPath);
  if (state) {
    loaded.delete(jsonPath);
    const [jsonStat, logStat] = await Promise.all([statOrNull(jsonPath), statOrNull(logPath)]);
    if (
      identity(jsonStat) !== state.jsonId ||
      (logStat?.ino ?? 0) !== state.logIno ||
      (logStat?.size ?? 0) < state.logOffset
    )
      state = undefined;
    else if (logStat && logStat.size > state.logOffset) {
      const tail = await readFrom(logPath, state.logOffset, logStat.size);
      if (state.logApplies) state.logOffset += applyLines(state, tail, false);
      else state.logOffset += Buffer.byteLength(tail.slice(0, tail.lastIndexOf('\n') + 1));
    }
  }
  state ??= await loadFromDisk(jsonPath, logPath);
  loaded.set(jsonPath, state);
  if (loaded.size > KEEP_CASES) loaded.delete(loaded.keys().next().value!);
  return state;
}

async function readFrom(file: string, from: number, to: number): Promise<string> {
  const handle = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(to - from);
    const { bytesRead } = await handle.read(buf, 0, buf.length, from);
    return buf.toString('utf8', 0, bytesRead);
  } finally {
    await handle.close();
  }
}

function listOf(state: Loaded): FileRecord[] {
  return (state.list ??= [...state.records.values()]);
}

/** Run `fn` after every earlier manifest operation of the case in this process. */
function locked<T>(caseDir: string, fn: () => Promise<T>): Promise<T> {
  return queue.run(path.join(caseDir, MANIFEST_FILE), fn);
}

/** Write every record to files.json (a new token) and start an empty log for it. */
async function fold(caseDir: string, state: Loaded, files: FileRecord[]): Promise<void> {
  const jsonPath = path.join(caseDir, MANIFEST_FILE);
  const logPath = path.join(caseDir, JOURNAL_FILE);
  const token = randomBytes(8).toString('hex');
  const text = `${JSON.stringify({ schemaVersion: 1, journal: token, files }, null, 2)}\n`;
  await fs.mkdir(caseDir, { recursive: true });
  await writeFileAtomic(jsonPath, text);
  const jsonBytes = Buffer.byteLength(text);
  const header = `${JSON.stringify({ [JOURNAL_FILE]: 1, base: token, size: jsonBytes })}\n`;
  await writeFileAtomic(logPath, header);
  const [jsonStat, logStat] = await Promise.all([fs.stat(jsonPath), fs.stat(logPath)]);
  const logBase = Buffer.byteLength(header);
  Object.assign(state, {
    jsonId: identity(jsonStat),
    jsonBytes,
    token,
    logIno: logStat.ino,
    logOffset: logBase,
    logApplies: true,
    logBase,
  });
}

/** Every record, the caller's to change. */
export function readManifest(caseDir: string): Promise<FileManifest> {
  return locked(caseDir, async () => ({ schemaVersion: 1, files: structuredClone(listOf(await current(caseDir))) }));
}

/** Every record, shared with every other caller: never to be changed. */
export function sharedFiles(caseDir: string): Promise<FileRecord[]> {
  return locked(caseDir, async () => listOf(await current(caseDir)));
}

/** One record, shared: never to be changed. */
export function sharedFile(caseDir: string, id: string): Promise<FileRecord | undefined> {
  return locked(caseDir, async () => (await current(caseDir)).records.get(id));
}

/** Change any part of the manifest: every record is written again (files.json), so for changes across the case, not one file's. */
export function updateManifest<T>(caseDir: string, change: (manifest: FileManifest) => T | Promise<T>): Promise<T> {
  return locked(caseDir, async () => {
    const state = await current(caseDir);
    const manifest: FileManifest = { schemaVersion: 1, files: structuredClone(listOf(state)) };
    const result = await change(manifest);
    // Records of its own, not the ones the change may still hold.
    Object.assign(state, index(structuredClone(manifest.files)), { list: undefined });
    try {
      await fold(caseDir, state, listOf(state));
    } catch (err) {
      loaded.delete(path.join(caseDir, MANIFEST_FILE));
      throw err;
    }
    return result;
  });
}

/** Change a few records: one line appended to the log (and synced), whatever the size of the case. */
export function changeFiles<T>(caseDir: string, fn: (change: ManifestChange) => T): Promise<T> {
  return locked(caseDir, async () => {
    const state = await current(caseDir);
    const touched = new Map<string, FileRecord | null>();
    const added = new Map<string, string>();
    const edit = (id: string | undefined): FileRecord | undefined => {
      if (id === undefined) return undefined;
      if (touched.has(id)) return touched.get(id) ?? undefined;
      const rec = state.records.get(id);
      if (!rec) return undefined;
      const copy = structuredClone(rec);
      touched.set(id, copy);
      return copy;
    };
    const result = fn({
      edit,
      editNamed: (name) => edit(added.get(name) ?? state.names.get(name)),
      peek: (id) => (touched.has(id) ? (touched.get(id) ?? undefined) : state.records.get(id)),
      add: (record) => {
        touched.set(record.id, record);
        added.set(record.name, record.id);
      },
      remove: (id) => void touched.set(id, null),
    });
    if (!touched.size) return result;
    const put = [...touched.values()].filter((r): r is FileRecord => r !== null);
    const del = [...touched].filter(([, r]) => r === null).map(([id]) => id);
    await append(caseDir, state, JSON.stringify({ put, ...(del.length ? { del } : {}) }));
    return result;
  });
}

/** Append one change to the log (folding first where there is no log for this files.json), then apply it here. */
async function append(caseDir: string, state: Loaded, line: string): Promise<void> {
  if (!state.logApplies) await fold(caseDir, state, listOf(state));
  const logPath = path.join(caseDir, JOURNAL_FILE);
  const handle = await fs.open(logPath, 'a');
  let size: number;
  try {
    size = (await handle.stat()).size;
    // Bytes past the last whole line: a line a killed process left cut short. A line break ends
    // it, so this line stays whole (the cut one is skipped when read).
    const text = `${size > state.logOffset ? '\n' : ''}${line}\n`;
    await handle.write(text);
    await handle.datasync();
    size += Buffer.byteLength(text);
  } finally {
    await handle.close();
  }
  applyLine(state, line);
  state.logOffset = size;
  if (size > Math.max(FOLD_MIN_BYTES, state.jsonBytes)) await foldSafely(caseDir, state);
}

/** Fold the log into files.json; a failure leaves the log as it is (nothing is lost) and the manifest is read again. */
async function foldSafely(caseDir: string, state: Loaded): Promise<void> {
  try {
    await fold(caseDir, state, listOf(state));
  } catch (err) {
    loaded.delete(path.join(caseDir, MANIFEST_FILE));
    console.error(
      `casefile: could not fold ${JOURNAL_FILE} into ${MANIFEST_FILE} (${(err as Error).message}); the log is kept`,
    );
  }
}

/** Fold the log into files.json if it holds any change (the end of a run: programs that read files.json alone see every file). */
export function compactManifest(caseDir: string): Promise<void> {
  return locked(caseDir, async () => {
    const state = await current(caseDir);
    if (state.logApplies ? state.logOffset <= state.logBase : !state.jsonId && !state.records.size) return;
    await foldSafely(caseDir, state);
  });
}

/** The manifest as the disk holds it now, read whole past what this process keeps (another process's view). */
export async function readManifestFromDisk(caseDir: string): Promise<FileManifest> {
  const state = await loadFromDisk(path.join(caseDir, MANIFEST_FILE), path.join(caseDir, JOURNAL_FILE));
  return { schemaVersion: 1, files: listOf(state) };
}
