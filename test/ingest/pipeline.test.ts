import { promises as fs, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { ChunkStore } from '../../src/core/retrieval/store';
import { CaseDocuments } from '../../src/core/documents/case-documents';
import { CasefileError } from '../../src/shared/errors';
import type { EngineEvents } from '../../src/shared/events';
import { corpusDir, tempHome } from '../helpers/home';
import { imageOnlyPdf, multiPagePdf, truncatedPdf, writeFixtureSet } from '../fixtures/pdfs';

const engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

async function setup(options: { maxFileBytes?: number } = {}) {
  const home = tempHome('casefile-ingest-');
  const engine = await Engine.open({ home, ingest: { concurrency: 2, ...options } });
  engines.push(engine);
  const c = await engine.router.call('cases.create', { name: 'Doe v. Roe' });
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  return { home, engine, caseId: c.id, drop, call: engine.router.call.bind(engine.router) };
}

const byName = <T extends { name: string }>(items: T[]) => Object.fromEntries(items.map((i) => [i.name, i]));

describe('ingest pipeline', () => {
  it('folder – every file gets a status; junk skipped; names are paths inside the folder', async () => {
    const { engine, caseId, drop, call } = await setup();
    await writeFixtureSet(drop, {
      'pleadings/lease.pdf': await multiPagePdf(3, 10),
      'pleadings/scan.pdf': await imageOnlyPdf(),
      'broken.pdf': await truncatedPdf(),
      'empty.txt': '',
      'notes.md': '# Notes\n\nCalled the landlord on March 3, 2021.\n',
      'photo.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      '.DS_Store': 'junk',
      'Thumbs.db': 'junk',
      '~$lease.docx': 'lock',
      '.hidden/secret.txt': 'hidden',
    });
    await fs.copyFile(path.join(corpusDir, 'freelaw-doctor/word-docx.docx'), path.join(drop, 'motion.docx'));
    await fs.copyFile(
      path.join(corpusDir, 'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf'),
      path.join(drop, 'locked.pdf'),
    );
    const events: EngineEvents['ingest.progress'][] = [];
    engine.events.on('ingest.progress', (p) => events.push(p));
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    if (!('results' in run)) throw new Error('expected results');
    const r = byName(run.results);
    expect(Object.keys(r).sort()).toEqual([
      'broken.pdf',
      'empty.txt',
      'locked.pdf',
      'motion.docx',
      'notes.md',
      'photo.png',
      'pleadings/lease.pdf',
      'pleadings/scan.pdf',
    ]);
    expect(r['pleadings/lease.pdf']).toMatchObject({ status: 'indexed', version: 1 });
    expect(r['motion.docx']).toMatchObject({ status: 'indexed' });
    expect(r['notes.md']).toMatchObject({ status: 'indexed' });
    // OCR is on by default; a "scan" of grey boxes has no words to read, which is said plainly.
    expect(r['pleadings/scan.pdf']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^no text found, even by OCR: the pages look blank/),
    });
    expect(r['broken.pdf']!.status).toBe('failed');
    expect(r['empty.txt']).toMatchObject({ status: 'failed', reason: 'empty file' });
    expect(r['locked.pdf']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^password protected — enter its password/),
    });
    // An image is read by OCR; this one is only the first bytes of a PNG.
    expect(r['photo.png']).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^damaged or incomplete PNG image/),
    });

    const stages = new Set(events.flatMap((e) => e.current.map((c) => c.stage)));
    for (const stage of ['hashing', 'parsing', 'chunking', 'indexing']) expect(stages).toContain(stage);
    const last = events[events.length - 1]!;
    // Failed: broken.pdf, empty.txt, locked.pdf, the blank scan (OCR found no words) and the cut photo.png.
    expect(last).toMatchObject({ state: 'done', files_done: 8, files_total: 8, errors: 5 });
    expect(last.pages_done).toBeGreaterThanOrEqual(3 + 2);

    const { files } = await call('files.list', { case_id: caseId });
    const f = byName(files);
    expect(f['pleadings/lease.pdf']).toMatchObject({
      version: 1,
      pages: 3,
      status: 'indexed',
      type: expect.any(String),
    });
    expect(f['notes.md']!.date).toBe('2021-03-03');

    // Stored originals are byte-identical; case stats count them.
    const docs = new CaseDocuments(engine.cases.caseDir(caseId));
    const lease = f['pleadings/lease.pdf']!;
    expect(await fs.readFile(await docs.originalPath(lease.id))).toEqual(
      await fs.readFile(path.join(drop, 'pleadings/lease.pdf')),
    );
    const summary = await call('cases.get', { case_id: caseId });
    expect(summary.files).toBe(8);
    expect(summary.bytes).toBeGreaterThan(1000);

    // Chunks read back through the document API: text equals the document text at its offsets.
    const text = await docs.getText(lease.id);
    const chunks = await docs.getChunks(lease.id);
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) {
      expect(c.text).toBe(text.slice(c.start, c.end));
      expect(c.chunk_id).toBe(`pleadings/lease.pdf@v1#${c.chunk_index}`);
      expect(await docs.pageOfOffset(lease.id, c.start)).toBe(c.page_start);
    }
    const read = await call('files.read', { case_id: caseId, file_id: f['motion.docx']!.id });
    expect(read.kind).toBe('docx');
    expect(read.html).toMatch(/<p>/);
    await expect(call('files.read', { case_id: caseId, file_id: f['pleadings/scan.pdf']!.id })).rejects.toMatchObject({
      code: 'unavailable',
    });
  });

  it('order – with two readers, a long file found last is started at once; the other files go as they came', async () => {
    const { engine, caseId, drop, call } = await setup();
    const notes = Object.fromEntries(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((k) => [
        `${k}-note.txt`,
        `Note ${k}: the tenant called about the heating on March 3, 2021.\n`,
      ]),
    );
    await writeFixtureSet(drop, { ...notes, 'z-long.pdf': await multiPagePdf(30, 12, 'lease') });
    const started: string[] = [];
    engine.events.on('ingest.progress', (p) => {
      for (const c of p.current) if (c.stage !== 'hashing' && !started.includes(c.name)) started.push(c.name);
    });
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    if (!('results' in run)) throw new Error('expected results');
    expect(run.results.every((r) => r.status === 'indexed')).toBe(true);
    // Not last, where the folder's order puts it (it would keep one reader busy alone at the end).
    expect(started.indexOf('z-long.pdf')).toBeLessThanOrEqual(1);
    const rest = started.filter((n) => n !== 'z-long.pdf');
    expect(rest).toEqual(Object.keys(notes).sort());
  });

  it('versions – unchanged re-ingest does no work; new bytes make v2; old versions stay readable; remove', async () => {
    const { engine, caseId, drop, call } = await setup();
    const file = path.join(drop, 'contract.txt');
    writeFileSync(file, 'The rent is 1000 dollars per month.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const parsing: string[] = [];
    engine.events.on('ingest.file', (e) => {
      if (e.status === 'parsing') parsing.push(e.name);
    });
    const again = await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect('results' in again && again.results).toEqual([
      expect.objectContaining({ name: 'contract.txt', status: 'unchanged', version: 1 }),
    ]);
    expect(parsing).toEqual([]);

    writeFileSync(file, 'The rent is 1200 dollars per month.\n');
    const v2 = await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect('results' in v2 && v2.results[0]).toMatchObject({ status: 'indexed', version: 2 });
    writeFileSync(file, 'The rent is 1500 dollars per month.\n');
    await call('ingest.start', { case_id: caseId, paths: [file] });
    const { files } = await call('files.list', { case_id: caseId });
    expect(files).toHaveLength(1);
    expect(files[0]!.version).toBe(3);
    expect(files[0]!.versions.map((v) => v.version)).toEqual([1, 2, 3]);
    const id = files[0]!.id;
    expect((await call('files.read', { case_id: caseId, file_id: id })).text).toContain('1500');
    expect((await call('files.read', { case_id: caseId, file_id: id, version: 1 })).text).toContain('1000');
    const docs = new CaseDocuments(engine.cases.caseDir(caseId));
    expect((await docs.getChunks(id, 2))[0]!.chunk_id).toBe('contract.txt@v2#0');
    expect((await docs.getChunks(id, 2))[0]!.is_latest).toBe(false);
    expect((await docs.getChunks(id))[0]!.is_latest).toBe(true);

    // Same bytes under another name: a second record sharing storage.
    writeFileSync(path.join(drop, 'copy.txt'), 'The rent is 1500 dollars per month.\n');
    await call('ingest.start', { case_id: caseId, paths: [path.join(drop, 'copy.txt')] });
    const blobs = await fs.readdir(path.join(engine.cases.caseDir(caseId), 'files'));
    expect(blobs).toHaveLength(3);

    await call('files.remove', { case_id: caseId, file_id: id, version: 2 });
    expect(
      (await call('files.list', { case_id: caseId })).files.find((f) => f.id === id)!.versions.map((v) => v.version),
    ).toEqual([1, 3]);
    await call('files.remove', { case_id: caseId, file_id: id });
    const left = (await call('files.list', { case_id: caseId })).files;
    expect(left.map((f) => f.name)).toEqual(['copy.txt']);
    // The shared original stays (copy.txt uses it); the others are gone.
    expect(await fs.readdir(path.join(engine.cases.caseDir(caseId), 'files'))).toHaveLength(1);
    await expect(fs.stat(path.join(engine.cases.caseDir(caseId), 'docs', id))).rejects.toThrow();
    await expect(call('files.remove', { case_id: caseId, file_id: id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('small files – each new file is one write to the index, no other table write; a new version still moves the latest', async () => {
    const { engine, caseId, drop, call } = await setup();
    const tableVersion = async () => {
      const store = await ChunkStore.open(engine.cases.caseDir(caseId));
      try {
        return (await (await store.table())!.version()) as number;
      } finally {
        store.close();
      }
    };
    writeFileSync(path.join(drop, 'first.txt'), 'The rent is 1000 dollars per month.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const before = await tableVersion();
    const notes = 8;
    for (let i = 0; i < notes; i++)
      writeFileSync(path.join(drop, `note-${i}.txt`), `Note ${i}: the tenant called on day ${i}.\n`);
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    // Each table write commits a version, even one that changes no row, and scans what was
    // written since the last compaction: an email export of thousands of small files went four
    // times as many writes slower. The rest is the run's compaction.
    expect((await tableVersion()) - before).toBeLessThanOrEqual(notes + 4);
    writeFileSync(path.join(drop, 'first.txt'), 'The rent is 1200 dollars per month.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const hits = await call('search', { case_id: caseId, query: 'rent dollars per month', mode: 'keyword', k: 5 });
    expect(hits.results.map((r) => r.text)).toEqual([expect.stringContaining('1200')]);
  });

  it('doc type – a user override shows in the list and reaches the index', async () => {
    const { engine, caseId, drop, call } = await setup();
    writeFileSync(path.join(drop, 'summary.txt'), 'Some words about the matter.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const [file] = (await call('files.list', { case_id: caseId })).files;
    expect(file!.type).toBe('other');
    const { file: updated } = await call('files.setType', { case_id: caseId, file_id: file!.id, type: 'invoice' });
    expect(updated.type).toBe('invoice');
    expect((await call('files.list', { case_id: caseId })).files[0]!.type).toBe('invoice');
    const index = await ChunkStore.open(engine.cases.caseDir(caseId));
    try {
      expect((await index.rows(undefined)).map((r) => r.doc_type)).toEqual(['invoice']);
    } finally {
      index.close();
    }
    await expect(call('files.setType', { case_id: caseId, file_id: file!.id, type: 'memo' })).rejects.toMatchObject({
      code: 'invalid_input',
    });
  });

  it('limits – too large fails with a reason and is not copied', async () => {
    const { engine, caseId, drop, call } = await setup({ maxFileBytes: 1000 });
    writeFileSync(path.join(drop, 'big.txt'), 'x '.repeat(1000));
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect('results' in run && run.results[0]!.status).toBe('failed');
    expect('results' in run && run.results[0]!.reason).toMatch(/^too large/);
    expect(await fs.readdir(path.join(engine.cases.caseDir(caseId), 'files'))).toEqual([]);
  });

  it('originals – a bucket that fails as a run ends: the files are indexed, and the run says their originals were not copied', async () => {
    const { engine, caseId, drop, call } = await setup();
    writeFileSync(path.join(drop, 'lease.txt'), 'The rent is 1000 dollars per month.\n');
    // The firm's storage is the boundary: here it refuses every call (the real server is in object-store.test.ts).
    const down = (): never => {
      throw new CasefileError('unavailable', 'The firm’s object storage (http://127.0.0.1:9) did not answer.');
    };
    engine.cases.originals = async () => ({
      list: async () => down(),
      put: async () => down(),
      get: async () => down(),
      removeAll: async () => down(),
    });
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect('results' in run && run.results[0]!.status).toBe('indexed');
    expect('results' in run && run.originals_error).toMatch(
      /^The files are indexed, but their originals were not copied to the firm’s object storage: .*did not answer\. The next run of this case copies them\.$/,
    );
    const found = await call('search', { case_id: caseId, query: 'rent', mode: 'keyword', k: 3 });
    expect(found.results.map((r) => r.file_name)).toEqual(['lease.txt']);
  });

  it('symlinks – links out of the dropped folder are skipped, loops end', async () => {
    const { caseId, drop, home, call } = await setup();
    const outside = path.join(home, 'outside.txt');
    writeFileSync(outside, 'outside the folder');
    writeFileSync(path.join(drop, 'inside.txt'), 'inside the folder');
    symlinkSync(outside, path.join(drop, 'out-link.txt'));
    mkdirSync(path.join(drop, 'sub'));
    symlinkSync(drop, path.join(drop, 'sub', 'loop'));
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    if (!('results' in run)) throw new Error('expected results');
    // The link out is reported, as skipped with why, and never read; the loop just ends.
    expect(run.results.map((r) => [r.name, r.status]).sort()).toEqual([
      ['inside.txt', 'indexed'],
      ['out-link.txt', 'skipped'],
    ]);
    expect(run.results.find((r) => r.name === 'out-link.txt')?.reason).toBe('link pointing outside the dropped folder');
    expect(run.skipped.map((s) => s.reason)).toEqual(['link pointing outside the dropped folder']);
  });

  it('cancel – unfinished files are marked cancelled and resume finishes them', async () => {
    const { engine, caseId, drop, call } = await setup();
    const set: Record<string, Uint8Array> = {};
    for (let i = 0; i < 4; i++) set[`doc${i}.pdf`] = await multiPagePdf(20, 30, `m${i}`);
    await writeFixtureSet(drop, set);
    const off = engine.events.on('ingest.file', (e) => {
      if (e.status === 'parsing') void call('ingest.cancel', { case_id: caseId });
    });
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    off();
    if (!('results' in run)) throw new Error('expected results');
    expect(run.state).toBe('cancelled');
    const cancelled = run.results.filter((r) => r.status === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    expect((await call('ingest.status', { case_id: caseId })).pending).toBe(cancelled.length);
    const { resumed } = await call('ingest.resume', { case_id: caseId });
    expect(resumed[0]!.state).toBe('done');
    const { files } = await call('files.list', { case_id: caseId });
    expect(files.map((f) => f.status)).toEqual(['indexed', 'indexed', 'indexed', 'indexed']);
    expect((await call('ingest.status', { case_id: caseId })).pending).toBe(0);
  });

  it('while a run works, what it will finish is not "unfinished": status gives its progress and 0 pending', async () => {
    const { engine, caseId, drop, call } = await setup();
    await writeFixtureSet(drop, { 'a.pdf': await multiPagePdf(3, 30, 'a'), 'b.pdf': await multiPagePdf(3, 30, 'b') });
    const during: Promise<{ state: string | undefined; pending: number }>[] = [];
    const off = engine.events.on('ingest.file', (e) => {
      if (e.status === 'parsing')
        during.push(
          call('ingest.status', { case_id: caseId }).then((s) => ({ state: s.progress?.state, pending: s.pending })),
        );
    });
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    off();
    if (!('results' in run)) throw new Error('expected results');
    expect(run.state).toBe('done');
    const seen = await Promise.all(during);
    expect(seen.length).toBeGreaterThan(0);
    expect(seen).toEqual(seen.map(() => ({ state: 'running', pending: 0 })));
    expect((await call('ingest.status', { case_id: caseId })).pending).toBe(0);
  });

  it('autoResume – an ingest interrupted by a killed process finishes after the next open, with no call', async () => {
    const { home, caseId, drop } = await setup();
    writeFileSync(path.join(drop, 'memo.txt'), 'The hearing is set for 3 May 2024.');
    // What a process killed mid-ingest leaves behind: its job (its pid no longer runs).
    mkdirSync(path.join(home, 'jobs'), { recursive: true });
    const job = {
      schemaVersion: 1,
      id: 'jkilled',
      caseId,
      paths: [drop],
      created: new Date().toISOString(),
      state: 'running',
      pid: 2 ** 22 + 12345,
    };
    writeFileSync(path.join(home, 'jobs', 'jkilled.json'), JSON.stringify(job));
    const reopened = await Engine.open({ home, ingest: { concurrency: 1, autoResume: true } });
    engines.push(reopened);
    // The job file goes when the resumed run has finished.
    while ((await fs.readdir(path.join(home, 'jobs'))).length) await new Promise((r) => setTimeout(r, 50));
    const { files } = await reopened.router.call('files.list', { case_id: caseId });
    expect(files.map((f) => [f.name, f.status])).toEqual([['memo.txt', 'indexed']]);
  });

  it('chunking – per-case settings change chunk size and overlap', async () => {
    const { engine, caseId, drop, call } = await setup();
    await engine.cases.updateMeta(caseId, (m) => ({
      ...m,
      settings: { ...m.settings, chunking: { size: 300, overlap: 40 } },
    }));
    writeFileSync(
      path.join(drop, 'long.txt'),
      Array.from({ length: 60 }, (_, i) => `Sentence ${i} of the statement of facts.`).join(' '),
    );
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const docs = new CaseDocuments(engine.cases.caseDir(caseId));
    const [file] = await docs.listFiles();
    const chunks = await docs.getChunks(file!.id);
    expect(chunks.length).toBeGreaterThan(5);
    for (const c of chunks) expect(c.end - c.start).toBeLessThanOrEqual(300);
  });

  it('case delete – stops the running ingest first and leaves no job behind', async () => {
    const { engine, caseId, drop, home, call } = await setup();
    const set: Record<string, Uint8Array> = {};
    for (let i = 0; i < 3; i++) set[`doc${i}.pdf`] = await multiPagePdf(15, 30, `d${i}`);
    await writeFixtureSet(drop, set);
    const started = new Promise<void>((resolve) =>
      engine.events.on('ingest.file', (e) => e.status === 'parsing' && resolve()),
    );
    const handle = await call('ingest.start', { case_id: caseId, paths: [drop], wait: false });
    expect(handle).toMatchObject({ state: 'running', case_id: caseId });
    await started;
    expect((await call('ingest.status', { case_id: caseId })).progress).toMatchObject({
      state: 'running',
      files_total: 3,
    });
    await call('cases.delete', { case_id: caseId });
    await expect(fs.stat(engine.cases.caseDir(caseId))).rejects.toThrow();
    expect(await fs.readdir(path.join(home, 'jobs'))).toEqual([]);
  });

  it('queue – a start while the case is being ingested says it waits its turn; both finish', async () => {
    const { engine, caseId, drop, call } = await setup();
    await writeFixtureSet(drop, { 'big.pdf': await multiPagePdf(15, 30, 'big') });
    const late = path.join(drop, '..', 'late');
    await writeFixtureSet(late, { 'late.txt': new TextEncoder().encode('Added while the first run works.') });
    // The second start is made as the first run reads its file, so the first is surely working.
    let secondStart: Promise<unknown> | undefined;
    engine.events.on('ingest.file', (e) => {
      if (e.status === 'parsing' && !secondStart)
        secondStart = call('ingest.start', { case_id: caseId, paths: [late], wait: false });
    });
    const ended = new Set<string>();
    engine.events.on('ingest.progress', (p) => p.state !== 'running' && ended.add(p.job_id));
    const first = await call('ingest.start', { case_id: caseId, paths: [drop], wait: false });
    expect(first).toMatchObject({ state: 'running', queued: false });
    await expect.poll(() => secondStart, { timeout: 60_000 }).toBeDefined();
    const second = await secondStart;
    expect(second).toMatchObject({ state: 'running', queued: true });
    await expect.poll(() => ended.has((second as { job_id: string }).job_id), { timeout: 60_000 }).toBe(true);
    const files = await call('files.list', { case_id: caseId });
    expect(files.files.map((f) => [f.name, f.status]).sort()).toEqual([
      ['big.pdf', 'indexed'],
      ['late.txt', 'indexed'],
    ]);
  });

  it('input – bad input is refused with the field named; unknown case is not_found', async () => {
    const { call } = await setup();
    await expect(call('ingest.start', { case_id: 'nope', paths: [] })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/paths/),
    });
    await expect(call('ingest.start', { case_id: 'c0000', paths: ['/tmp'] })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('ingest lock', () => {
  it('conflict – a case another live process is ingesting is refused with a plain reason; a dead owner is taken over', async () => {
    const { engine, caseId, drop, call, home } = await setup();
    writeFileSync(path.join(drop, 'a.txt'), 'hello there');
    const lock = path.join(engine.cases.caseDir(caseId), 'ingest.lock');
    // The parent of this test process is alive and is not us.
    writeFileSync(lock, JSON.stringify({ pid: process.ppid, started: new Date().toISOString() }));
    await expect(call('ingest.start', { case_id: caseId, paths: [drop] })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/Another Casefile process/),
    });
    expect(await fs.readdir(path.join(home, 'jobs'))).toEqual([]);
    // A lock left by a process that no longer exists is stale.
    writeFileSync(lock, JSON.stringify({ pid: 2 ** 22 + 12345, started: new Date().toISOString() }));
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect('results' in run && run.results[0]!.status).toBe('indexed');
    await expect(fs.stat(lock)).rejects.toThrow();
  });
});
