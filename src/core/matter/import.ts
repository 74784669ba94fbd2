/**
 * `cases.import`: a matter file back into a case. Everything is assembled in a staging folder
 * inside the data home (a sealed file is opened into it first), every entry's path is checked to
 * stay inside the case, every file's size and SHA-256 against the manifest, and only then is the
 * case moved into place in one rename. Any refusal removes the staging folder: nothing is left
 * half-imported. A matter whose case is already here replaces it, the one replaced kept as an
 * earlier version under a new id.
 */
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MatterImport } from '../../shared/contract/matter';
import { CasefileError } from '../../shared/errors';
import {
  bucketOriginals,
  CaseMeta,
  caseIndexLocation,
  type IndexLocation,
  newCaseStorage,
  type RemoteOriginals,
} from '../cases/index';
import { CaseStore } from '../documents/index';
import { ChunkStore } from '../retrieval/store';
import { readJson, writeJsonAtomic } from '../util/fs';
import { ChunkOpener, ENCRYPTED_MAGIC, HEADER_BYTES } from './crypto';
import { CASE_PREFIX, MANIFEST_ENTRY, type Manifest, parseManifest, safeCasePath } from './manifest';
import type { MatterPorts } from './ports';
import { fingerprinting, Progress } from './progress';
import { MatterZip, type ZipEntry } from './zip-read';

const ZIP_MAGIC = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const FOREIGN =
  'This is not a Casefile matter file. Choose a matter file (its name ends in .casefile) made by “Export matter”.';
const refuse = (why: string): CasefileError => new CasefileError('invalid_input', why);

/** Whether the file is a plain zip or a sealed one, from its first bytes. */
async function kindOf(file: string): Promise<'zip' | 'sealed'> {
  const st = await fs.stat(file).catch(() => null);
  if (!st) throw new CasefileError('not_found', `There is no file at “${file}”.`);
  if (!st.isFile()) throw refuse(`“${file}” is not a file. Choose the matter file itself.`);
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(8);
    const { bytesRead } = await handle.read(head, 0, 8, 0);
    if (bytesRead >= 4 && head.subarray(0, 4).equals(ZIP_MAGIC)) return 'zip';
    if (bytesRead === 8 && head.equals(ENCRYPTED_MAGIC)) return 'sealed';
    throw refuse(bytesRead === 0 ? 'This matter file is empty.' : FOREIGN);
  } finally {
    await handle.close();
  }
}

/** Open a sealed matter file into a plain zip at `out`, checking every chunk on the way. */
async function unseal(file: string, passphrase: string | undefined, out: string): Promise<void> {
  if (!passphrase)
    throw CasefileError.withRemedy('invalid_input', 'This matter file is locked with a passphrase.', {
      app: 'Type the passphrase it was exported with.',
      cli: 'Give its passphrase: add --passphrase-stdin and type it (or pipe it in).',
    });
  const handle = await fs.open(file, 'r');
  const header = Buffer.alloc(HEADER_BYTES);
  const { bytesRead } = await handle.read(header, 0, HEADER_BYTES, 0).finally(() => handle.close());
  const opener = await ChunkOpener.create(header.subarray(0, bytesRead), passphrase);
  const open = new Transform({
    transform(chunk: Buffer, _enc, done) {
      try {
        for (const plain of opener.push(chunk)) this.push(plain);
        done();
      } catch (err) {
        done(err as Error);
      }
    },
    flush(done) {
      try {
        done(null, opener.final());
      } catch (err) {
        done(err as Error);
      }
    },
  });
  await pipeline(createReadStream(file, { start: HEADER_BYTES }), open, createWriteStream(out, { flags: 'wx' }));
}

