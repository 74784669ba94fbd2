/**
 * Moving a matter: a case ingested for real (a CUAD contract and a dated letter), with a chat and a
 * chronology mark, exported as one file and imported into other data homes. What comes back must
 * answer searches with the same passages and hold the same chats and marks, without re-ingesting;
 * a damaged, cut-short, foreign or hostile file must be refused with nothing left behind.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { HEADER_BYTES } from '../../src/core/matter/crypto';
import { holdCase } from '../helpers/case-holder';
import { CUAD_SMALL, cuadPdf } from '../helpers/home';

const LETTER = [
  'Dear Ms. Alvarez,',
  'On 3 March 2021 the landlord served notice to quit the premises at 14 Elm Street.',
  'The tenant answered on 10 March 2021 that the notice was defective and withheld the rent.',
  'Yours sincerely, Robert Smith',
].join('\n\n');
const QUERIES = ['co-branding agreement term', 'notice to quit', 'withheld the rent'];

const dirs: string[] = [];
const engines: Engine[] = [];
const newDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
const open = async (home: string): Promise<Engine> => {
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
  engines.push(engine);
  return engine;
};

let source: Engine;
let caseId: string;
let out: string;
let plain: string;
let sealed: string;

/** What a user would compare: each query's passages (file, pages, text), the chats and the marked events. */
async function snapshot(engine: Engine, id: string) {
  const call = engine.router.call.bind(engine.router);
  const searches = [];
  for (const query of QUERIES)
    for (const mode of ['keyword', 'hybrid'] as const) {
      const r = await call('search', { case_id: id, query, mode, k: 5 });
      searches.push([r.semantic, r.results.map((h) => [h.file_name, h.pages, h.text, h.score])]);
    }
  const { sessions } = await call('chat.sessions', { case_id: id });
  const chats = [];
  for (const s of sessions) {
    const full = await call('chat.session', { case_id: id, session_id: s.id });
    chats.push([s.title, full.messages_list.map((m) => [m.role, m.content, m.citations?.length])]);
  }
  const marked = (await call('tools.timeline', { case_id: id, mark: 'key' })).events.map((e) => [e.date, e.note]);
  return { searches, chats, marked };
}

/** The data home holds no case and no staging folder. */
function expectNothingImported(home: string): void {
  expect(readdirSync(path.join(home, 'cases'))).toEqual([]);
}

beforeAll(async () => {
  const home = newDir('casefile-matter-src-');
  out = newDir('casefile-matter-out-');
  source = await open(home);
  const call = source.router.call.bind(source.router);
  caseId = (await call('cases.create', { name: 'Smith v. Jones' })).id;
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  copyFileSync(cuadPdf(CUAD_SMALL.pcquote), path.join(drop, 'Co-Branding Agreement.pdf'));
  writeFileSync(path.join(drop, 'letter.txt'), LETTER);
  await call('ingest.start', { case_id: caseId, paths: [drop] });
  await call('chat.ask', { case_id: caseId, question: 'When was the notice to quit served?', mode: 'extractive' });
  const events = (await call('tools.timeline', { case_id: caseId })).events;
  const served = events.find((e) => e.date === '2021-03-03');
  expect(served).toBeDefined();
  await call('tools.timelineMark', { case_id: caseId, key: served!.key, mark: 'key', note: 'Notice served' });
  plain = path.join(out, 'smith.casefile');
  sealed = path.join(out, 'smith-locked.casefile');
  const exported = await call('cases.export', { case_id: caseId, out: plain });
  expect(exported).toMatchObject({ case_id: caseId, name: 'Smith v. Jones', encrypted: false });
  await call('cases.export', { case_id: caseId, out: sealed, passphrase: 'correct horse battery' });
});

