/**
 * A case whose index is on the firm's object storage, against a real S3-compatible server
 * (SeaweedFS on loopback, test/helpers/s3.ts): ingest, search, ask without a model, the viewer's
 * passage, delete (nothing left in the bucket), and the server stopped and started again between
 * two searches.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { toApiError } from '../../src/shared/errors';
import { CUAD_SMALL, cuadPdf, tempHome } from '../helpers/home';
import { listObjects, onCi, putObject, useObjectStore, type WeedServer, weedBinary, weedForSuite } from '../helpers/s3';

const weed = weedBinary();
const engines: Engine[] = [];
afterEach(async () => {
  for (const e of engines.splice(0)) await e.close();
});

/** A data home whose object storage is `server`, one engine on it, and a folder with two small contracts. */
async function firmHome(server: WeedServer, prefix: string) {
  const home = tempHome('casefile-s3-');
  const env = useObjectStore(home, server, prefix);
  const engine = await Engine.open({ home, env, ingest: { concurrency: 1, ocr: false } });
  engines.push(engine);
  const drop = path.join(home, 'drop');
  mkdirSync(drop);
  copyFileSync(cuadPdf(CUAD_SMALL.pcquote), path.join(drop, 'pcquote.pdf'));
  copyFileSync(cuadPdf(CUAD_SMALL.mphase), path.join(drop, 'mphase.pdf'));
  return { home, engine, call: engine.router.call.bind(engine.router), drop };
}

/** A copy of the matter file `file` whose case.json names `storage`, its manifest made to match: what a tampered file could say. */
function withStorage(file: string, storage: object): string {
  const entries = unzipSync(readFileSync(file));
  const meta = JSON.parse(strFromU8(entries['case/case.json']!)) as object;
  const json = strToU8(JSON.stringify({ ...meta, storage }));
  entries['case/case.json'] = json;
  const manifest = JSON.parse(strFromU8(entries['manifest.json']!)) as {
    files: { path: string; size: number; sha256: string }[];
  };
  const listed = manifest.files.find((f) => f.path === 'case.json')!;
  listed.size = json.length;
  listed.sha256 = createHash('sha256').update(json).digest('hex');
  entries['manifest.json'] = strToU8(JSON.stringify(manifest));
  const crafted = file.replace(/\.casefile$/, '-bucket.casefile');
  writeFileSync(crafted, zipSync(entries));
  return crafted;
}

