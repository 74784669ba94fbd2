import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { openOriginalInSystemViewer } from '../../src/main/open-original';
import { tempHome } from '../helpers/home';

describe('open in system viewer (Electron main)', () => {
  it('opens a read-only copy under the real name; the stored original is untouched', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    const src = path.join(home, 'in');
    await fs.mkdir(src, { recursive: true });
    await fs.writeFile(path.join(src, 'Letter to client.txt'), 'Dear client, the hearing is on 3 May 2024.');
    const c = await engine.router.call('cases.create', { name: 'Open test' });
    await engine.router.call('ingest.start', { caseId: c.id, paths: [src] });
    const { files } = await engine.router.call('files.list', { caseId: c.id });
    const opened: string[] = [];
    await openOriginalInSystemViewer(engine, { caseId: c.id, fileId: files[0]!.id }, async (f) => {
      opened.push(f);
      return '';
    });
    expect(path.basename(opened[0]!)).toBe('Letter to client.txt');
    expect(await fs.readFile(opened[0]!, 'utf8')).toContain('hearing is on 3 May 2024');
    // Read-only for everyone (root ignores the bits, so check them rather than a failed write).
    expect((await fs.stat(opened[0]!)).mode & 0o222).toBe(0);
    // The copy is not the stored original: changing it leaves the case's file as it was.
    const original = await (await engine.openCases.open(c.id)).documents.originalPath(files[0]!.id);
    expect(path.resolve(opened[0]!)).not.toBe(path.resolve(original));
    await expect(
      openOriginalInSystemViewer(engine, { caseId: c.id, fileId: files[0]!.id }, async () => 'no application is registered'),
    ).rejects.toMatchObject({ code: 'failed', message: expect.stringMatching(/could not open Letter to client\.txt/) });
    await expect(openOriginalInSystemViewer(engine, { caseId: '../x', fileId: 'f' }, async () => '')).rejects.toMatchObject({
      code: 'invalid_input',
    });
    await engine.close();
  });
});
