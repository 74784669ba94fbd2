import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import type { FileInfo, IngestProgress } from '../../src/shared/contract/ingest';
import { tempHome } from '../helpers/home';
import { multiPagePdf, writeFixtureSet } from '../fixtures/pdfs';

const engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

function nonDecreasing(xs: number[]): boolean {
  return xs.every((x, i) => i === 0 || x >= xs[i - 1]!);
}

describe('ingest progress per file', () => {
  it('fractions rise to 1 per stage; pagesTotal is exact once every file is opened; files.list and ingest.status show the live stage', async () => {
    const home = tempHome('casefile-progress-');
    // One lane: one file in flight, the others visibly queued or done.
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    engines.push(engine);
    const call = engine.router.call.bind(engine.router);
    const { id: caseId } = await call('cases.create', { name: 'Progress v. Bars' });
    const drop = path.join(home, 'drop');
    mkdirSync(drop, { recursive: true });
    await writeFixtureSet(drop, {
      'long.pdf': await multiPagePdf(40, 30, 'alpha'),
      'short-1.pdf': await multiPagePdf(4, 10, 'beta'),
      'short-2.pdf': await multiPagePdf(3, 10, 'gamma'),
    });

    const events: IngestProgress[] = [];
    let during: Promise<[FileInfo[], IngestProgress | null]> | undefined;
    engine.events.on('ingest.progress', (p) => {
      events.push(structuredClone(p));
      // The moment long.pdf is open (page count known, no page parsed yet), ask what the case looks like.
      if (!during && p.current.some((c) => c.name === 'long.pdf' && c.stage === 'parsing' && c.fraction === 0)) {
        during = Promise.all([
          call('files.list', { case_id: caseId }).then((r) => r.files),
          call('ingest.status', { case_id: caseId }).then((r) => r.progress),
        ]);
      }
    });

    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    if (!('results' in run)) throw new Error('expected results');
    expect(run.results.map((r) => r.status)).toEqual(['indexed', 'indexed', 'indexed']);

    // Per-file fractions of long.pdf: parsing goes 0 → … → 1 over its 40 pages; then it is written to the index.
    const ticks = events.flatMap((e) => e.current.filter((c) => c.name === 'long.pdf'));
    const parsing = ticks.filter((c) => c.stage === 'parsing' && c.fraction !== null);
    expect(parsing.length).toBeGreaterThanOrEqual(2);
    expect(parsing.every((c) => c.total === 40 && c.pages === 40 && c.file_id !== null && c.version === 1)).toBe(true);
    const pf = parsing.map((c) => c.fraction!);
    expect(pf[0]).toBe(0);
    expect(pf[pf.length - 1]).toBe(1);
    expect(nonDecreasing(pf)).toBe(true);
    expect(nonDecreasing(parsing.map((c) => c.done!))).toBe(true);
    expect(ticks.some((c) => c.stage === 'indexing')).toBe(true);
    // Vectors are the case's own stage (progress.semantic, see test/retrieval/progressive.test.ts), not a file's.
    expect(ticks.some((c) => c.stage === 'embedding')).toBe(false);
    // Stages without a count draw no fake fraction.
    expect(
      ticks.filter((c) => c.stage === 'chunking' || c.stage === 'indexing').every((c) => c.fraction === null),
    ).toBe(true);

    // Overall pages: never below pages done; flagged as an estimate until every file is opened; exact at the end.
    for (const e of events) expect(e.pages_total).toBeGreaterThanOrEqual(e.pages_done);
    expect(events.some((e) => e.state === 'running' && e.pages_estimated)).toBe(true);
    const last = events[events.length - 1]!;
    expect(last).toMatchObject({
      state: 'done',
      pages_done: 47,
      pages_total: 47,
      pages_estimated: false,
      files_done: 3,
    });
    // Time left appears by work done, on any machine: the tick that ends long.pdf's parse (40 pages, always sent) has one.
    const parsed = events.find(
      (e) =>
        e.state === 'running' &&
        e.current.some((c) => c.name === 'long.pdf' && c.stage === 'parsing' && c.fraction === 1),
    );
    expect(parsed?.eta_seconds).toEqual(expect.any(Number));

    // files.list during the run: long.pdf is parsing (not queued), with its live fraction; the others are not in flight.
    expect(during).toBeDefined();
    const [listed, status] = await during!;
    const long = listed.find((f) => f.name === 'long.pdf')!;
    // (Asked when parsing had just begun; a slow machine may have moved on to a later stage, never back to queued.)
    expect(['parsing', 'embedding', 'indexing']).toContain(long.status);
    expect(long.live?.stage).toMatch(/parsing|chunking|embedding|indexing/);
    if (long.live!.stage === 'parsing') {
      expect(long.status).toBe('parsing');
      expect(long.live!.fraction).toBeGreaterThanOrEqual(0);
      expect(long.live!.fraction).toBeLessThanOrEqual(1);
    }
    for (const f of listed.filter((x) => x.name !== 'long.pdf')) {
      expect(['queued', 'indexed']).toContain(f.status);
      expect(f.live).toBeUndefined();
    }
    expect(status?.current).toEqual([
      expect.objectContaining({ name: 'long.pdf', file_id: long.id, version: 1, pages: 40 }),
    ]);

    // After the run: the manifest's final status, no live overlay.
    const after = (await call('files.list', { case_id: caseId })).files;
    expect(after.map((f) => [f.name, f.status, f.pages, f.live])).toEqual([
      ['long.pdf', 'indexed', 40, undefined],
      ['short-1.pdf', 'indexed', 4, undefined],
      ['short-2.pdf', 'indexed', 3, undefined],
    ]);
  });

  it('a second drop while a run works waits behind it, and the running progress names what is waiting', async () => {
    const home = tempHome('casefile-progress-wait-');
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    engines.push(engine);
    const call = engine.router.call.bind(engine.router);
    const { id: caseId } = await call('cases.create', { name: 'Queue v. Later' });
    const first = path.join(home, 'Bundle');
    const second = path.join(home, 'Late letters');
    mkdirSync(first, { recursive: true });
    mkdirSync(second, { recursive: true });
    await writeFixtureSet(first, { 'long.pdf': await multiPagePdf(60, 30, 'alpha') });
    await writeFixtureSet(second, { 'letter.txt': 'The landlord wrote on 3 March about the deposit.' });

    const events: IngestProgress[] = [];
    let late: Promise<unknown> | undefined;
    engine.events.on('ingest.progress', (p) => {
      events.push(structuredClone(p));
      // Once the first run is under way, drop the second folder.
      if (!late && p.state === 'running' && p.current.length > 0)
        late = call('ingest.start', { case_id: caseId, paths: [second] });
    });
    const run1 = await call('ingest.start', { case_id: caseId, paths: [first] });
    const run2 = await late!;
    expect(run1).toMatchObject({ results: [expect.objectContaining({ name: 'long.pdf', status: 'indexed' })] });
    expect(run2).toMatchObject({ results: [expect.objectContaining({ name: 'letter.txt', status: 'indexed' })] });

    const jobs = [...new Set(events.map((e) => e.job_id))];
    expect(jobs).toHaveLength(2);
    const ofFirst = events.filter((e) => e.job_id === jobs[0]);
    const ofSecond = events.filter((e) => e.job_id === jobs[1]);
    // The first run says the second folder waits behind it; the second run, once it runs, has nothing behind it.
    expect(ofFirst.some((e) => e.state === 'running' && e.waiting.includes('Late letters'))).toBe(true);
    expect(ofFirst[0]!.waiting).toEqual([]);
    expect(ofSecond.every((e) => e.waiting.length === 0)).toBe(true);
    // Strictly one after the other: the second run starts only when the first has ended.
    const firstEnd = events.findIndex((e) => e.job_id === jobs[0] && e.state !== 'running');
    const secondStart = events.findIndex((e) => e.job_id === jobs[1]);
    expect(firstEnd).toBeGreaterThanOrEqual(0);
    expect(secondStart).toBeGreaterThan(firstEnd);
  });
});