// On CI the server must be there: a missing one fails here instead of skipping the object storage tests.
describe.skipIf(!weed && !onCi)('a case on S3-compatible object storage (SeaweedFS)', () => {
  const server = weedForSuite();

  it('ingest, search, ask and the viewer work from the bucket; deleting the case empties its folder there', async () => {
    const { home, call, drop } = await firmHome(server, 'firm-a');
    const { id: caseId } = await call('cases.create', { name: 'Co-branding' });
    const prefix = `firm-a/${caseId}/`;
    const run = await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect(run).not.toHaveProperty('originals_error');

    // The index is in the bucket under the case's folder, not in the case's local folder; the
    // originals are there too, by their sha256, and the folder keeps a copy of each.
    expect(existsSync(path.join(home, 'cases', caseId, 'lancedb'))).toBe(false);
    const keys = await listObjects(server, prefix);
    expect(keys.some((k) => k.startsWith(`${prefix}lancedb/chunks.lance/`))).toBe(true);
    const shas = ['pcquote.pdf', 'mphase.pdf'].map((f) =>
      createHash('sha256')
        .update(readFileSync(path.join(drop, f)))
        .digest('hex'),
    );
    expect(keys.filter((k) => k.startsWith(`${prefix}files/`)).sort()).toEqual(
      shas.map((sha) => `${prefix}files/${sha}`).sort(),
    );
    // This computer's copies go (another server's view of the case, or a lost disk): the viewer
    // fetches each original it needs back from the bucket.
    const copies = path.join(home, 'cases', caseId, 'files');
    rmSync(copies, { recursive: true });

    const found = await call('search', { case_id: caseId, query: 'co-branding agreement', mode: 'keyword', k: 5 });
    expect(new Set(found.results.map((r) => r.file_name))).toEqual(new Set(['pcquote.pdf', 'mphase.pdf']));

    const answer = await call('chat.ask', {
      case_id: caseId,
      question: 'Who are the parties to the co-branding agreement?',
    });
    expect(answer).toMatchObject({ answer_kind: 'extractive', model: 'none' });
    const cite = answer.citations.find((c) => c.file_id !== undefined)!;
    expect(cite).toMatchObject({ verified: true });
    const passage = await call('citations.passage', {
      case_id: caseId,
      file_id: cite.file_id!,
      version: cite.version!,
      start: cite.start!,
      end: cite.end!,
    });
    expect(passage.text.length).toBeGreaterThan(0);
    const page = await call('citations.page', {
      case_id: caseId,
      file_id: cite.file_id!,
      version: cite.version!,
      page: cite.pages![0]!,
    });
    expect(page).toMatchObject({ file_id: cite.file_id, page: cite.pages![0] });
    expect(page.png.length).toBeGreaterThan(0);
    expect(readdirSync(copies)).toHaveLength(1);

    // An original changed in the bucket behind the case's back is refused, not shown.
    const other = (await call('files.list', { case_id: caseId })).files.find((f) => f.id !== cite.file_id)!;
    const otherSha = shas.find((sha) => !readdirSync(copies).includes(sha))!;
    await putObject(server, `${prefix}files/${otherSha}`, 'not the contract');
    await expect(call('citations.page', { case_id: caseId, file_id: other.id, version: 1, page: 1 })).rejects.toThrow(
      /is not the file that was added: it was changed there/,
    );
    expect(readdirSync(copies)).toHaveLength(1);

    await call('cases.delete', { case_id: caseId });
    expect(await listObjects(server, prefix)).toEqual([]);
    await expect(call('cases.get', { case_id: caseId })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('a matter moves: exported from the bucket, worked on at a desktop, imported back as a new version kept in the bucket', async () => {
    const server1 = await firmHome(server, 'firm-m');
    const { id: caseId } = await server1.call('cases.create', { name: 'Moving' });
    await server1.call('ingest.start', { case_id: caseId, paths: [server1.drop] });
    const query = { case_id: caseId, query: 'exclusive co-branded web site', mode: 'keyword' as const, k: 5 };
    const before = (await server1.call('search', query)).results.map((r) => r.chunk_id);
    expect(before.length).toBeGreaterThan(0);

    // The matter file carries the index copied out of the bucket, and a case.json naming no bucket.
    const out = path.join(server1.home, 'moving.casefile');
    await server1.call('cases.export', { case_id: caseId, out });
    const entries = unzipSync(readFileSync(out));
    expect(Object.keys(entries).some((e) => e.startsWith('case/lancedb/chunks.lance/'))).toBe(true);
    const archived = JSON.parse(strFromU8(entries['case/case.json']!)) as Record<string, unknown>;
    expect(archived).toMatchObject({ id: caseId, name: 'Moving' });
    expect(archived).not.toHaveProperty('storage');

    // At a desktop with no object storage: the same passages, from the case's own folder. A bucket
    // written into the file's case.json is not followed (here the server's own folder of the case).
    const desktopHome = tempHome('casefile-s3-desktop-');
    const desktop = await Engine.open({ home: desktopHome, ingest: { concurrency: 1, ocr: false } });
    engines.push(desktop);
    const bucket = { kind: 's3', bucket: server.bucket, prefix: `firm-m/${caseId}` };
    await desktop.router.call('cases.import', { path: withStorage(out, bucket) });
    expect(existsSync(path.join(desktopHome, 'cases', caseId, 'lancedb'))).toBe(true);
    expect((await desktop.router.call('search', query)).results.map((r) => r.chunk_id)).toEqual(before);
    const more = path.join(desktopHome, 'more');
    mkdirSync(more);
    copyFileSync(cuadPdf(CUAD_SMALL.datacall), path.join(more, 'datacall.pdf'));
    await desktop.router.call('ingest.start', { case_id: caseId, paths: [more] });
    const worked = (await desktop.router.call('search', query)).results.map((r) => r.chunk_id);
    expect(worked.some((id) => id.startsWith('datacall.pdf'))).toBe(true);
    const back = path.join(desktopHome, 'moving-v2.casefile');
    await desktop.router.call('cases.export', { case_id: caseId, out: back });

    // Back on the server: the new version's index goes to the bucket beside the earlier version's,
    // and both answer.
    const imported = await server1.call('cases.import', { path: back });
    expect(imported.earlier).not.toBeNull();
    expect(existsSync(path.join(server1.home, 'cases', caseId, 'lancedb'))).toBe(false);
    const files = (await server1.call('files.list', { case_id: caseId })).files.map((f) => f.name);
    expect(files.sort()).toEqual(['datacall.pdf', 'mphase.pdf', 'pcquote.pdf']);
    expect((await server1.call('search', query)).results.map((r) => r.chunk_id)).toEqual(worked);
    const earlierId = imported.earlier!.id;
    expect((await server1.call('search', { ...query, case_id: earlierId })).results.map((r) => r.chunk_id)).toEqual(
      before,
    );
    const keys = await listObjects(server, 'firm-m/');
    const folders = new Set(keys.map((k) => k.split('/')[1]));
    expect(folders.size).toBe(2);
    expect(folders.has(caseId)).toBe(true);
    // Each version's originals are in its folder in the bucket: the earlier's two where they were,
    // the new version's three (the desktop's added one among them) beside them.
    const originalsIn = (folder: string) => keys.filter((k) => k.startsWith(`firm-m/${folder}/files/`));
    expect(originalsIn(caseId)).toHaveLength(2);
    expect(originalsIn([...folders].find((f) => f !== caseId)!)).toHaveLength(3);

    // Deleting the earlier version leaves the new one's index in the bucket.
    await server1.call('cases.delete', { case_id: earlierId });
    expect(await listObjects(server, `firm-m/${caseId}/`)).toEqual([]);
    expect((await server1.call('search', query)).results.map((r) => r.chunk_id)).toEqual(worked);
  });

  it('the server stops: a search says so in plain words; it starts again: the next search finds the same passages', async () => {
    const { call, drop } = await firmHome(server, 'firm-b');
    const { id: caseId } = await call('cases.create', { name: 'Restart' });
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    const query = { case_id: caseId, query: 'exclusive co-branded web site', mode: 'keyword' as const, k: 5 };
    const before = (await call('search', query)).results.map((r) => r.chunk_id);
    expect(before.length).toBeGreaterThan(0);

    await server.down();
    const refused = toApiError(await call('search', query).catch((err: unknown) => err));
    expect(refused).toEqual({
      code: 'unavailable',
      message: expect.stringMatching(
        new RegExp(
          `^The firm’s object storage \\(${server.endpoint}\\) that holds this case’s index did not answer\\.`,
        ),
      ),
    });
    await server.restart();

    expect((await call('search', query)).results.map((r) => r.chunk_id)).toEqual(before);
  });

  it('a case made before the home had object storage keeps its index in its folder', async () => {
    const home = tempHome('casefile-s3-local-');
    const local = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
    const { id: caseId } = await local.router.call('cases.create', { name: 'Local' });
    await local.close();
    const { call } = await (async () => {
      const env = useObjectStore(home, server, 'firm-c');
      const engine = await Engine.open({ home, env, ingest: { concurrency: 1, ocr: false } });
      engines.push(engine);
      return { call: engine.router.call.bind(engine.router) };
    })();
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    copyFileSync(cuadPdf(CUAD_SMALL.pcquote), path.join(drop, 'pcquote.pdf'));
    await call('ingest.start', { case_id: caseId, paths: [drop] });
    expect(existsSync(path.join(home, 'cases', caseId, 'lancedb'))).toBe(true);
    expect(await listObjects(server, `firm-c/${caseId}/`)).toEqual([]);
  });
});
