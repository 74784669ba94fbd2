/**
 * Brings a case's index up to the current chunking and names without reading its files again: each
 * version's stored text gives its structure, profile and doc type again (the user's type still wins),
 * and its chunks are cut, embedded and swapped in. A version is done when its rows carry contexts and
 * its profile has the current `NAMES_FORMAT`, so a killed upgrade resumes where it stopped; unchanged
 * passages keep their rows and vectors. Runs in the case's queue under the case lock, like ingest.
 */
import type { ReindexResult } from '../../shared/contract/ingest';
import type { IndexProgressEvent } from '../../shared/events';
import type { IndexLocation } from '../cases/index';
import { createIndexSink } from '../retrieval/sink';
import { ChunkStore } from '../retrieval/store';
import { type CaseDocuments, CaseStore, compactChunks, latestVersion, type StoredChunk } from '../documents/index';
import type { IngestPorts } from './ports';
import { chunkingOf, guessDocType, NAMES_FORMAT, chunkDocument, structureOf } from '../text/index';
import type { DocType, FileRecord, PageIndex, VersionRecord } from '../domain/index';

const READABLE = new Set(['indexed', 'unchanged']);

/** Readable versions whose index rows have no context yet or whose names older rules made (all readable versions with `all`). */
async function versionsToDo(
  caseDir: string,
  index: IndexLocation | undefined,
  files: FileRecord[],
  all: boolean,
): Promise<{ file: FileRecord; version: VersionRecord; namesOnly?: boolean }[]> {
  const readable = files.flatMap((file) =>
    file.versions.filter((v) => READABLE.has(v.status)).map((version) => ({ file, version })),
  );
  if (all) return readable;
  const store = await ChunkStore.open(index ?? caseDir);
  let stale: Set<string>;
  try {
    stale = await store.versionsWithoutContext();
  } finally {
    store.close();
  }
  const artifacts = new CaseStore(caseDir);
  const named = await Promise.all(
    readable.map(
      async ({ file, version }) =>
        ((await artifacts.readStructure(file.id, version.version).catch(() => undefined))?.profile?.names ?? 0) >=
        NAMES_FORMAT,
    ),
  );
  // Rows with contexts, named by older rules: only the names may have to change.
  return readable.flatMap((r, i) =>
    stale.has(`${r.file.id}@${r.version.version}`) ? [r] : named[i] ? [] : [{ ...r, namesOnly: true }],
  );
}

/** Whether the stored passages are these, each with the same context (then the index's rows are too). */
function sameRows(stored: StoredChunk[] | undefined, chunks: StoredChunk[]): boolean {
  return (
    stored !== undefined &&
    stored.length === chunks.length &&
    stored.every(
      (c, i) =>
        c.s === chunks[i]!.s &&
        c.e === chunks[i]!.e &&
        c.h === chunks[i]!.h &&
        c.c !== undefined &&
        c.c === chunks[i]!.c,
    )
  );
}

/** The doc type from the stored text's first page, as ingest decides it (an email stays correspondence). */
function typeFromText(file: FileRecord, version: VersionRecord, text: string, index: PageIndex): DocType {
  if (version.email) return 'correspondence';
  const first = index.pages.find((p) => p.end > p.start);
  return guessDocType(
    file.name,
    first ? text.slice(first.start, Math.max(first.end, first.start + 3000)) : text.slice(0, 3000),
  );
}

export async function reindexCase(
  ports: Pick<IngestPorts, 'cases' | 'events' | 'indexSinkOptions'>,
  caseId: string,
  documents: CaseDocuments,
  opts: { all?: boolean; signal?: AbortSignal } = {},
): Promise<ReindexResult> {
  const caseDir = ports.cases.caseDir(caseId);
  const store = new CaseStore(caseDir);
  const files = (await store.readManifest()).files;
  const chunking = chunkingOf((await ports.cases.readMeta(caseId)).settings);
  const sinkOptions = await ports.indexSinkOptions(caseId);
  const todo = await versionsToDo(caseDir, sinkOptions.index, files, opts.all === true);
  const readable = files.reduce((n, f) => n + f.versions.filter((v) => READABLE.has(v.status)).length, 0);
  const result: ReindexResult = { case_id: caseId, versions: 0, chunks: 0, current: readable - todo.length };
  if (todo.length === 0) return result;
  const emit = (e: Omit<IndexProgressEvent, 'case_id' | 'total'>) =>
    ports.events.emit('index.progress', { case_id: caseId, total: todo.length, ...e });
  const sink = await createIndexSink(sinkOptions);
  try {
    for (const { file, version, namesOnly } of todo) {
      opts.signal?.throwIfAborted();
      emit({ done: result.versions, file: file.name, state: 'running' });
      const [text, index, html] = await Promise.all([
        store.readText(file.id, version.version),
        store.readPages(file.id, version.version),
        store.readHtml(file.id, version.version),
      ]);
      if (text === undefined || index === undefined) continue; // artifacts gone: `files.retry` reads it again
      const structure = structureOf(text, index, file.name, html, { subject: version.email?.subject });
      const latest = latestVersion(file)?.version === version.version;
      const guessed = typeFromText(file, version, text, index);
      const docType = file.doc_type_override ?? guessed;
      // A court paper is dated by the date decided its caption gives (as ingest dates it now).
      const docDate = (!version.email && structure.profile.decided) || version.doc_date;
      const chunks = chunkDocument(
        { text, index },
        { fileId: file.id, name: file.name, version: version.version, isLatest: latest, docType, docDate },
        chunking,
        structure,
      );
      const compact = compactChunks(chunks);
      // Named again only (the same passages and contexts, the same type): its rows and vectors stand.
      const same =
        namesOnly === true &&
        docType === (file.doc_type_override ?? version.doc_type) &&
        docDate === version.doc_date &&
        sameRows(await store.readStoredChunks(file.id, version.version), compact);
      await store.writeChunking(file.id, version.version, structure, compact);
      documents.invalidate(file.id);
      if (!same) await sink.indexVersion(chunks, opts.signal ? { signal: opts.signal } : {});
      await store.change((tx) => {
        const v = tx.edit(file.id)?.versions.find((x) => x.version === version.version);
        if (v) {
          v.chunks = chunks.length;
          v.doc_type = guessed;
          v.doc_date = docDate;
        }
      });
      result.versions++;
      result.chunks += chunks.length;
    }
    await store.compactManifest();
  } finally {
    await sink.close();
  }
  emit({ done: result.versions, file: null, state: 'done' });
  ports.events.emit('cases.changed', { case_id: caseId, kind: 'files' });
  return result;
}
