import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { CUAD_SMALL, cuadPdf, tempHome } from '../helpers/home';

describe('files.list names each document by its title', () => {
  it("a contract by the title on its first page; a file without one by its name made readable", async () => {
    const home = tempHome('casefile-file-title-');
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    try {
      const caseId = (await engine.router.call('cases.create', { name: 'Titles' })).id;
      const drop = path.join(home, 'drop');
      mkdirSync(drop, { recursive: true });
      copyFileSync(cuadPdf(CUAD_SMALL.datacall), path.join(drop, 'datacall.pdf'));
      writeFileSync(path.join(drop, 'client_meeting_notes.txt'), 'we met the client on tuesday and went through the open points of the lease.\n');
      await engine.router.call('ingest.start', { caseId, paths: [drop] });
      const { files } = await engine.router.call('files.list', { caseId });
      const byName = new Map(files.map((f) => [f.name.split('/').pop(), f]));
      expect(byName.get('datacall.pdf')!.status).toBe('indexed');
      expect(byName.get('datacall.pdf')!.title).toBe('CONTENT LICENSING AGREEMENT');
      expect(byName.get('client_meeting_notes.txt')!.title).toBe('client meeting notes');
    } finally {
      await engine.close();
    }
  });
});
