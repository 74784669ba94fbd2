import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { tempHome } from '../helpers/home';

const engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

async function setup() {
  const home = tempHome('casefile-open-');
  const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
  engines.push(engine);
  const c = await engine.router.call('cases.create', { name: 'Doe v. Roe' });
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  return { engine, caseId: c.id, drop, call: engine.router.call.bind(engine.router) };
}

describe('open cases (one context per case in use)', () => {
  it('every feature gets the same case context; deleting the case closes its table and the case is gone', async () => {
    const { engine, caseId, drop, call } = await setup();
    writeFileSync(path.join(drop, 'notes.txt'), 'The landlord was called on March 3, 2021 about the broken heater.\n');
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const a = await engine.openCases.open(caseId);
    const b = await engine.openCases.open(caseId);
    expect(b).toBe(a);
    expect(await a.chunks()).toBe(await b.chunks());
    expect(
      (await call('search', { case_id: caseId, query: 'heater', mode: 'keyword', k: 5 })).results[0]?.text,
    ).toMatch(/broken heater/);

    await call('cases.delete', { case_id: caseId });
    await expect(engine.openCases.open(caseId)).rejects.toMatchObject({ code: 'not_found' });
    await expect(call('search', { case_id: caseId, query: 'heater', mode: 'keyword', k: 5 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('a version removed and made again under the same number is read afresh, not from the shared cache', async () => {
    const { caseId, drop, call } = await setup();
    const file = path.join(drop, 'lease.txt');
    writeFileSync(file, 'Rent is one thousand dollars a month.\n');
    await call('ingest.start', { case_id: caseId, paths: [file] });
    writeFileSync(file, 'Rent is two thousand dollars a month.\n');
    const v2 = await call('ingest.start', { case_id: caseId, paths: [file] });
    if (!('results' in v2)) throw new Error('expected results');
    const fileId = v2.results[0]!.file_id!;
    expect((await call('files.read', { case_id: caseId, file_id: fileId })).text).toMatch(/two thousand/);
    expect((await call('citations.passage', { case_id: caseId, file_id: fileId, start: 0, end: 10 })).text).toMatch(
      /two thousand/,
    );

    await call('files.remove', { case_id: caseId, file_id: fileId, version: 2 });
    writeFileSync(file, 'Rent is three thousand dollars a month.\n');
    const again = await call('ingest.start', { case_id: caseId, paths: [file] });
    if (!('results' in again)) throw new Error('expected results');
    expect(again.results[0]).toMatchObject({ file_id: fileId, version: 2, status: 'indexed' });
    expect((await call('files.read', { case_id: caseId, file_id: fileId })).text).toMatch(/three thousand/);
    expect((await call('citations.passage', { case_id: caseId, file_id: fileId, start: 0, end: 10 })).text).toMatch(
      /three thousand/,
    );
  });
});
