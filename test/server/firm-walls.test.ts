/**
 * Ethical walls, for every operation of the contract: a reviewer who is not a member of a case gets
 * exactly the answer for a case that does not exist, and a member gets past the wall. The tables
 * below must name every operation (a new one fails this test until it is placed), and those that
 * take no case id say why and what a reviewer gets instead.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contract, type OpName, opNames } from '../../src/shared/contract/index';
import { type Client, op, signedIn, startFirm } from '../helpers/firm';

const PASSWORD = 'correct horse battery';
const NO_SUCH_CASE = 'zz-no-such-case';
const FILE = 'f0000000000000';
const SESSION = 's0000000000000';

/** A valid input naming the case `c`, for each operation that names a case. */
const CASE_OPS: Partial<Record<OpName, (c: string) => Record<string, unknown>>> = {
  'cases.get': (c) => ({ case_id: c }),
  'cases.rename': (c) => ({ case_id: c, name: 'Renamed' }),
  'cases.setOcr': (c) => ({ case_id: c, enabled: false }),
  'cases.setDateOrder': (c) => ({ case_id: c, day_first: true }),
  'cases.setWatch': (c) => ({ case_id: c, enabled: false }),
  'cases.delete': (c) => ({ case_id: c }),
  'ingest.start': (c) => ({ case_id: c, paths: ['/etc/hostname'] }),
  'ingest.cancel': (c) => ({ case_id: c }),
  'ingest.resume': (c) => ({ case_id: c }),
  'ingest.status': (c) => ({ case_id: c }),
  'index.reindex': (c) => ({ case_id: c }),
  'index.vectors': (c) => ({ case_id: c }),
  'index.catchUp': (c) => ({ case_id: c }),
  'index.reembed': (c) => ({ case_id: c, model_id: 'no-such-model' }),
  'files.list': (c) => ({ case_id: c }),
  'files.remove': (c) => ({ case_id: c, file_id: FILE }),
  'files.setBates': (c) => ({ case_id: c, file_id: FILE, prefix: null }),
  'files.setType': (c) => ({ case_id: c, file_id: FILE, type: null }),
  'files.retry': (c) => ({ case_id: c, file_id: FILE }),
  'files.unlock': (c) => ({ case_id: c, file_id: FILE, password: 'secret' }),
  'files.read': (c) => ({ case_id: c, file_id: FILE }),
  search: (c) => ({ case_id: c, query: 'indemnity', mode: 'keyword' }),
  'tools.findFiles': (c) => ({ case_id: c }),
  'tools.readFile': (c) => ({ case_id: c, file_id: FILE }),
  'tools.grepFile': (c) => ({ case_id: c, file_id: FILE, pattern: 'x' }),
  'tools.outline': (c) => ({ case_id: c, file_id: FILE }),
  'tools.readSection': (c) => ({ case_id: c, file_id: FILE, section: '1' }),
  'tools.grepCase': (c) => ({ case_id: c, pattern: 'x' }),
  'tools.timeline': (c) => ({ case_id: c }),
  'tools.timelineMark': (c) => ({ case_id: c, key: `${FILE}@v1:0-10`, mark: 'key' }),
  'tools.timelineExport': (c) => ({ case_id: c, format: 'csv' }),
  'citations.page': (c) => ({ case_id: c, file_id: FILE, page: 1 }),
  'citations.passage': (c) => ({ case_id: c, file_id: FILE, version: 1, start: 0, end: 5 }),
  'citations.words': (c) => ({ case_id: c, file_id: FILE, version: 1, page: 1 }),
  'chat.ask': (c) => ({ case_id: c, question: 'Who signed?', model: 'scripted:none.json' }),
  'chat.sessions': (c) => ({ case_id: c }),
  'chat.session': (c) => ({ case_id: c, session_id: SESSION }),
  'chat.rename': (c) => ({ case_id: c, session_id: SESSION, title: 'T' }),
  'chat.delete': (c) => ({ case_id: c, session_id: SESSION }),
  'chat.export': (c) => ({ case_id: c, session_id: SESSION }),
  'firm.members.list': (c) => ({ case_id: c }),
  'firm.members.add': (c) => ({ case_id: c, user: 'rex' }),
  'firm.members.remove': (c) => ({ case_id: c, user: 'nobody' }),
  'audit.export': (c) => ({ case_id: c }),
  'cases.export': (c) => ({ case_id: c, out: '/tmp/walls-matter.casefile' }),
};

