/**
 * A matter that moves (issue 41): a reviewer downloads a case from the firm server, works on it at
 * home on the desktop (a question answered without a model, a chronology mark), exports it again,
 * and an administrator brings it back to the server as a new version of the same matter. The server
 * then holds the desktop's work, keeps the version it replaced, still finds the passages, and its
 * audit trail names who took the matter out and who brought it back — never the passphrase.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { multiPagePdf } from '../fixtures/pdfs';
import { type Client, op, signedIn, startFirm } from '../helpers/firm';
import { tempHome } from '../helpers/home';

const PASSWORD = 'correct horse battery';
const PASSPHRASE = 'road runner 1949 beep';
const MEMO = 'The anvil was delivered to the canyon on 3 March 2021 by Acme Corporation.\n';
const QUESTION = 'When was the anvil delivered?';

const closing: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const c of closing.splice(0).reverse()) await c.close();
});

/** Call an operation as `client` and fail the test, with the server's answer, unless it succeeded. */
async function ok<T>(res: Promise<Response>, what: string): Promise<T> {
  const r = await res;
  const body = await r.text();
  expect(r.status, `${what}: ${body}`).toBe(200);
  return JSON.parse(body) as T;
}

/** Upload `bytes` the way the page does (a batch, then one PUT); the path an operation may read. */
async function upload(url: string, client: Client, name: string, bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const headers = { Cookie: client.cookie, 'X-Casefile-CSRF': client.csrf };
  const { batch } = await ok<{ batch: string }>(fetch(`${url}api/upload`, { method: 'POST', headers }), 'upload');
  const put = fetch(`${url}api/upload/${batch}?path=${encodeURIComponent(name)}`, {
    method: 'PUT',
    headers,
    body: bytes,
  });
  return (await ok<{ path: string }>(put, 'upload put')).path;
}

interface Entry {
  seq: number;
  kind: string;
  case_id: string | null;
  actor: { user: string; role: string };
  what?: Record<string, unknown>;
}

