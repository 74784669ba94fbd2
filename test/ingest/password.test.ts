import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { corpusDir, tempHome } from '../helpers/home';

/** The corpus's AES-256 PDF whose user password is `lawyer123`. */
const LOCKED = path.join(corpusDir, 'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf');
const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : [full];
  });
}

describe('a password-protected PDF opens with the password the user gives', () => {
  const home = tempHome();
  const folder = path.join(home, '..', `${path.basename(home)}-drop`);
  mkdirSync(folder, { recursive: true });
  copyFileSync(LOCKED, path.join(folder, 'reseller agreement.pdf'));
  let engine: Engine | undefined;
  afterAll(async () => engine?.close());

  it('asked for, checked (a wrong one is refused), read with it, its pages shown; never stored in plain text; the original untouched', {
    timeout: 180_000,
  }, async () => {
    engine = await Engine.open({ home });
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Locked' });
    const run = await engine.router.call('ingest.start', { case_id: caseId, paths: [folder], wait: true });
    if (!('results' in run)) throw new Error('expected results');
    const fileId = run.results[0]!.file_id;
    expect(run.results[0]).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^password protected — enter its password/),
    });
    expect((await engine.router.call('files.list', { case_id: caseId })).files[0]).toMatchObject({
      status: 'failed',
      locked: 'needs_password',
    });

    await expect(
      engine.router.call('files.unlock', { case_id: caseId, file_id: fileId, password: 'lawyer124' }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      message: 'That password does not open reseller agreement.pdf.',
    });
    expect((await engine.router.call('files.list', { case_id: caseId })).files[0]).toMatchObject({
      status: 'failed',
      locked: 'needs_password',
    });

    const unlocked = await engine.router.call('files.unlock', {
      case_id: caseId,
      file_id: fileId,
      password: 'lawyer123',
    });
    expect(unlocked).toMatchObject({
      file_id: fileId,
      reread: true,
      run: { state: 'done', results: [{ file_id: fileId, status: 'indexed' }] },
    });
    const [file] = (await engine.router.call('files.list', { case_id: caseId })).files;
    expect(file).toMatchObject({ status: 'indexed', locked: 'unlocked' });
    expect(file!.pages).toBeGreaterThan(1);
    const hit = (await engine.router.call('search', { case_id: caseId, query: 'reseller', mode: 'keyword', k: 1 }))
      .results[0]!;
    expect(hit.file_id).toBe(fileId);
    const page = await engine.router.call('citations.page', {
      case_id: caseId,
      file_id: fileId,
      page: hit.pages[0],
      scale: 1,
      start: hit.start,
      end: hit.end,
    });
    expect(page.rects.length).toBeGreaterThan(0);
    await engine.close();

    // The stored original is the file as given, byte for byte; the password is nowhere on disk.
    const blobs = filesUnder(home).filter(
      (f) => /[\\/]files[\\/]/.test(f) && statSync(f).size === statSync(LOCKED).size,
    );
    expect(blobs.map(sha)).toContain(sha(LOCKED));
    for (const f of filesUnder(home)) expect(readFileSync(f).includes('lawyer123'), f).toBe(false);

    // After a restart the text is still searchable, but showing its pages needs the password again.
    engine = await Engine.open({ home });
    expect((await engine.router.call('files.list', { case_id: caseId })).files[0]).toMatchObject({
      status: 'indexed',
      locked: 'needs_password',
    });
    await expect(
      engine.router.call('citations.page', { case_id: caseId, file_id: fileId, page: 1, scale: 1 }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: 'reseller agreement.pdf is password protected: enter its password to show its pages.',
    });
    expect(
      await engine.router.call('files.unlock', { case_id: caseId, file_id: fileId, password: 'lawyer123' }),
    ).toEqual({ file_id: fileId, name: 'reseller agreement.pdf', reread: false, run: null });
    expect(
      (await engine.router.call('citations.page', { case_id: caseId, file_id: fileId, page: 1, scale: 1 })).page_count,
    ).toBe(file!.pages);
    // A file that is not protected is refused plainly.
    await expect(
      engine.router.call('files.unlock', { case_id: caseId, file_id: 'nosuchfile', password: 'x' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});