/** Operations that name no case: why, the input sent, and what a reviewer gets. */
const NO_CASE_OPS: Partial<Record<OpName, { why: string; input: unknown; status: number }>> = {
  'app.info': { why: 'the version and data folder; nothing of any case', input: {}, status: 200 },
  'cases.list': { why: 'over every case: answered with member cases only (checked below)', input: {}, status: 200 },
  'cases.detect': {
    why: 'over every case: looks at member cases only (checked below)',
    input: { question: 'Smith' },
    status: 200,
  },
  'cases.create': { why: 'a new case: administrators only', input: { name: 'New' }, status: 403 },
  'chat.cancel': {
    why: 'names a turn: another case’s turn answers as an unknown one',
    input: { turn_id: 't1' },
    status: 200,
  },
  'models.list': { why: 'the server’s models: their cases listed only when a member', input: {}, status: 200 },
  'models.import': { why: 'the server’s models: administrators only', input: { path: '/tmp/x.gguf' }, status: 403 },
  'models.download': { why: 'the server’s models: administrators only', input: { source: 'a/b/c.gguf' }, status: 403 },
  'models.setDefault': { why: 'the server’s models: administrators only', input: { model_id: 'm' }, status: 403 },
  'firm.users.list': { why: 'accounts: administrators only', input: {}, status: 403 },
  'firm.users.add': {
    why: 'accounts: administrators only',
    input: { name: 'eve', password: 'a long password' },
    status: 403,
  },
  'firm.users.remove': { why: 'accounts: administrators only', input: { name: 'dana' }, status: 403 },
  'audit.check': { why: 'the audit trail: administrators only', input: {}, status: 403 },
  'cases.import': { why: 'a matter brought in: administrators only', input: { path: '/tmp/m.casefile' }, status: 403 },
};

