import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer } from '../../src/server/server';
import { multiPagePdf } from '../fixtures/pdfs';
import { tempHome } from '../helpers/home';

/**
 * Serve mode with --audit, over real HTTP: each access the firm asks about (searched words, an asked
 * question, an opened document and page, an export) leaves an entry naming the token holder, their
 * address and the case; the check and the CSV export are operations too, and the trail stays intact.
 */
describe('serve --audit', () => {
  const home = tempHome('casefile-serve-audit-');
  let engine: Engine | undefined;
  let server: RunningServer | undefined;

  afterEach(async () => {
    await server?.close();
    await engine?.close();
  });

  const start = async (audit: boolean) => {
    const drop = path.join(home, 'drop');
    mkdirSync(drop, { recursive: true });
    writeFileSync(path.join(drop, 'notice.pdf'), await multiPagePdf(3, 8, 'termination'));
    engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
    server = await startServer({ engine, audit, allowPaths: [drop], staticDir: home });
    const s = server;
    const op = async (name: string, body: unknown) => {
      const res = await fetch(`${s.url}api/op/${name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` },
        body: JSON.stringify(body),
      });
      const json = (await res.json()) as Record<string, unknown>;
      expect(res.status, `${name}: ${JSON.stringify(json)}`).toBe(200);
      return json;
    };
    return { op, drop };
  };

  const entries = () =>
    readFileSync(path.join(home, 'audit', 'audit.jsonl'), 'utf8')
      .trimEnd()
      .split('\n')
      .map(
        (l) => JSON.parse(l) as { seq: number; kind: string; case_id: string | null; actor: unknown; what: unknown },
      );

  it('records who searched, asked, opened a document and a page, and exported, in which case', async () => {
    const { op, drop } = await start(true);
    const { id: caseId } = (await op('cases.create', { name: 'Acme v. Widget' })) as { id: string };
    await op('ingest.start', { case_id: caseId, paths: [drop], wait: true });
    const { files } = (await op('files.list', { case_id: caseId })) as { files: { id: string }[] };
    const fileId = files[0]!.id;
    await op('search', { case_id: caseId, query: 'termination notice', mode: 'keyword' });
    const ask = (await op('chat.ask', {
      case_id: caseId,
      question: 'What does the termination clause say?',
      mode: 'extractive',
    })) as { session_id: string };
    await op('files.read', { case_id: caseId, file_id: fileId });
    await op('citations.page', { case_id: caseId, file_id: fileId, page: 2, scale: 1 });
    await op('chat.export', { case_id: caseId, session_id: ask.session_id, format: 'md' });
    await op('app.info', {});

    const log = entries();
    const actor = { user: 'token holder', role: 'token', address: '127.0.0.1' };
    const find = (kind: string) => log.find((e) => e.kind === kind);
    expect(find('search')).toMatchObject({ case_id: caseId, actor, what: { words: 'termination notice' } });
    expect(find('ask')).toMatchObject({
      case_id: caseId,
      actor,
      what: { question: 'What does the termination clause say?' },
    });
    expect(find('open_document')).toMatchObject({ case_id: caseId, what: { file_id: fileId } });
    expect(find('open_page')).toMatchObject({ case_id: caseId, what: { file_id: fileId, page: 2 } });
    expect(find('export')).toMatchObject({ case_id: caseId, what: { export: 'chat', format: 'md' } });
    expect(find('add_files')).toMatchObject({ case_id: caseId });
    expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    // app.info is not recorded (the table says why).
    expect(log.some((e) => JSON.stringify(e.what).includes('info'))).toBe(false);

    // The check is recorded before it runs, so it counts itself.
    const check = (await op('audit.check', {})) as { intact: boolean; entries: number };
    expect(check).toMatchObject({ intact: true, entries: log.length + 1 });
    const exported = (await op('audit.export', { case_id: caseId })) as { csv: string; entries: number };
    expect(exported.csv.split('\r\n')[0]).toMatch(/^Seq,Time \(UTC\),User/);
    expect(exported.csv).toContain('termination notice');
    expect(exported.csv).toContain('Acme v. Widget');
    // The check and the export were recorded too.
    expect(
      entries()
        .slice(-2)
        .map((e) => e.kind),
    ).toEqual(['check_audit', 'export']);
  });

  it('a request the trail cannot record is not carried out (503, plain words)', async () => {
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(home, 'audit'), 'not a folder');
    await start(true);
    const res = await fetch(`${server!.url}api/op/cases.create`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${server!.token}` },
      body: JSON.stringify({ name: 'Unrecorded' }),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /could not write its audit trail/,
    );
    expect(await engine!.cases.list()).toEqual([]);
  });

  it('without --audit nothing is recorded', async () => {
    const { op } = await start(false);
    await op('cases.create', { name: 'Quiet' });
    const check = (await op('audit.check', {})) as { intact: boolean; entries: number; head: unknown };
    expect(check).toMatchObject({ intact: true, entries: 0, head: null });
  });
});
