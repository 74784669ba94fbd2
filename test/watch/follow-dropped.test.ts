/**
 * The desktop app follows a folder dropped into a case (src/main/follow-dropped.ts, called by main after
 * ingest.start): once the drop's run has ended, the folder is followed (switched on when the case followed
 * none); the first catch-up finds the case holding the folder as it is and reads nothing again; a case the
 * user switched off stays off when another folder is dropped.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { followDroppedFolders } from '../../src/main/follow-dropped';
import { tempHome } from '../helpers/home';

const engines: Engine[] = [];
afterEach(async () => {
  await Promise.all(engines.splice(0).map((e) => e.close()));
});

function folderWith(home: string, name: string, files: Record<string, string>): string {
  const dir = path.join(home, name);
  mkdirSync(dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(path.join(dir, f), text);
  return dir;
}

describe('desktop app: a dropped folder is followed', () => {
  it('after the drop’s run ends, the folder is followed; the first catch-up reads nothing again; switched off stays off', async () => {
    const home = tempHome();
    const engine = await Engine.open({
      home,
      ingest: { concurrency: 1, ocr: false },
      watch: { debounceMs: 100, stableMs: 200 },
    });
    engines.push(engine);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Green estate' });
    const first = folderWith(home, 'Green estate', { 'will.txt': 'I, Harold Green, leave the farm to my daughter.\n' });
    const watch = await engine.watchService();
    await watch.start();

    const input = { case_id: caseId, paths: [first], wait: false };
    const handle = await engine.router.call('ingest.start', input);
    expect(handle).toMatchObject({ state: 'running' });
    let runs = 0;
    engine.events.on('ingest.progress', (p) => {
      if (p.state === 'done') runs++;
    });
    await followDroppedFolders(engine, input, handle);
    expect(runs).toBe(1);
    expect((await engine.router.call('cases.get', { case_id: caseId })).watch).toEqual({
      enabled: true,
      folders: [first],
    });
    // The first catch-up (started by the setting) finds everything in the case: nothing is read again.
    await expect.poll(() => watch.following().get(caseId), { timeout: 30_000 }).toEqual([first]);
    // (asked while the first catch-up may still run, it answers that one's events and its own)
    const events = await watch.syncNow(caseId);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events)
      expect(e).toEqual({ case_id: caseId, folder: first, added: [], changed: [], removed: [], restored: [] });
    expect(runs).toBe(1);

    // Switched off by the user; another folder dropped: added to the list, still off.
    await engine.router.call('cases.setWatch', { case_id: caseId, enabled: false });
    const second = folderWith(home, 'Green letters', {
      'letter.txt': 'Dear Ms. Green, the farm was valued at $1.2 million.\n',
    });
    const input2 = { case_id: caseId, paths: [second] };
    await followDroppedFolders(engine, input2, await engine.router.call('ingest.start', input2));
    expect((await engine.router.call('cases.get', { case_id: caseId })).watch).toEqual({
      enabled: false,
      folders: [first, second],
    });
    // Loose files are not folders: nothing to follow.
    const loose = { case_id: caseId, paths: [path.join(second, 'letter.txt')] };
    await followDroppedFolders(engine, loose, await engine.router.call('ingest.start', loose));
    expect((await engine.router.call('cases.get', { case_id: caseId })).watch.folders).toEqual([first, second]);
  });
});