/** The zip's entries by their path in the case, with the manifest read and checked against them. */
async function checkedEntries(zip: MatterZip): Promise<{ manifest: Manifest; byPath: Map<string, ZipEntry> }> {
  const manifestEntry = zip.entries.find((e) => e.name === MANIFEST_ENTRY);
  if (!manifestEntry) throw refuse('This is a zip file, but not a Casefile matter file (it has no list of contents).');
  const byPath = new Map<string, ZipEntry>();
  for (const e of zip.entries) {
    if (e === manifestEntry) continue;
    const rel = e.name.startsWith(CASE_PREFIX) ? e.name.slice(CASE_PREFIX.length) : '';
    if (!safeCasePath(rel))
      throw refuse(`This matter file holds “${e.name}”, a path that would land outside the case; it was refused.`);
    if (byPath.has(rel.toLowerCase())) throw refuse(`This matter file holds “${rel}” twice; it was refused.`);
    byPath.set(rel.toLowerCase(), e);
  }
  const chunks: Buffer[] = [];
  try {
    for await (const c of await zip.stream(manifestEntry, 64 * 1024 * 1024)) chunks.push(c as Buffer);
  } catch (err) {
    if (err instanceof CasefileError) throw err;
    throw refuse(
      'This matter file’s list of contents is damaged, so nothing in it can be checked. Ask for a fresh copy.',
    );
  }
  const manifest = parseManifest(Buffer.concat(chunks).toString('utf8'));
  const listed = new Set(manifest.files.map((f) => f.path.toLowerCase()));
  for (const f of manifest.files)
    if (!byPath.has(f.path.toLowerCase()))
      throw refuse(`This matter file is missing “${f.path}”, which its list of contents names.`);
  for (const [rel, e] of byPath)
    if (!listed.has(rel)) throw refuse(`This matter file holds “${e.name}”, which its list of contents does not name.`);
  return { manifest, byPath };
}

/** Write every listed file under `dir`, each checked for its size and SHA-256 as it is written. */
async function extract(
  zip: MatterZip,
  checked: Awaited<ReturnType<typeof checkedEntries>>,
  dir: string,
  progress: Progress,
) {
  for (const f of checked.manifest.files) {
    const entry = checked.byPath.get(f.path.toLowerCase())!;
    const target = path.join(dir, ...f.path.split('/'));
    await fs.mkdir(path.dirname(target), { recursive: true });
    const { stream: count, result } = fingerprinting(progress);
    const data = await zip.stream(entry, f.size);
    await pipeline(data, count, createWriteStream(target, { flags: 'wx' })).catch((err) => {
      if (err instanceof CasefileError) throw err;
      throw refuse(`“${f.path}” in this matter file is damaged (${(err as Error).message}). Ask for a fresh copy.`);
    });
    const { size, sha256 } = result();
    if (size !== f.size || sha256 !== f.sha256)
      throw refuse(
        `“${f.path}” in this matter file does not match its fingerprint: it was changed or damaged after export.`,
      );
  }
}

/** Check the zip at `zipFile` against its manifest and write its files under `caseDir`. */
async function unpack(ports: MatterPorts, zipFile: string, caseDir: string) {
  const zip = await MatterZip.open(zipFile);
  try {
    const checked = await checkedEntries(zip);
    const total = checked.manifest.files.reduce((n, f) => n + f.size, 0);
    const progress = new Progress(ports.events, checked.manifest.case.id, 'import', total);
    await fs.mkdir(caseDir);
    await extract(zip, checked, caseDir, progress);
    return { manifest: checked.manifest, progress };
  } finally {
    zip.close();
  }
}

/** The staged case.json, checked to be the manifest's case; following folders is turned off (they are another computer's). */
async function stagedMeta(dir: string, manifest: Manifest): Promise<CaseMeta> {
  const parsed = CaseMeta.safeParse(await readJson(path.join(dir, 'case.json')).catch(() => undefined));
  if (!parsed.success || parsed.data.id !== manifest.case.id)
    throw refuse('This matter file’s case.json is damaged or names another case; it was refused.');
  // A bucket named in the file is never followed: the matter's index is the one it carries.
  const { storage, ...meta } = parsed.data;
  const watch = meta.settings.watch as { enabled?: unknown; folders?: unknown } | undefined;
  if (watch?.enabled === true) meta.settings = { ...meta.settings, watch: { ...watch, enabled: false } };
  if (storage || watch?.enabled === true) await writeJsonAtomic(path.join(dir, 'case.json'), meta);
  return meta;
}

/**
 * On a home whose cases keep their index on the firm's object storage, the staged case's index
 * and originals go there too, as a new case's would: under the case's own folder in the bucket,
 * or a fresh one beside it where a version it replaces (or anything else) is already there.
 * Returns what was written, to be removed if the import fails after this.
 */