describe('a matter taken home and back', () => {
  it('server → desktop → server: the desktop’s work arrives as a new version, on the audit trail', async () => {
    // The firm: an administrator, and a reviewer who is a member of one case with two documents.
    const serverHome = tempHome('casefile-roundtrip-server-');
    const firm = await startFirm(serverHome);
    closing.push(firm);
    await firm.store.addUser('dana', PASSWORD, 'admin');
    await firm.store.addUser('rex', PASSWORD, 'reviewer');
    const { id: caseId } = await firm.engine.router.call('cases.create', { name: 'Acme / Roadrunner' });
    const drop = path.join(serverHome, 'drop');
    mkdirSync(drop);
    writeFileSync(path.join(drop, 'memo.txt'), MEMO);
    writeFileSync(path.join(drop, 'notice.pdf'), await multiPagePdf(2, 6, 'termination'));
    await firm.engine.router.call('ingest.start', { case_id: caseId, paths: [drop], wait: true });
    await firm.engine.router.call('firm.members.add', { case_id: caseId, user: 'rex' });
    const url = firm.server.url;
    const rex = await signedIn(firm.server, 'rex', PASSWORD);

    // The reviewer downloads the matter, locked with a passphrase, as the page's Export… does.
    const exported = await fetch(`${url}api/export`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: rex.cookie, 'X-Casefile-CSRF': rex.csrf },
      body: JSON.stringify({ case_id: caseId, passphrase: PASSPHRASE }),
    });
    expect(exported.status).toBe(200);
    const outbound = new Uint8Array(await exported.arrayBuffer());
    expect(Buffer.from(outbound.subarray(0, 8)).toString('latin1')).toBe('CFMATTER');

    // The desktop: a second data home imports it, and the reviewer works there.
    const deskHome = tempHome('casefile-roundtrip-desk-');
    const desk = await Engine.open({ home: deskHome, ingest: { concurrency: 1, ocr: false } });
    closing.push(desk);
    const deskCall = desk.router.call.bind(desk.router);
    const taken = path.join(deskHome, 'acme.casefile');
    writeFileSync(taken, outbound);
    const arrived = await deskCall('cases.import', { path: taken, passphrase: PASSPHRASE });
    expect(arrived).toMatchObject({ case: { id: caseId, name: 'Acme / Roadrunner' }, earlier: null, encrypted: true });
    const asked = await deskCall('chat.ask', { case_id: caseId, question: QUESTION, mode: 'extractive' });
    expect(asked.answer).toContain('anvil');
    const { events } = await deskCall('tools.timeline', { case_id: caseId });
    const delivery = events.find((e) => e.text.includes('anvil was delivered'));
    expect(delivery?.date).toBe('2021-03-03');
    await deskCall('tools.timelineMark', {
      case_id: caseId,
      key: delivery!.key,
      mark: 'key',
      note: 'Delivery date agreed by both sides.',
    });
    const back = path.join(deskHome, 'acme-back.casefile');
    await deskCall('cases.export', { case_id: caseId, out: back });

    // Back at the office: the administrator uploads it and imports it as a new version.
    const dana = await signedIn(firm.server, 'dana', PASSWORD);
    const uploaded = await upload(url, dana, 'acme-back.casefile', new Uint8Array(readFileSync(back)));
    const imported = await ok<{ case: { id: string }; earlier: { id: string; name: string } | null }>(
      op(firm.server, dana, 'cases.import', { path: uploaded }),
      'cases.import',
    );
    expect(imported.case.id).toBe(caseId);
    expect(imported.earlier?.name).toMatch(/^Acme \/ Roadrunner \(earlier version, .+ UTC\)$/);
    const earlierId = imported.earlier!.id;
    expect(earlierId).not.toBe(caseId);

    // The server's case holds the desktop's question and answer, and its mark and note.
    const { sessions } = await ok<{ sessions: { id: string; title: string }[] }>(
      op(firm.server, dana, 'chat.sessions', { case_id: caseId }),
      'chat.sessions',
    );
    expect(sessions).toHaveLength(1);
    const session = await ok<{ messages_list: { role: string; content: string }[] }>(
      op(firm.server, dana, 'chat.session', { case_id: caseId, session_id: sessions[0]!.id }),
      'chat.session',
    );
    expect(session.messages_list.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(session.messages_list[0]?.content).toBe(QUESTION);
    const timeline = await ok<{ events: { key: string; mark?: string; note?: string }[] }>(
      op(firm.server, rex, 'tools.timeline', { case_id: caseId }),
      'tools.timeline',
    );
    expect(timeline.events.find((e) => e.key === delivery!.key)).toMatchObject({
      mark: 'key',
      note: 'Delivery date agreed by both sides.',
    });

    // The version it replaced is kept, as it was before the trip: listed, searchable, without the chat.
    const { cases } = await ok<{ cases: { id: string; name: string }[] }>(
      op(firm.server, dana, 'cases.list', {}),
      'cases.list',
    );
    expect(cases.map((c) => c.id).sort()).toEqual([caseId, earlierId].sort());
    const earlierChats = await ok<{ sessions: unknown[] }>(
      op(firm.server, dana, 'chat.sessions', { case_id: earlierId }),
      'chat.sessions (earlier)',
    );
    expect(earlierChats.sessions).toEqual([]);

    // Search still finds the passages, for the reviewer who is still a member of the matter.
    type Found = { results: { text: string; file_name: string }[] };
    const search = (c: Client, id: string, query: string) =>
      ok<Found>(op(firm.server, c, 'search', { case_id: id, query, mode: 'keyword' }), `search ${query}`);
    expect((await search(rex, caseId, 'anvil delivered')).results[0]?.text).toContain('The anvil was delivered');
    expect((await search(rex, caseId, 'termination')).results[0]?.file_name).toBe('notice.pdf');
    expect((await search(dana, earlierId, 'anvil delivered')).results[0]?.text).toContain('The anvil was delivered');

    // The audit trail: the reviewer's export of this case, the administrator's import, no passphrase.
    const raw = readFileSync(path.join(serverHome, 'audit', 'audit.jsonl'), 'utf8');
    expect(raw).not.toContain(PASSPHRASE);
    const trail = raw
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry);
    const out = trail.filter((e) => e.kind === 'export' && e.what?.export === 'matter');
    expect(out).toEqual([
      expect.objectContaining({
        case_id: caseId,
        actor: expect.objectContaining({ user: 'rex', role: 'reviewer' }),
        what: { export: 'matter', locked: true },
      }),
    ]);
    const ins = trail.filter((e) => e.what?.change === 'import matter');
    expect(ins).toEqual([
      expect.objectContaining({
        kind: 'change_case',
        actor: expect.objectContaining({ user: 'dana', role: 'admin' }),
        what: { change: 'import matter', locked: false },
      }),
    ]);
    expect(ins[0]!.seq).toBeGreaterThan(out[0]!.seq);
    const check = await ok<{ intact: boolean; entries: number }>(
      op(firm.server, dana, 'audit.check', {}),
      'audit.check',
    );
    expect(check).toMatchObject({ intact: true, entries: trail.length + 1 });
  });
});