afterAll(async () => {
  for (const e of engines.splice(0)) await e.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('moving a matter', () => {
  it('a round trip into a second home answers with the same passages, chats and marks', async () => {
    const before = await snapshot(source, caseId);
    expect(before.searches.every(([, hits]) => (hits as unknown[]).length > 0)).toBe(true);
    expect(before.chats).toHaveLength(1);
    expect(before.marked).toEqual([['2021-03-03', 'Notice served']]);
    const other = await open(newDir('casefile-matter-b-'));
    const r = await other.router.call('cases.import', { path: plain });
    expect(r).toMatchObject({
      case: { id: caseId, name: 'Smith v. Jones', files: 2 },
      earlier: null,
      encrypted: false,
    });
    expect(await snapshot(other, caseId)).toEqual(before);
    // Its documents open without reading them again.
    const files = await other.router.call('files.list', { case_id: caseId });
    expect(files.files.map((f) => f.status).sort()).toEqual(['indexed', 'indexed']);
  });

  it('a passphrase locks the file: the right one opens it, a wrong one is told plainly', async () => {
    expect(readFileSync(sealed).subarray(0, 8).toString('latin1')).toBe('CFMATTER');
    expect(readFileSync(sealed).includes(Buffer.from('Smith v. Jones'))).toBe(false);
    const home = newDir('casefile-matter-c-');
    const other = await open(home);
    const call = other.router.call.bind(other.router);
    await expect(call('cases.import', { path: sealed })).rejects.toThrow(
      'This matter file is locked with a passphrase.',
    );
    await expect(call('cases.import', { path: sealed, passphrase: 'wrong horse' })).rejects.toThrow(
      /^The passphrase does not open this matter file\.$/,
    );
    expectNothingImported(home);
    const r = await call('cases.import', { path: sealed, passphrase: 'correct horse battery' });
    expect(r.encrypted).toBe(true);
    expect(await snapshot(other, caseId)).toEqual(await snapshot(source, caseId));
  });

  it('a changed byte is refused with its reason, and nothing is imported', async () => {
    const home = newDir('casefile-matter-d-');
    const other = await open(home);
    const bytes = readFileSync(plain);
    // Originals are stored as they are: flip a byte inside the contract's bytes in the zip.
    const at = bytes.indexOf(readFileSync(cuadPdf(CUAD_SMALL.pcquote)).subarray(4096, 4160));
    expect(at).toBeGreaterThan(0);
    const bad = Buffer.from(bytes);
    bad[at + 32]! ^= 0x01;
    const file = path.join(out, 'tampered.casefile');
    writeFileSync(file, bad);
    await expect(other.router.call('cases.import', { path: file })).rejects.toThrow(
      /does not match its fingerprint: it was changed or damaged after export/,
    );
    expectNothingImported(home);
    // The same in a locked file: one changed byte fails its chunk.
    const lockedBad = Buffer.from(readFileSync(sealed));
    lockedBad[Math.floor(lockedBad.length / 2)]! ^= 0x01;
    writeFileSync(file, lockedBad);
    await expect(
      other.router.call('cases.import', { path: file, passphrase: 'correct horse battery' }),
    ).rejects.toThrow(/changed or cut short after it was exported/);
    expectNothingImported(home);
    expect((await other.router.call('cases.list', {})).cases).toEqual([]);
  });

  it('a file cut short is refused, plain or locked, and nothing is imported', async () => {
    const home = newDir('casefile-matter-e-');
    const other = await open(home);
    const file = path.join(out, 'short.casefile');
    const bytes = readFileSync(plain);
    writeFileSync(file, bytes.subarray(0, bytes.length - 200));
    await expect(other.router.call('cases.import', { path: file })).rejects.toThrow(/This matter file is incomplete/);
    expectNothingImported(home);
    // Locked: the last chunk dropped whole, so only the last-chunk flag can tell; then the first chunk moved to the end.
    const locked = readFileSync(sealed);
    const chunk = 64 * 1024 + 16;
    const chunks = Math.ceil((locked.length - HEADER_BYTES) / chunk);
    expect(chunks).toBeGreaterThanOrEqual(2);
    const attempts = [
      locked.subarray(0, HEADER_BYTES + (chunks - 1) * chunk),
      Buffer.concat([
        locked.subarray(0, HEADER_BYTES),
        locked.subarray(HEADER_BYTES + chunk),
        locked.subarray(HEADER_BYTES, HEADER_BYTES + chunk),
      ]),
    ];
    for (const cut of attempts) {
      writeFileSync(file, cut);
      await expect(
        other.router.call('cases.import', { path: file, passphrase: 'correct horse battery' }),
      ).rejects.toThrow(/changed or cut short after it was exported/);
      expectNothingImported(home);
    }
  });

  it('a foreign file, a path leaving the case, an absolute path or a link is refused', async () => {
    const home = newDir('casefile-matter-f-');
    const other = await open(home);
    const call = other.router.call.bind(other.router);
    await expect(call('cases.import', { path: cuadPdf(CUAD_SMALL.pcquote) })).rejects.toThrow(
      /This is not a Casefile matter file/,
    );
    await expect(call('cases.import', { path: out })).rejects.toThrow(/is not a file\. Choose the matter file itself/);
    await expect(call('cases.import', { path: path.join(out, 'none.casefile') })).rejects.toThrow(
      /There is no file at/,
    );
    const manifest = (files: string[]) =>
      new TextEncoder().encode(
        JSON.stringify({
          format: 'casefile-matter',
          format_version: 1,
          casefile_version: '0.1.0',
          exported_at: '2026-01-01T00:00:00Z',
          case: { id: 'cevil', name: 'Evil' },
          files: files.map((p) => ({ path: p, size: 4, sha256: '0'.repeat(64) })),
        }),
      );
    const evil = new TextEncoder().encode('evil');
    const hostile: [string, Uint8Array][] = [
      ['slip', zipSync({ 'case/../../../escaped.txt': evil, 'manifest.json': manifest(['../../../escaped.txt']) })],
      ['absolute', zipSync({ '/tmp/escaped.txt': evil, 'manifest.json': manifest(['case.json']) })],
      [
        'link',
        zipSync({
          'case/case.json': [evil, { os: 3, attrs: 0o120777 << 16 }],
          'manifest.json': manifest(['case.json']),
        }),
      ],
    ];
    for (const [name, bytes] of hostile) {
      const file = path.join(out, `${name}.casefile`);
      writeFileSync(file, bytes);
      await expect(call('cases.import', { path: file }), name).rejects.toThrow(
        /a path that would land outside the case|which is a link or a folder/,
      );
      expectNothingImported(home);
    }
    expect(readdirSync(home)).not.toContain('escaped.txt');
    // A zip that is not a matter file.
    writeFileSync(path.join(out, 'plain.zip'), zipSync({ 'a.txt': evil }));
    await expect(call('cases.import', { path: path.join(out, 'plain.zip') })).rejects.toThrow(
      /not a Casefile matter file/,
    );
    expectNothingImported(home);
  });

  it('an export refuses while another process adds files to the case, and leaves no file', async () => {
    await expect(
      source.router.call('cases.export', { case_id: 'cnone', out: path.join(out, 'none.casefile') }),
    ).rejects.toThrow('No case with id cnone.');
    const holder = await holdCase(source.cases.caseDir(caseId));
    const file = path.join(out, 'busy.casefile');
    try {
      await expect(source.router.call('cases.export', { case_id: caseId, out: file })).rejects.toThrow(
        /Another Casefile process \(pid \d+\) is adding files to this case/,
      );
      expect(readdirSync(out).filter((n) => n.startsWith('busy'))).toEqual([]);
    } finally {
      await holder.release();
    }
  });

  it('importing a matter already here makes it the current version and keeps the one it replaces', async () => {
    const other = await open(newDir('casefile-matter-g-'));
    const call = other.router.call.bind(other.router);
    await call('cases.import', { path: plain });
    // Work done here since: a second chat, which the earlier version must keep.
    await call('chat.ask', { case_id: caseId, question: 'Who withheld the rent?', mode: 'extractive' });
    const r = await call('cases.import', { path: plain });
    expect(r.case.id).toBe(caseId);
    expect(r.earlier?.name).toMatch(/^Smith v\. Jones \(earlier version, \d{4}-\d\d-\d\d \d\d:\d\d UTC\)$/);
    const { cases } = await call('cases.list', {});
    expect(cases.map((c) => c.id).sort()).toEqual([caseId, r.earlier!.id].sort());
    expect((await call('chat.sessions', { case_id: caseId })).sessions).toHaveLength(1);
    const kept = (await call('chat.sessions', { case_id: r.earlier!.id })).sessions;
    expect(kept.map((s) => s.case_id)).toEqual([r.earlier!.id, r.earlier!.id]);
    // The earlier version still answers searches.
    const hits = (await call('search', { case_id: r.earlier!.id, query: 'notice to quit', mode: 'keyword' })).results;
    expect(hits[0]?.file_name).toBe('letter.txt');
  });

  it('a matter replacing a case whose index is on object storage: the earlier version keeps its bucket, the new one its folder', async () => {
    const home = newDir('casefile-matter-s3-');
    const other = await open(home);
    const call = other.router.call.bind(other.router);
    await call('cases.import', { path: plain });
    // The case here as one made on a home with object storage records it (its index kept in a bucket).
    const meta = path.join(home, 'cases', caseId, 'case.json');
    const json = JSON.parse(readFileSync(meta, 'utf8')) as Record<string, unknown>;
    const storage = { kind: 's3', bucket: 'firm', prefix: `matters/${caseId}` };
    writeFileSync(meta, JSON.stringify({ ...json, storage }));
    // This home has no object storage: the new version keeps its index in its own folder.
    const r = await call('cases.import', { path: plain });
    const earlier = JSON.parse(readFileSync(path.join(home, 'cases', r.earlier!.id, 'case.json'), 'utf8'));
    expect(earlier.storage).toEqual(storage);
    expect(JSON.parse(readFileSync(meta, 'utf8'))).not.toHaveProperty('storage');
    const hits = (await call('search', { case_id: caseId, query: 'notice to quit', mode: 'keyword' })).results;
    expect(hits[0]?.file_name).toBe('letter.txt');
  });

  it('a new version of a matter keeps its members on a firm server (the case keeps its id)', async () => {
    const other = await open(newDir('casefile-matter-h-'));
    const call = other.router.call.bind(other.router);
    await call('cases.import', { path: plain });
    await (await other.firmStore()).addUser('rex', 'correct horse battery', 'reviewer');
    await call('firm.members.add', { case_id: caseId, user: 'rex' });
    const r = await call('cases.import', { path: plain });
    // The reviewer working on the matter still reaches it; the earlier version is the administrators'.
    expect((await call('firm.members.list', { case_id: caseId })).members).toEqual(['rex']);
    expect((await call('firm.members.list', { case_id: r.earlier!.id })).members).toEqual([]);
    // Deleting the case still takes its membership with it.
    await call('cases.delete', { case_id: caseId });
    expect(await (await other.firmStore()).members(caseId)).toEqual([]);
  });
});