describe('firm server – ethical walls', () => {
  // One home for all the tests here (tempHome empties it after each test).
  const home = mkdtempSync(path.join(os.tmpdir(), 'casefile-walls-'));
  let firm: Awaited<ReturnType<typeof startFirm>>;
  let admin: Client;
  let rex: Client;
  let walled: string;
  let mine: string;

  beforeAll(async () => {
    firm = await startFirm(home);
    await firm.store.addUser('dana', PASSWORD, 'admin');
    await firm.store.addUser('rex', PASSWORD, 'reviewer');
    admin = await signedIn(firm.server, 'dana', PASSWORD);
    const create = async (name: string) =>
      ((await (await op(firm.server, admin, 'cases.create', { name })).json()) as { id: string }).id;
    walled = await create('Smith v Jones');
    mine = await create('Acme merger');
    const added = await op(firm.server, admin, 'firm.members.add', { case_id: mine, user: 'rex' });
    expect(added.status).toBe(200);
    rex = await signedIn(firm.server, 'rex', PASSWORD);
  });
  afterAll(async () => {
    await firm.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('the tables name every operation of the contract, each once', () => {
    const named = [...Object.keys(CASE_OPS), ...Object.keys(NO_CASE_OPS)].sort();
    expect(named).toEqual([...opNames].sort());
    // An operation whose input takes a case id must be in CASE_OPS.
    for (const name of Object.keys(NO_CASE_OPS) as OpName[]) {
      const shape = (contract[name].input as unknown as { shape?: Record<string, unknown> }).shape ?? {};
      expect(Object.keys(shape), name).not.toContain('case_id');
    }
  });

  /** Status and body, with the case id asked about written as <case>. */
  const answer = async (client: Client, name: string, input: Record<string, unknown>, caseId: string) => {
    const res = await op(firm.server, client, name, input);
    return { status: res.status, body: (await res.text()).split(caseId).join('<case>') };
  };

  for (const name of Object.keys(CASE_OPS) as OpName[]) {
    it(`${name} – a non-member gets the answer for a case that does not exist; a member gets past the wall`, async () => {
      const input = CASE_OPS[name]!;
      const none = await answer(rex, name, input(NO_SUCH_CASE), NO_SUCH_CASE);
      expect(none.status).toBe(404);
      expect(await answer(rex, name, input(walled), walled)).toEqual(none);
      const member = await answer(rex, name, input(mine), mine);
      expect(member.body, `${name} for a member`).not.toBe(none.body);
    });
  }

  for (const [name, spec] of Object.entries(NO_CASE_OPS)) {
    it(`${name} – names no case (${spec.why}): a reviewer gets ${spec.status}`, async () => {
      expect((await op(firm.server, rex, name, spec.input)).status).toBe(spec.status);
    });
  }

  it('cases.list and cases.detect – a reviewer sees only member cases; an administrator sees all', async () => {
    const list = (await (await op(firm.server, rex, 'cases.list', {})).json()) as { cases: { id: string }[] };
    expect(list.cases.map((c) => c.id)).toEqual([mine]);
    const detect = (await (await op(firm.server, rex, 'cases.detect', { question: 'Smith v Jones' })).json()) as {
      chosen: string | null;
      candidates: { case_id: string }[];
    };
    expect(detect.chosen).toBe(mine);
    expect(detect.candidates.map((c) => c.case_id)).toEqual([mine]);
    const all = (await (await op(firm.server, admin, 'cases.list', {})).json()) as { cases: { id: string }[] };
    expect(all.cases.map((c) => c.id).sort()).toEqual([walled, mine].sort());
  });

  it('the event stream carries a reviewer the events of member cases only', async () => {
    const controller = new AbortController();
    const res = await fetch(`${firm.server.url}api/events`, {
      headers: { Cookie: rex.cookie },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    let text = '';
    const until = async (seen: (t: string) => boolean) => {
      while (!seen(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    };
    await until((t) => t.includes(': connected'));
    // Wait for the stream to know rex's cases (it asks when opened): an event of his case gets through.
    await expect
      .poll(async () => {
        await op(firm.server, admin, 'cases.setDateOrder', { case_id: mine, day_first: true });
        await until((t) => t.includes(mine));
        return text.includes(mine);
      })
      .toBe(true);
    await op(firm.server, admin, 'cases.setDateOrder', { case_id: walled, day_first: true });
    await op(firm.server, admin, 'cases.rename', { case_id: mine, name: 'Acme merger (2)' });
    await until((t) => t.includes('"renamed"'));
    controller.abort();
    expect(text).toMatch(new RegExp(`"case_id":"${mine}"[^}]*"kind":"renamed"`));
    expect(text).not.toContain(walled);
  });

  it('ingest.resume without a case (every case) is for administrators only', async () => {
    expect((await op(firm.server, rex, 'ingest.resume', {})).status).toBe(403);
  });

  it('the page’s Export (POST /api/export) stands behind the walls too, and is on the audit trail', async () => {
    const exportAs = async (client: Client, caseId: string) => {
      const res = await fetch(`${firm.server.url}api/export`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Cookie: client.cookie, 'X-Casefile-CSRF': client.csrf },
        body: JSON.stringify({ case_id: caseId }),
      });
      return { status: res.status, body: Buffer.from(await res.arrayBuffer()), caseId };
    };
    const walledAnswer = await exportAs(rex, walled);
    const missing = await exportAs(rex, 'c00000000000');
    expect(walledAnswer.status).toBe(404);
    expect(walledAnswer.body.toString().split(walled).join('<case>')).toBe(
      missing.body.toString().split('c00000000000').join('<case>'),
    );
    const own = await exportAs(rex, mine);
    expect(own.status).toBe(200);
    expect(own.body.subarray(0, 2).toString()).toBe('PK');
    const trail = readFileSync(path.join(home, 'audit', 'audit.jsonl'), 'utf8');
    const exports = trail
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { kind: string; case_id: string; actor: { user: string }; what: object })
      .filter((e) => e.kind === 'export');
    // The refused one is not an access; the one made is, with who made it.
    expect(exports.filter((e) => e.case_id === walled)).toEqual([]);
    expect(exports.at(-1)).toMatchObject({ actor: { user: 'rex' }, case_id: mine, what: { export: 'matter' } });
  });

  it('a member removed by an administrator no longer sees the case', async () => {
    await op(firm.server, admin, 'firm.members.add', { case_id: walled, user: 'rex' });
    expect((await op(firm.server, rex, 'cases.get', { case_id: walled })).status).toBe(200);
    await op(firm.server, admin, 'firm.members.remove', { case_id: walled, user: 'rex' });
    expect((await op(firm.server, rex, 'cases.get', { case_id: walled })).status).toBe(404);
  });
});
