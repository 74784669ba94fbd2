/**
 * A drop while another Casefile process is adding files to the same case (issue #42, item 6): a
 * run nobody waits for (the app's drop, the served page's upload: `wait: false`) used to answer
 * "running" and then fail where no one saw it, so the file never arrived. Now it waits for the
 * other process, says so in its progress, and the file arrives once that process is done; a caller
 * that waits for the answer (the CLI) is still told at once that the case is busy.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import type { IngestProgress } from '../../src/shared/contract/ingest';
import { holdCase, type CaseHolder } from '../helpers/case-holder';
import { tempHome } from '../helpers/home';

const engines: Engine[] = [];
const holders: CaseHolder[] = [];
afterEach(async () => {
  for (const h of holders.splice(0)) await h.kill();
  for (const e of engines.splice(0)) await e.close();
});

async function setup() {
  const home = tempHome('casefile-case-lock-');
  const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
  engines.push(engine);
  const { id: caseId } = await engine.router.call('cases.create', { name: 'Busy' });
  const drop = path.join(home, 'drop');
  mkdirSync(drop);
  writeFileSync(path.join(drop, 'letter.txt'), 'The landlord received the notice on the first of May.');
  const progress: IngestProgress[] = [];
  engine.events.on('ingest.progress', (p) => progress.push(p));
  const holder = await holdCase(engine.cases.caseDir(caseId));
  holders.push(holder);
  const files = async () => (await engine.router.call('files.list', { caseId })).files.map((f) => [f.name, f.status]);
  return { home, engine, caseId, drop, progress, holder, files };
}

const POLL = { timeout: 30_000, interval: 50 };

describe('a drop while another process holds the case', () => {
  it('waits for it, says so, and the file arrives once the other process is done', async () => {
    const { engine, caseId, drop, progress, holder, files } = await setup();
    // A caller that waits for the answer is told at once.
    await expect(engine.router.call('ingest.start', { caseId, paths: [drop] })).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/Another Casefile process/) });

    const handle = await engine.router.call('ingest.start', { caseId, paths: [drop], wait: false });
    expect(handle).toMatchObject({ caseId, state: 'running' });
    const { jobId } = handle as { jobId: string };
    await expect.poll(() => progress.find((p) => p.jobId === jobId && p.blockedBy)?.blockedBy, POLL).toEqual({
      pid: holder.pid,
      message: expect.stringMatching(/^Waiting for another Casefile process \(pid \d+\) that is adding files to this case/),
    });
    expect((await engine.router.call('ingest.status', { caseId })).progress?.blockedBy?.pid).toBe(holder.pid);
    expect(await files()).toEqual([]);

    await holder.release();
    await expect.poll(() => progress.find((p) => p.jobId === jobId && p.state !== 'running')?.state, POLL).toBe('done');
    expect(progress.filter((p) => p.jobId === jobId).at(-1)!.blockedBy).toBeUndefined();
    expect(await files()).toEqual([['letter.txt', 'indexed']]);
    // Its lock went with it: the next process may take the case.
    await expect.poll(() => existsSync(path.join(engine.cases.caseDir(caseId), 'ingest.lock')), POLL).toBe(false);
  });

  it('the other process killed: its lock is taken over and the file arrives', async () => {
    const { engine, caseId, drop, progress, holder, files } = await setup();
    const { jobId } = (await engine.router.call('ingest.start', { caseId, paths: [drop], wait: false })) as { jobId: string };
    await expect.poll(() => progress.some((p) => p.jobId === jobId && p.blockedBy), POLL).toBe(true);
    await holder.kill();
    await expect.poll(() => progress.find((p) => p.jobId === jobId && p.state !== 'running')?.state, POLL).toBe('done');
    expect(await files()).toEqual([['letter.txt', 'indexed']]);
  });

  it('cancelled while it waits: ends as cancelled, leaves the other process its lock and no job behind', async () => {
    const { engine, home, caseId, drop, progress, holder, files } = await setup();
    const { jobId } = (await engine.router.call('ingest.start', { caseId, paths: [drop], wait: false })) as { jobId: string };
    await expect.poll(() => progress.some((p) => p.jobId === jobId && p.blockedBy), POLL).toBe(true);
    expect(await engine.router.call('ingest.cancel', { caseId })).toEqual({ caseId, cancelled: true });
    await expect.poll(() => progress.find((p) => p.jobId === jobId && p.state !== 'running')?.state, POLL).toBe('cancelled');
    const lock = path.join(engine.cases.caseDir(caseId), 'ingest.lock');
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: holder.pid });
    expect(existsSync(path.join(home, 'jobs')) ? readdirSync(path.join(home, 'jobs')) : []).toEqual([]);
    expect(await files()).toEqual([]);
  });
});
