/**
 * One engine over a fresh data home with one case, whose folder of files is ingested (OCR off, one
 * reader): the set-up of the tests that read documents through the whole engine. The engine is
 * closed after the test (or earlier, by `close`, where a test goes on with the CLI on the same home).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { Engine } from '../../src/core/engine';
import { tempHome } from './home';

const open: Engine[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});

export interface IngestedCase {
  home: string;
  engine: Engine;
  call: Engine['router']['call'];
  caseId: string;
  /** The folder the files were written to (write more and ingest it again). */
  drop: string;
  /** Close the engine now (the data home stays until the test ends). */
  close(): Promise<void>;
}

/** A case named `name` with `files` (path in the folder → bytes or text) ingested. */
export async function ingestedCase(name: string, files: Record<string, Uint8Array | string>): Promise<IngestedCase> {
  const home = tempHome('casefile-case-');
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
  open.push(engine);
  const call = engine.router.call.bind(engine.router);
  const { id: caseId } = await call('cases.create', { name });
  const drop = path.join(home, 'drop');
  mkdirSync(drop, { recursive: true });
  for (const [file, bytes] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(drop, file)), { recursive: true });
    writeFileSync(path.join(drop, file), bytes);
  }
  if (Object.keys(files).length) await call('ingest.start', { case_id: caseId, paths: [drop] });
  const close = async () => {
    const i = open.indexOf(engine);
    if (i >= 0) open.splice(i, 1);
    await engine.close();
  };
  return { home, engine, call, caseId, drop, close };
}
