import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { CUAD_SMALL, cuadPdf, tempHome } from '../helpers/home';

describe('files.list names each document by its title', () => {
  it('a contract by the title on its first page and its two parties; a file without one by its name made readable', async () => {
    const home = tempHome('casefile-file-title-');
    const engine = await Engine.open({ home, ingest: { concurrency: 1 } });
    try {
      const caseId = (await engine.router.call('cases.create', { name: 'Titles' })).id;
      const drop = path.join(home, 'drop');
      mkdirSync(drop, { recursive: true });
      copyFileSync(cuadPdf(CUAD_SMALL.datacall), path.join(drop, 'datacall.pdf'));
      writeFileSync(
        path.join(drop, 'client_meeting_notes.txt'),
        'we met the client on tuesday and went through the open points of the lease.\n',
      );
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      const { files } = await engine.router.call('files.list', { case_id: caseId });
      const byName = new Map(files.map((f) => [f.name.split('/').pop(), f]));
      expect(byName.get('datacall.pdf')!.status).toBe('indexed');
      expect(byName.get('datacall.pdf')!.title).toBe(
        'CONTENT LICENSING AGREEMENT — Data Call Technologies / Plan_b Media',
      );
      expect(byName.get('datacall.pdf')!.short_name).toBe('CONTENT LICENSING AGREEMENT');
      expect(byName.get('client_meeting_notes.txt')!.title).toBe('client meeting notes');
    } finally {
      await engine.close();
    }
  });
});

describe('files.list titles follow what is indexed', () => {
  it('a version re-indexed, and a document changed (even under a version number used before), show their new titles', async () => {
    const home = tempHome('casefile-file-title-');
    const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
    try {
      const caseId = (await engine.router.call('cases.create', { name: 'Titles change' })).id;
      const drop = path.join(home, 'drop');
      mkdirSync(drop, { recursive: true });
      const file = path.join(drop, 'harbor.txt');
      const title = async () =>
        (await engine.router.call('files.list', { case_id: caseId })).files.find((f) => f.name === 'harbor.txt')!.title;
      writeFileSync(
        file,
        'LEASE AGREEMENT\n\n1. Rent. The tenant shall pay rent of $2,000 on the first day of each month.\n',
      );
      const first = await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      const fileId = 'results' in first ? first.results[0]!.file_id : '';

      // As an older Casefile stored it: another title. Listed (and kept), then the case re-indexed.
      const structureFile = path.join(engine.cases.caseDir(caseId), 'docs', fileId, 'v1', 'structure.json');
      const stored = JSON.parse(readFileSync(structureFile, 'utf8')) as { profile: { title: string } };
      const fresh = stored.profile.title;
      expect(fresh).toBe('LEASE AGREEMENT');
      writeFileSync(
        structureFile,
        JSON.stringify({ ...stored, profile: { ...stored.profile, title: 'Harbor (an older title)' } }),
      );
      expect(await title()).toBe('Harbor (an older title)');
      await engine.router.call('index.reindex', { case_id: caseId, all: true });
      expect(await title()).toBe('LEASE AGREEMENT');

      // Changed: version 2 shows its own title.
      writeFileSync(file, 'SUBLEASE AGREEMENT\n\n1. The subtenant takes the second floor from 1 June 2024.\n');
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      expect(await title()).toBe('SUBLEASE AGREEMENT');

      // Version 2 removed, the file changed again: a new version 2, with its own title.
      await engine.router.call('files.remove', { case_id: caseId, file_id: fileId, version: 2 });
      writeFileSync(file, 'ASSIGNMENT OF LEASE\n\n1. The tenant assigns the lease to Harbor Holdings LLC.\n');
      await engine.router.call('ingest.start', { case_id: caseId, paths: [drop] });
      const listed = (await engine.router.call('files.list', { case_id: caseId })).files[0]!;
      expect(listed.version).toBe(2);
      expect(listed.title).toBe('ASSIGNMENT OF LEASE');
    } finally {
      await engine.close();
    }
  });
});
