/**
 * A drop while another Casefile process is adding files to the same case (issue #42, item 6): a
 * run nobody waits for (the app's drop, the served page's upload: `wait: false`) used to answer
 * "running" and then fail where no one saw it, so the file never arrived. Now it waits for the
 * other process, says so in its progress, and the file arrives once that process is done; a caller
 * that waits for the answer (the CLI) is still told at once that the case is busy.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
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
  const files = async () =>
    (await engine.router.call('files.list', { case_id: caseId })).files.map((f) => [f.name, f.status]);
  return { home, engine, caseId, drop, progress, holder, files };
}

const POLL = { timeout: 30_000, interval: 50 };

describe('a drop while another process holds the case', () => {
  it('waits for it, says so, and the file arrives once the other process is done', async () => {
    const { engine, caseId, drop, progress, holder, files } = await setup();
    // A caller that waits for the answer is told at once.
    await expect(engine.router.call('ingest.start', { case_id: caseId, paths: [drop] })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/Another Casefile process/),
    });

    const handle = await engine.router.call('ingest.start', { case_id: caseId, paths: [drop], wait: false });
    expect(handle).toMatchObject({ case_id: caseId, state: 'running' });
    const { job_id: jobId } = handle as { job_id: string };
    await expect
      .poll(() => progress.find((p) => p.job_id === jobId && p.blocked_by)?.blocked_by, POLL)
      .toEqual({
        pid: holder.pid,
        message: expect.stringMatching(
          /^Waiting for another Casefile process \(pid \d+\) that is adding files to this case/,
        ),
      });
    expect((await engine.router.call('ingest.status', { case_id: caseId })).progress?.blocked_by?.pid).toBe(holder.pid);
    expect(await files()).toEqual([]);

    await holder.release();
    await expect
      .poll(() => progress.find((p) => p.job_id === jobId && p.state !== 'running')?.state, POLL)
      .toBe('done');
    expect(progress.filter((p) => p.job_id === jobId).at(-1)!.blocked_by).toBeUndefined();
    expect(await files()).toEqual([['letter.txt', 'indexed']]);
    // Its lock went with it: the next process may take the case.
    await expect.poll(() => existsSync(path.join(engine.cases.caseDir(caseId), 'ingest.lock')), POLL).toBe(false);
  });

  it('the other process killed: its lock is taken over and the file arrives', async () => {
    const { engine, caseId, drop, progress, holder, files } = await setup();
    const { job_id: jobId } = (await engine.router.call('ingest.start', {
      case_id: caseId,
      paths: [drop],
      wait: false,
    })) as { job_id: string };
    await expect.poll(() => progress.some((p) => p.job_id === jobId && p.blocked_by), POLL).toBe(true);
    await holder.kill();
    await expect
      .poll(() => progress.find((p) => p.job_id === jobId && p.state !== 'running')?.state, POLL)
      .toBe('done');
    expect(await files()).toEqual([['letter.txt', 'indexed']]);
  });

  it('cancelled while it waits: ends as cancelled, leaves the other process its lock and no job behind', async () => {
    const { engine, home, caseId, drop, progress, holder, files } = await setup();
    const { job_id: jobId } = (await engine.router.call('ingest.start', {
      case_id: caseId,
      paths: [drop],
      wait: false,
    })) as { job_id: string };
    await expect.poll(() => progress.some((p) => p.job_id === jobId && p.blocked_by), POLL).toBe(true);
    expect(await engine.router.call('ingest.cancel', { case_id: caseId })).toEqual({
      case_id: caseId,
      cancelled: true,
    });
    await expect
      .poll(() => progress.find((p) => p.job_id === jobId && p.state !== 'running')?.state, POLL)
      .toBe('cancelled');
    const lock = path.join(engine.cases.caseDir(caseId), 'ingest.lock');
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: holder.pid });
    expect(existsSync(path.join(home, 'jobs')) ? readdirSync(path.join(home, 'jobs')) : []).toEqual([]);
    expect(await files()).toEqual([]);
  });
});

describe('a data folder shared by several machines', () => {
  /** A case and a drop of one letter, with no other process about. */
  async function sharedCase() {
    const home = tempHome('casefile-case-lease-');
    const engine = await Engine.open({ home });
    engines.push(engine);
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Shared' });
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    writeFileSync(path.join(drop, 'letter.txt'), 'The landlord received the notice on the first of May.');
    return { home, engine, caseId, drop };
  }

  it('a lock from another machine holds while its lease is renewed, and is taken over once it is not', async () => {
    const { engine, caseId, drop } = await sharedCase();
    const lock = path.join(engine.cases.caseDir(caseId), 'ingest.lock');
    // A pid that is no process here: on another machine it may well be one.
    writeFileSync(lock, JSON.stringify({ pid: 999_999, host: 'another-machine', started: new Date().toISOString() }));
    await expect(engine.router.call('ingest.start', { case_id: caseId, paths: [drop] })).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/pid 999999 on another-machine/),
    });
    // Unrenewed for two minutes: that machine's process is gone.
    const old = new Date(Date.now() - 120_000);
    utimesSync(lock, old, old);
    const run = await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
    expect('results' in run && run.results.map((r) => r.status)).toEqual(['indexed']);
    expect(existsSync(lock)).toBe(false);
  });

  it('a job another machine left is not taken up here, a job of this machine whose process is gone is', async () => {
    const { home, engine, caseId, drop } = await sharedCase();
    const jobs = path.join(home, 'jobs');
    mkdirSync(jobs, { recursive: true });
    const job = (id: string, host: string) => ({
      schemaVersion: 1,
      id,
      caseId,
      paths: [drop],
      created: new Date().toISOString(),
      state: 'running',
      pid: 999_999,
      host,
    });
    writeFileSync(path.join(jobs, 'jremote.json'), JSON.stringify(job('jremote', 'another-machine')));
    writeFileSync(path.join(jobs, 'jlocal.json'), JSON.stringify(job('jlocal', os.hostname())));
    const files = async () =>
      (await engine.router.call('files.list', { case_id: caseId })).files.map((f) => [f.name, f.status]);
    (await engine.ingestService()).startAdopting(50);
    await expect.poll(files, POLL).toEqual([['letter.txt', 'indexed']]);
    // The local orphan was taken up and its record removed; the other machine's, merged with it
    // had it been taken, is still there.
    await expect.poll(() => readdirSync(jobs), POLL).not.toContain('jlocal.json');
    expect(readdirSync(jobs)).toEqual(['jremote.json']);
  });
});