async function toBucket(
  ports: MatterPorts,
  dir: string,
  meta: CaseMeta,
): Promise<{ location: IndexLocation; originals: RemoteOriginals } | null> {
  const store = await ports.cases.objectStorage();
  if (!store) return null;
  const here = await ports.cases.readMeta(meta.id).catch(() => null);
  const own = newCaseStorage(store, meta.id)!;
  const free = here?.storage?.prefix !== own.prefix && (await ChunkStore.isEmpty(caseIndexLocation(dir, own, store)));
  const storage = free ? own : { ...own, prefix: `${own.prefix}-${Date.now().toString(36)}` };
  const location = caseIndexLocation(dir, storage, store);
  const originals = await bucketOriginals(store, storage);
  if (await fs.stat(path.join(dir, 'lancedb')).catch(() => null)) await ChunkStore.copy(dir, location);
  await new CaseStore(dir, async () => originals).syncOriginals();
  await fs.rm(path.join(dir, 'lancedb'), { recursive: true, force: true });
  await writeJsonAtomic(path.join(dir, 'case.json'), { ...meta, storage });
  return { location, originals };
}

/** Chats name their case: the earlier version's chats are renamed with it. */
async function renameChats(caseDir: string, from: string, to: string): Promise<void> {
  const dir = path.join(caseDir, 'chats');
  for (const name of await fs.readdir(dir).catch(() => [] as string[])) {
    if (!name.endsWith('.json')) continue;
    const chat = (await readJson(path.join(dir, name)).catch(() => undefined)) as { caseId?: unknown } | undefined;
    if (chat?.caseId === from) await writeJsonAtomic(path.join(dir, name), { ...chat, caseId: to });
  }
}

/**
 * Move the staged case into place. A case already here with its id is first stopped (its ingest
 * cancelled, its index closed) and, under its lock, kept as an earlier version under a new id.
 */
async function installCase(ports: MatterPorts, staged: string, caseId: string) {
  const here = await ports.cases.readMeta(caseId).catch(() => null);
  if (!here) {
    const installed = await ports.cases.install(staged, caseId);
    ports.events.emit('cases.changed', { case_id: caseId, kind: 'imported' });
    return { installed, earlier: null };
  }
  await ports.beforeCaseReplace(caseId);
  const moved = await ports.exclusive(caseId, async () => {
    const earlier = await ports.cases.keepAsEarlier(caseId);
    const earlierDir = ports.cases.caseDir(earlier.id);
    // The lock taken here moved with the folder; the earlier version is not being written.
    await fs.rm(path.join(earlierDir, 'ingest.lock'), { force: true });
    await renameChats(earlierDir, caseId, earlier.id);
    return { earlier, installed: await ports.cases.install(staged, caseId) };
  });
  ports.events.emit('cases.changed', { case_id: moved.earlier.id, kind: 'created' });
  ports.events.emit('cases.changed', { case_id: caseId, kind: 'imported' });
  return moved;
}

export async function importMatter(ports: MatterPorts, file: string, passphrase?: string): Promise<MatterImport> {
  const source = path.resolve(file);
  const kind = await kindOf(source);
  const staging = await ports.cases.newStaging();
  try {
    const zipFile = kind === 'zip' ? source : path.join(staging, 'matter.zip');
    if (kind === 'sealed') await unseal(source, passphrase, zipFile);
    const caseDir = path.join(staging, 'case');
    const { manifest, progress } = await unpack(ports, zipFile, caseDir);
    const bucket = await toBucket(ports, caseDir, await stagedMeta(caseDir, manifest));
    const { installed, earlier } = await installCase(ports, caseDir, manifest.case.id).catch(async (err) => {
      if (bucket)
        await Promise.all([ChunkStore.drop(bucket.location), bucket.originals.removeAll()]).catch(() => undefined);
      throw err;
    });
    progress.done();
    return {
      case: installed,
      earlier,
      files: manifest.files.length,
      encrypted: kind === 'sealed',
      exported_at: manifest.exported_at,
      casefile_version: manifest.casefile_version,
    };
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
