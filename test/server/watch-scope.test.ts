/**
 * Serve mode: a token may set a case to follow only folders the server may read (uploads, --allow-path);
 * the refusal names the folder field and never what is there. Models uploaded through the page are
 * removed from the upload folder once imported (the import copied them).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { EventBus } from '../../src/core/bus';
import { checkScope } from '../../src/server/scope';
import { createUploads } from '../../src/server/uploads';
import { tempHome } from '../helpers/home';

describe('serve mode: followed folders stay in scope', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('cases.setWatch with a folder outside the allowed ones is refused; inside is let through', async () => {
    const outside = mkdtempSync(path.join(os.tmpdir(), 'casefile-outside-'));
    const allowed = mkdtempSync(path.join(os.tmpdir(), 'casefile-allowed-'));
    dirs.push(outside, allowed);
    mkdirSync(path.join(allowed, 'Matter'));
    const scope = { uploadsDir: path.join(tempHome(), 'uploads'), allowPaths: [allowed], allowScriptedModels: false };
    await expect(
      checkScope('cases.setWatch', { case_id: 'c1', folders: [path.join(allowed, 'Matter')] }, scope),
    ).resolves.toBeUndefined();
    const refused = checkScope(
      'cases.setWatch',
      { case_id: 'c1', folders: [path.join(allowed, 'Matter'), outside] },
      scope,
    );
    await expect(refused).rejects.toMatchObject({
      code: 'forbidden',
      fields: [{ field: 'folders.1', message: 'the folder is outside the folders this server may read' }],
    });
    // Switching following on or off names no folder: nothing to check.
    await expect(checkScope('cases.setWatch', { case_id: 'c1', enabled: true }, scope)).resolves.toBeUndefined();
  });

  it('through the engine, a case cannot be set to follow a relative path (the contract refuses it)', async () => {
    const engine = await Engine.open({ home: tempHome() });
    try {
      const { id } = await engine.router.call('cases.create', { name: 'Scope' });
      await expect(engine.router.call('cases.setWatch', { case_id: id, folders: ['../../etc'] })).rejects.toMatchObject(
        { code: 'invalid_input' },
      );
      expect(readdirSync(engine.home)).toContain('cases');
    } finally {
      await engine.close();
    }
  });

  it('a model uploaded through the page is removed from the uploads once models.import copied it (a linked one stays)', async () => {
    const uploadsDir = path.join(tempHome(), 'uploads');
    const uploads = await createUploads({ uploadsDir, maxUploadBytes: 1024, events: new EventBus() });
    const batch = (name: string) => {
      const dir = path.join(uploadsDir, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'tiny.gguf'), 'GGUF');
      return dir;
    };
    const copied = batch('a1b2c3d4e5f6a7b8c9d0e1f2');
    const linked = batch('f1e2d3c4b5a6f7e8d9c0b1a2');
    const hook = uploads.afterOp['models.import'] as (input: unknown, value: unknown) => void;
    hook({ path: path.join(copied, 'tiny.gguf') }, {});
    hook({ path: path.join(linked, 'tiny.gguf'), mode: 'link' }, {});
    await expect.poll(() => existsSync(copied), { timeout: 10_000 }).toBe(false);
    expect(existsSync(path.join(linked, 'tiny.gguf'))).toBe(true);
    uploads.close();
  });
});
