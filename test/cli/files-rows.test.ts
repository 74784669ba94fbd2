import { describe, expect, it } from 'vitest';
import type { Engine } from '../../src/core/engine';
import { filesCommand } from '../../src/cli/commands/files';
import type { FileInfo } from '../../src/shared/contract/ingest';

const FILE: FileInfo = {
  id: 'f1',
  name: 'Harbor/lease_final.pdf',
  version: 1,
  versions: [
    {
      version: 1,
      sha256: 'a'.repeat(64),
      size: 10,
      pages: 3,
      status: 'indexed',
      reason: '',
      doc_type: 'contract',
      doc_date: '',
      ingested_at: '2026-11-24T10:00:00.000Z',
      kind: 'pdf',
    } as FileInfo['versions'][number],
  ],
  type: 'contract',
  pages: 3,
  status: 'indexed',
  reason: '',
  date: '',
  size: 10,
  kind: 'pdf',
  title: 'COMMERCIAL LEASE AGREEMENT',
  semantic: { embedded: 8, total: 20 },
  source_removed: '2026-11-24T12:00:00.000Z',
};

/** `casefile files` against an engine that lists one file. */
async function run(json: boolean): Promise<string> {
  const engine = {
    cases: { resolve: async () => ({ id: 'c1', name: 'Harbor' }) },
    router: { call: async () => ({ files: [FILE] }) },
  } as unknown as Engine;
  let out = '';
  await filesCommand(
    engine,
    { positionals: ['Harbor'], values: { json } },
    { out: (s) => (out += s), err: () => {}, isTTY: false, env: {} },
  );
  return out;
}

describe('casefile files: a row says what the app says', () => {
  it('a file not yet found by meaning, deleted from the followed folder: in words, and in --json', async () => {
    const text = await run(false);
    expect(text).toContain('found by its words; by meaning soon (40%)');
    expect(text).toMatch(/deleted from the folder on 24 Nov 2026 — the copy here is kept/);
    const [row] = (JSON.parse(await run(true)) as { files: Record<string, unknown>[] }).files;
    expect(row).toMatchObject({
      semantic: { embedded: 8, total: 20 },
      title: 'COMMERCIAL LEASE AGREEMENT',
      source_removed: FILE.source_removed,
    });
  });
});
