/**
 * The file manifest of a case (files.json and its log, cases/manifest.ts): recording one file
 * appends a line instead of writing every record again, and a kill at any point loses nothing
 * that was recorded and leaves a case that reads.
 */
import { promises as fs, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readManifestFromDisk } from '../../src/core/documents/manifest';
import { CaseStore, JOURNAL_FILE, MANIFEST_FILE } from '../../src/core/documents/case-store';
import type { FileRecord } from '../../src/core/domain/types';
import { tempHome } from '../helpers/home';

function record(i: number): FileRecord {
  return {
    id: `f${String(i).padStart(6, '0')}`,
    name: `folder/note-${i}.txt`,
    doc_type_override: null,
    versions: [
      {
        version: 1,
        sha256: 'a'.repeat(64),
        size: 100 + i,
        kind: 'text',
        pages: 1,
        status: 'queued',
        reason: '',
        doc_type: 'other',
        doc_date: '',
        ingested_at: '2024-01-01T00:00:00.000Z',
        empty_pages: [],
        chunks: 0,
      },
    ],
  };
}

async function caseWith(count: number): Promise<{ dir: string; store: CaseStore }> {
  const dir = path.join(tempHome('casefile-manifest-'), 'case');
  const store = new CaseStore(dir);
  await store.update((m) => {
    for (let i = 0; i < count; i++) m.files.push(record(i));
  });
  return { dir, store };
}

/** Record file `i` as indexed, as a run does when a file is done. */
const finish = (store: CaseStore, i: number) =>
  store.change((tx) => {
    const v = tx.edit(record(i).id)!.versions[0]!;
    Object.assign(v, { status: 'indexed', chunks: 3, ingested_at: new Date().toISOString() });
  });

describe('the file manifest', () => {
  it('recording a file in a case of 5,000 files appends about one record to the log; files.json is not written again', async () => {
    const { dir, store } = await caseWith(5000);
    const json = path.join(dir, MANIFEST_FILE);
    const before = statSync(json);
    const logBefore = statSync(path.join(dir, JOURNAL_FILE)).size;
    for (let i = 0; i < 200; i++) await finish(store, i);
    const after = statSync(json);
    expect([after.ino, after.size, after.mtimeMs]).toEqual([before.ino, before.size, before.mtimeMs]);
    // Each change costs its own record (a few hundred bytes), not the 5,000 others.
    const perFile = (statSync(path.join(dir, JOURNAL_FILE)).size - logBefore) / 200;
    expect(perFile).toBeLessThan(2 * JSON.stringify(record(0)).length);
    // Another process (reading from disk) sees every change.
    const disk = await readManifestFromDisk(dir);
    expect(disk.files).toHaveLength(5000);
    expect(disk.files.filter((f) => f.versions[0]!.status === 'indexed')).toHaveLength(200);
  });

  it('folding the log at the end leaves files.json complete on its own (as older versions read it)', async () => {
    const { dir, store } = await caseWith(10);
    for (let i = 0; i < 4; i++) await finish(store, i);
    await store.compactManifest();
    const json = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as {
      schemaVersion: number;
      files: FileRecord[];
    };
    expect(json.schemaVersion).toBe(1);
    expect(json.files.filter((f) => f.versions[0]!.status === 'indexed').map((f) => f.id)).toEqual([
      'f000000',
      'f000001',
      'f000002',
      'f000003',
    ]);
    expect(readFileSync(path.join(dir, JOURNAL_FILE), 'utf8').trim().split('\n')).toHaveLength(1); // the header only
  });

  it('a line a kill cut short is left out, and the next change after it is kept whole', async () => {
    const { dir, store } = await caseWith(10);
    await finish(store, 0);
    const log = path.join(dir, JOURNAL_FILE);
    // A kill in the middle of writing the next line.
    await fs.appendFile(log, '{"put":[{"id":"f000001","name":"folder/no');
    expect((await readManifestFromDisk(dir)).files.filter((f) => f.versions[0]!.status === 'indexed')).toHaveLength(1);
    await finish(store, 2);
    const disk = await readManifestFromDisk(dir);
    expect(disk.files.filter((f) => f.versions[0]!.status === 'indexed').map((f) => f.id)).toEqual([
      'f000000',
      'f000002',
    ]);
    expect((await store.readManifest()).files.filter((f) => f.versions[0]!.status === 'indexed')).toHaveLength(2);
  });

  it('a fold killed between its two writes, or a files.json an older version wrote since, leaves the old log out and loses nothing', async () => {
    const { dir, store } = await caseWith(10);
    for (let i = 0; i < 3; i++) await finish(store, i);
    const log = path.join(dir, JOURNAL_FILE);
    const oldLog = readFileSync(log);
    // The fold wrote files.json (every change in it), then the process died before the new log.
    await store.compactManifest();
    writeFileSync(log, oldLog);
    expect((await readManifestFromDisk(dir)).files.filter((f) => f.versions[0]!.status === 'indexed')).toHaveLength(3);
    // An older version of the app removes a file and rewrites files.json (keeping the token it does not know).
    const json = path.join(dir, MANIFEST_FILE);
    const m = JSON.parse(readFileSync(json, 'utf8')) as { files: FileRecord[] };
    await finish(store, 5);
    m.files = m.files.filter((f) => f.id !== 'f000009');
    writeFileSync(json, `${JSON.stringify(m, null, 2)}\n`);
    const disk = await readManifestFromDisk(dir);
    expect(disk.files.map((f) => f.id)).not.toContain('f000009');
    expect((await store.files()).map((f) => f.id)).not.toContain('f000009');
  });

  it('another process appending to the log is caught up with; a change that throws writes nothing', async () => {
    const { dir, store } = await caseWith(3);
    expect((await store.file('f000001'))!.versions[0]!.status).toBe('queued');
    const line = { put: [{ ...record(1), versions: [{ ...record(1).versions[0]!, status: 'indexed' }] }] };
    await fs.appendFile(path.join(dir, JOURNAL_FILE), `${JSON.stringify(line)}\n`);
    expect((await store.file('f000001'))!.versions[0]!.status).toBe('indexed');
    const size = statSync(path.join(dir, JOURNAL_FILE)).size;
    await expect(
      store.change((tx) => {
        tx.edit('f000002')!.name = 'renamed.txt';
        throw new Error('no');
      }),
    ).rejects.toThrow('no');
    expect(statSync(path.join(dir, JOURNAL_FILE)).size).toBe(size);
    expect((await store.file('f000002'))!.name).toBe('folder/note-2.txt');
  });
});
