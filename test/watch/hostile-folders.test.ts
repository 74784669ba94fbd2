/**
 * Followed folders that could be turned against the app (#42): a symlink loop is followed with
 * its files read once and the watcher bounded; a tree past the walk's bounds switches following
 * off with the reason saved, and is not tried again at the next start; a followed folder swapped
 * for a link that leads out of a server's scope is refused at the next catch-up, nothing read.
 * The hang guards only turn a hang of the old code into a failure: nothing here waits on a timing.
 */
import { mkdirSync, mkdtempSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { walkPaths } from '../../src/core/util/walk';
import type { WatchSyncedEvent } from '../../src/shared/events';
import { tempHome } from '../helpers/home';

const FAST = { debounceMs: 100, stableMs: 200 };
const WAIT = { timeout: 60_000, interval: 100 };
const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

async function open(home: string, watch: Record<string, unknown> = {}): Promise<Engine> {
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false }, watch: { ...FAST, ...watch } });
  engines.push(engine);
  return engine;
}

/** `work`, or a failure once `ms` have passed: a hang guard, far beyond what the work needs. */
function hangGuard<T>(work: Promise<T>, what: string, ms = 120_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} never ended`)), ms)),
  );
  return Promise.race([work, hung]).finally(() => clearTimeout(timer));
}

/** L/a.txt, L/sub/b.txt, and two links back up: L/self → . and L/sub/back → .. */
function loopFolder(base: string): string {
  const folder = path.join(base, 'Loop matter');
  mkdirSync(path.join(folder, 'sub'), { recursive: true });
  writeFileSync(path.join(folder, 'a.txt'), 'The lease was signed on 3 March 2021.\n');
  writeFileSync(path.join(folder, 'sub', 'b.txt'), 'The tenant paid rent of $2,000 on 1 April 2021.\n');
  symlinkSync('.', path.join(folder, 'self'));
  symlinkSync('..', path.join(folder, 'sub', 'back'));
  return folder;
}

describe('followed folders that fight back', () => {
  it('a symlink loop: the folder is followed, each file read once, and changes still picked up', async () => {
    const home = tempHome();
    const folder = loopFolder(home);
    const engine = await open(home);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Loop matter' });
    await engine.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    const watch = await engine.watchService();
    await hangGuard(watch.start(), 'following a folder with a symlink loop');
    const names = async () =>
      (await engine.router.call('files.list', { case_id: caseId })).files.map((f) => f.name).sort();
    expect(await names()).toEqual(['a.txt', 'sub/b.txt']);
    expect(watch.following().get(caseId)).toEqual([folder]);
    writeFileSync(path.join(folder, 'sub', 'c.txt'), 'Notice of default served on 2 May 2021.\n');
    await expect.poll(names, WAIT).toEqual(['a.txt', 'sub/b.txt', 'sub/c.txt']);
  });

  it('a folder past the bounds: following is switched off with the reason, and not tried again at the next start', async () => {
    const home = tempHome();
    const folder = path.join(home, 'Share');
    mkdirSync(folder);
    for (let i = 0; i < 30; i++) writeFileSync(path.join(folder, `memo-${i}.txt`), `Memo ${i}.\n`);
    const bounds = { maxEntries: 20 };
    const engine = await open(home, { bounds });
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Share' });
    await engine.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    const seen: WatchSyncedEvent[] = [];
    engine.events.on('watch.synced', (e) => seen.push(e));
    await (await engine.watchService()).start();

    const summary = await engine.router.call('cases.get', { case_id: caseId });
    expect(summary.watch).toEqual({
      enabled: false,
      folders: [folder],
      problem: expect.stringContaining('too large to follow'),
    });
    expect(summary.watch.problem).toMatch(/more than 20 files and folders.*Following was switched off/);
    expect(seen).toEqual([
      expect.objectContaining({ folder, problem: expect.stringContaining('too large to follow') }),
    ]);
    expect((await engine.watchService()).following().has(caseId)).toBe(false);
    expect((await engine.router.call('files.list', { case_id: caseId })).files).toEqual([]);
    await engine.close();

    // The next start leaves it alone; switching it on again clears the reason (and tries again).
    const again = await open(home, { bounds, start: true });
    const watch = await again.watchService();
    await watch.start();
    expect(watch.following().has(caseId)).toBe(false);
    const on = await again.router.call('cases.setWatch', { case_id: caseId, enabled: true });
    expect(on.watch).toEqual({ enabled: true, folders: [folder] });
  });

  it('serve mode: a followed folder swapped for a link out of scope is refused at the next catch-up, nothing read', async () => {
    const home = tempHome();
    const allowed = path.join(home, 'allowed');
    const outside = mkdtempSync(path.join(os.tmpdir(), 'casefile-outside-'));
    writeFileSync(path.join(outside, 'secret.txt'), 'The password of the firm vault is swordfish.\n');
    const folder = path.join(allowed, 'w');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'brief.txt'), 'The brief is due on 9 June 2022.\n');
    const engine = await open(home);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Scoped' });
    await engine.router.call('cases.setWatch', { case_id: caseId, folders: [folder], enabled: true });
    const watch = await engine.watchService();
    const { inScope } = await import('../../src/server/scope');
    const scope = { uploadsDir: path.join(home, 'uploads'), allowPaths: [allowed], allowScriptedModels: false };
    watch.limitTo((f) => inScope(f, scope as Parameters<typeof inScope>[1]));
    await watch.start();
    const names = async () => (await engine.router.call('files.list', { case_id: caseId })).files.map((f) => f.name);
    expect(await names()).toEqual(['brief.txt']);

    renameSync(folder, path.join(allowed, 'w.orig'));
    symlinkSync(outside, folder);
    const [event] = await watch.syncNow(caseId);
    expect(event).toMatchObject({
      folder,
      added: [],
      removed: [],
      problem: expect.stringContaining('leads outside the folders this server may read'),
    });
    expect(await names()).toEqual(['brief.txt']);
    expect((await engine.router.call('files.list', { case_id: caseId })).files[0]!.source_removed).toBeUndefined();
    const hits = await engine.router.call('search', { case_id: caseId, query: 'swordfish vault', mode: 'keyword' });
    expect(hits.results).toEqual([]);
  });
});

describe('walkPaths bounds', () => {
  it('a loop through links ends; a tree past the entry bound or the depth bound says so', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'casefile-walk-bounds-'));
    const loop = loopFolder(base);
    const walked = await hangGuard(walkPaths([loop]), 'walking a symlink loop');
    expect(walked.files.map((f) => f.name)).toEqual(['a.txt', 'sub/b.txt']);

    const wide = path.join(base, 'wide');
    mkdirSync(wide);
    for (let i = 0; i < 12; i++) writeFileSync(path.join(wide, `f${String(i).padStart(2, '0')}.txt`), 'x');
    const cut = await walkPaths([wide], undefined, {}, { maxEntries: 10 });
    expect(cut.files).toHaveLength(10);
    expect(cut.truncated).toBe('it holds more than 10 files and folders; the rest was not read');
    expect(cut.skipped).toEqual([
      expect.objectContaining({
        name: 'wide',
        reason: 'the folder holds more than 10 files and folders; the rest was not read',
      }),
    ]);

    const deep = path.join(base, 'deep');
    mkdirSync(path.join(deep, 'a', 'b', 'c'), { recursive: true });
    writeFileSync(path.join(deep, 'a', 'top.txt'), 'x');
    writeFileSync(path.join(deep, 'a', 'b', 'c', 'bottom.txt'), 'x');
    const shallow = await walkPaths([deep], undefined, {}, { maxDepth: 2 });
    expect(shallow.files.map((f) => f.name)).toEqual(['a/top.txt']);
    expect(shallow.skipped).toEqual([
      expect.objectContaining({ name: 'a/b/c', reason: 'folders nested more than 2 deep are not read' }),
    ]);
  });
});
