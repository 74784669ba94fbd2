/**
 * Watched folders (#16): a case following its folder picks up a new file, reads a changed one as
 * version 2, marks a deleted one as removed from the folder with its stored copy kept, and at the
 * next start catches up with what changed while nothing was watching. Every wait is on what the
 * case's file list says (no fixed sleeps); the debounce and chokidar's write-finish wait are short
 * here only to keep the test quick, and no assertion depends on them.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import type { FileInfo } from '../../src/shared/contract/ingest';
import type { WatchSyncedEvent } from '../../src/shared/events';
import { tempHome } from '../helpers/home';

const FAST = { debounceMs: 100, stableMs: 200 };
const WAIT = { timeout: 60_000, interval: 100 };
const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function open(home: string, start = false): Promise<Engine> {
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false }, watch: { ...FAST, start } });
  engines.push(engine);
  return engine;
}

const files = async (engine: Engine, caseId: string): Promise<Record<string, FileInfo>> =>
  Object.fromEntries((await engine.router.call('files.list', { case_id: caseId })).files.map((f) => [f.name, f]));

describe('watched folders', () => {
  it('a followed folder: a new file is added, a changed one becomes v2, a deleted one is marked removed with its copy kept', async () => {
    const home = tempHome();
    const folder = path.join(home, 'Smith v Jones');
    mkdirSync(path.join(folder, 'medical'), { recursive: true });
    writeFileSync(
      path.join(folder, 'complaint.txt'),
      'The plaintiff Smith alleges the defendant breached the lease on 3 March 2021.\n',
    );
    const engine = await open(home);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Smith v Jones' });
    await engine.router.call('ingest.start', { case_id: caseId, paths: [folder] });

    const seen: WatchSyncedEvent[] = [];
    engine.events.on('watch.synced', (e) => seen.push(e));
    const summary = await engine.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    expect(summary.watch).toEqual({ enabled: true, folders: [folder] });
    const watch = await engine.watchService();
    await watch.start();
    expect(watch.following().get(caseId)).toEqual([folder]);

    // A new file in a subfolder: named as a drop of the folder names it, and searchable.
    writeFileSync(
      path.join(folder, 'medical', 'knee report.txt'),
      'Dr. Patel examined the claimant’s left knee on 12 June 2021.\n',
    );
    await expect
      .poll(async () => (await files(engine, caseId))['medical/knee report.txt']?.status, WAIT)
      .toBe('indexed');
    const hits = await engine.router.call('search', { case_id: caseId, query: 'Patel knee', mode: 'keyword' });
    expect(hits.results.map((r) => r.file_name)).toContain('medical/knee report.txt');

    // A changed file: version 2, the first kept.
    appendFileSync(path.join(folder, 'complaint.txt'), 'Damages of $45,000 are claimed.\n');
    await expect.poll(async () => (await files(engine, caseId))['complaint.txt']?.version, WAIT).toBe(2);
    const complaint = (await files(engine, caseId))['complaint.txt']!;
    expect(complaint.versions.map((v) => v.version)).toEqual([1, 2]);
    await expect.poll(async () => (await files(engine, caseId))['complaint.txt']?.status, WAIT).toBe('indexed');

    // A deleted file: still in the case, its stored copy readable, marked as removed from the folder.
    rmSync(path.join(folder, 'medical', 'knee report.txt'));
    await expect
      .poll(async () => (await files(engine, caseId))['medical/knee report.txt']?.source_removed, WAIT)
      .toMatch(/^\d{4}-\d\d-\d\dT/);
    const report = (await files(engine, caseId))['medical/knee report.txt']!;
    expect(report.status).toBe('indexed');
    expect((await engine.router.call('files.read', { case_id: caseId, file_id: report.id })).text).toContain(
      'Dr. Patel examined',
    );
    expect((await files(engine, caseId))['complaint.txt']!.source_removed).toBeUndefined();

    // What the CLI and the app are told: each pick-up in words.
    const all = (k: keyof Pick<WatchSyncedEvent, 'added' | 'changed' | 'removed'>) => seen.flatMap((e) => e[k]);
    // (each event follows the change it reports, so they are waited for too)
    await expect.poll(() => all('removed'), WAIT).toEqual(['medical/knee report.txt']);
    expect(all('added')).toContain('medical/knee report.txt');
    expect(all('changed')).toContain('complaint.txt');

    // Put back: the mark goes.
    writeFileSync(
      path.join(folder, 'medical', 'knee report.txt'),
      'Dr. Patel examined the claimant’s left knee on 12 June 2021.\n',
    );
    await expect
      .poll(async () => (await files(engine, caseId))['medical/knee report.txt']?.source_removed ?? 'none', WAIT)
      .toBe('none');

    // Switched off: changes are no longer picked up.
    await engine.router.call('cases.setWatch', { case_id: caseId, enabled: false });
    await expect.poll(() => watch.following().has(caseId), WAIT).toBe(false);
  });

  it('catches up at start with files added, changed and deleted while nothing was watching', async () => {
    const home = tempHome();
    const folder = path.join(home, 'Estate of Brown');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'will.txt'), 'I, Margaret Brown, leave my house to my nephew.\n');
    writeFileSync(path.join(folder, 'letter.txt'), 'Dear Mr. Brown, we enclose the valuation of the house.\n');
    const first = await open(home);
    const { id: caseId } = await first.router.call('cases.create', { name: 'Estate of Brown' });
    await first.router.call('ingest.start', { case_id: caseId, paths: [folder] });
    await first.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    await (await first.watchService()).start(); // the first catch-up records what the folder holds
    await first.close();

    // While the app is closed.
    writeFileSync(path.join(folder, 'codicil.txt'), 'A codicil: the car goes to my niece.\n');
    appendFileSync(path.join(folder, 'will.txt'), 'Signed in the presence of two witnesses.\n');
    rmSync(path.join(folder, 'letter.txt'));

    const again = await open(home, true);
    await expect.poll(async () => (await files(again, caseId))['codicil.txt']?.status, WAIT).toBe('indexed');
    await expect.poll(async () => (await files(again, caseId))['will.txt']?.version, WAIT).toBe(2);
    await expect.poll(async () => Boolean((await files(again, caseId))['letter.txt']?.source_removed), WAIT).toBe(true);
    expect((await files(again, caseId))['letter.txt']!.versions).toHaveLength(1);
  });

  it('a changed file is the only one read again: the others are not hashed, copied or counted', async () => {
    const home = tempHome();
    const folder = path.join(home, 'Harbor lease');
    mkdirSync(path.join(folder, 'letters'), { recursive: true });
    writeFileSync(
      path.join(folder, 'lease.txt'),
      'LEASE. The tenant shall pay rent of $2,000 on the first day of each month.\n',
    );
    writeFileSync(path.join(folder, 'notice.txt'), 'NOTICE. The landlord will inspect the premises on 4 May 2024.\n');
    writeFileSync(path.join(folder, 'letters', 'reply.txt'), 'Dear landlord, the inspection date suits us.\n');
    const engine = await open(home);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Harbor lease' });
    await engine.router.call('ingest.start', { case_id: caseId, paths: [folder] });
    await engine.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    const watch = await engine.watchService();
    await watch.start();

    // Every run from now on, as its progress tells it.
    const progress: { jobId: string; filesTotal: number; current: string[] }[] = [];
    engine.events.on('ingest.progress', (p) =>
      progress.push({ jobId: p.job_id, filesTotal: p.files_total, current: p.current.map((c) => c.name) }),
    );
    const synced: WatchSyncedEvent[] = [];
    engine.events.on('watch.synced', (e) => synced.push(e));

    appendFileSync(path.join(folder, 'letters', 'reply.txt'), 'We will be there at ten.\n');
    await expect.poll(async () => (await files(engine, caseId))['letters/reply.txt']?.version, WAIT).toBe(2);
    await expect.poll(async () => (await files(engine, caseId))['letters/reply.txt']?.status, WAIT).toBe('indexed');
    await expect.poll(() => synced.flatMap((e) => e.changed), WAIT).toEqual(['letters/reply.txt']);

    // One run, of one file, named as in the folder; the other files keep their one version.
    expect(new Set(progress.map((p) => p.jobId)).size).toBe(1);
    expect(new Set(progress.map((p) => p.filesTotal))).toEqual(new Set([1]));
    expect(new Set(progress.flatMap((p) => p.current))).toEqual(new Set(['letters/reply.txt']));
    expect(synced.flatMap((e) => [...e.added, ...e.removed, ...e.restored])).toEqual([]);
    const after = await files(engine, caseId);
    expect(Object.keys(after).sort()).toEqual(['lease.txt', 'letters/reply.txt', 'notice.txt']);
    expect([after['lease.txt']!.version, after['notice.txt']!.version]).toEqual([1, 1]);

    // A deleted file: marked, and nothing read.
    rmSync(path.join(folder, 'notice.txt'));
    await expect
      .poll(async () => Boolean((await files(engine, caseId))['notice.txt']?.source_removed), WAIT)
      .toBe(true);
    await expect.poll(() => synced.flatMap((e) => e.removed), WAIT).toEqual(['notice.txt']);
    expect(new Set(progress.map((p) => p.jobId)).size).toBe(1);
    expect((await files(engine, caseId))['lease.txt']!.source_removed).toBeUndefined();
  });

  it('cases.setWatch refuses a relative folder, a missing one or a file, and switching on a case that follows no folder', async () => {
    const engine = await open(tempHome());
    const { id: caseId } = await engine.router.call('cases.create', { name: 'No folders' });
    await expect(engine.router.call('cases.setWatch', { case_id: caseId, folders: ['docs/smith'] })).rejects.toThrow(
      /full path/,
    );
    await expect(engine.router.call('cases.setWatch', { case_id: caseId, enabled: true })).rejects.toThrow(
      /follows no folder yet/,
    );
    // A folder that is not there (a typo), or a file: said so, nothing followed.
    const home = engine.home;
    await expect(
      engine.router.call('cases.setWatch', { case_id: caseId, folders: [path.join(home, 'Smtih')] }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: `There is no folder at “${path.join(home, 'Smtih')}”. Check the path (copy it from your file manager), or connect the drive it is on.`,
      fields: [{ field: 'folders.0', message: expect.stringContaining('There is no folder at') }],
    });
    writeFileSync(path.join(home, 'notes.txt'), 'notes');
    await expect(
      engine.router.call('cases.setWatch', { case_id: caseId, folders: [path.join(home, 'notes.txt')] }),
    ).rejects.toThrow('is a file, not a folder. Choose the folder that holds the case’s files.');
    expect((await engine.router.call('cases.get', { case_id: caseId })).watch).toEqual({ enabled: false, folders: [] });
  });

  it('serve mode: a followed folder the server may not read is left alone, and said so', async () => {
    const home = tempHome();
    const folder = path.join(home, 'Outside');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'secret.txt'), 'Not for this server.\n');
    const engine = await open(home);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Outside' });
    await engine.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    const watch = await engine.watchService();
    watch.limitTo(async (f) => !f.startsWith(folder));
    const seen: WatchSyncedEvent[] = [];
    engine.events.on('watch.synced', (e) => seen.push(e));
    await watch.start();
    expect(watch.following().get(caseId)).toEqual([]);
    expect(seen).toEqual([
      expect.objectContaining({
        case_id: caseId,
        folder,
        problem: expect.stringContaining('this server may not read that folder'),
      }),
    ]);
    expect(await engine.router.call('files.list', { case_id: caseId })).toEqual({ files: [] });
  });
});
