/**
 * Serve mode: a file uploaded while another Casefile process (the CLI, the desktop app) is adding
 * files to the same case (issue #42, item 6). `ingest.start` with `wait: false` used to answer
 * "running" and then nothing: no event, no error, and the upload stayed in uploads/. Now the page
 * is told it waits for the other process, and the file reaches the case once that one is done.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { startServer, type RunningServer } from '../../src/server/server';
import type { IngestProgress } from '../../src/shared/contract/ingest';
import { holdCase, type CaseHolder } from '../helpers/case-holder';
import { tempHome } from '../helpers/home';

/** The server's event stream, read as the page reads it. */
function eventStream(server: RunningServer, auth: Record<string, string>) {
  const controller = new AbortController();
  const events: { name: string; payload: unknown }[] = [];
  const reading = (async () => {
    const res = await fetch(`${server.url}api/events`, { headers: auth, signal: controller.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      text += decoder.decode(value, { stream: true });
      const blocks = text.split('\n\n');
      text = blocks.pop()!;
      for (const b of blocks)
        for (const line of b.split('\n'))
          if (line.startsWith('data: ')) events.push(JSON.parse(line.slice(6)) as { name: string; payload: unknown });
    }
  })().catch(() => undefined);
  return {
    progress: (jobId: string) =>
      events
        .filter((e) => e.name === 'ingest.progress')
        .map((e) => e.payload as IngestProgress)
        .filter((p) => p.job_id === jobId),
    async close() {
      controller.abort();
      await reading;
    },
  };
}

describe('serve mode: an upload to a case another process is adding files to', () => {
  const home = tempHome('casefile-serve-busy-');
  let engine: Engine;
  let server: RunningServer;
  let auth: Record<string, string>;
  let holder: CaseHolder | undefined;

  beforeEach(async () => {
    engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    server = await startServer({ engine, staticDir: path.join(home, 'no-static') });
    auth = { Authorization: `Bearer ${server.token}` };
  });

  afterEach(async () => {
    await holder?.kill();
    holder = undefined;
    await server.close();
    await engine.close();
  });

  const op = async <T>(name: string, body: unknown) =>
    (await (
      await fetch(`${server.url}api/op/${name}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...auth },
        body: JSON.stringify(body),
      })
    ).json()) as T;

  it('is told it waits for the other process, then the file arrives and the upload is cleared', async () => {
    const { id: caseId } = await op<{ id: string }>('cases.create', { name: 'Busy' });
    holder = await holdCase(engine.cases.caseDir(caseId));
    const stream = eventStream(server, auth);
    const batch = (await (await fetch(`${server.url}api/upload`, { method: 'POST', headers: auth })).json()) as {
      batch: string;
      dir: string;
    };
    const put = await fetch(`${server.url}api/upload/${batch.batch}?path=${encodeURIComponent('notice.txt')}`, {
      method: 'PUT',
      headers: auth,
      body: 'Notice of termination, served on the tenant on 1 May.',
    });
    const { path: uploaded } = (await put.json()) as { path: string };

    const handle = await op<{ job_id: string; state: string }>('ingest.start', {
      case_id: caseId,
      paths: [uploaded],
      wait: false,
    });
    expect(handle.state).toBe('running');
    const POLL = { timeout: 30_000, interval: 50 };
    await expect
      .poll(() => stream.progress(handle.job_id).find((p) => p.blocked_by)?.blocked_by?.message, POLL)
      .toMatch(/Waiting for another Casefile process .* adding files to this case/);
    expect((await op<{ files: unknown[] }>('files.list', { case_id: caseId })).files).toEqual([]);

    await holder.release();
    await expect
      .poll(() => stream.progress(handle.job_id).find((p) => p.state !== 'running')?.state, POLL)
      .toBe('done');
    const { files } = await op<{ files: { name: string; status: string }[] }>('files.list', { case_id: caseId });
    expect(files.map((f) => [f.name, f.status])).toEqual([['notice.txt', 'indexed']]);
    await expect
      .poll(
        () =>
          fs.stat(batch.dir).then(
            () => 'present',
            () => 'removed',
          ),
        POLL,
      )
      .toBe('removed');
    await stream.close();
  });
});
