import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { tempHome } from '../helpers/home';

async function open() {
  const home = tempHome();
  const engine = await Engine.open({ home });
  return { home, engine, call: engine.router.call.bind(engine.router) };
}

describe('case registry', () => {
  it('create – list – rename – delete round trip', async () => {
    const { call } = await open();
    const a = await call('cases.create', { name: 'Smith v. Jones' });
    expect(a.id).toMatch(/^[a-z0-9]+$/);
    expect((await call('cases.list', {})).cases.map((c) => c.name)).toEqual(['Smith v. Jones']);
    const renamed = await call('cases.rename', { case_id: a.id, name: 'Smith v. Jones (appeal)' });
    expect(renamed.name).toBe('Smith v. Jones (appeal)');
    expect((await call('cases.get', { case_id: a.id })).name).toBe('Smith v. Jones (appeal)');
    await call('cases.delete', { case_id: a.id });
    expect((await call('cases.list', {})).cases).toEqual([]);
    await expect(call('cases.get', { case_id: a.id })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('create – unicode, slashes and emoji survive as the name, not as a path', async () => {
    const { call, home } = await open();
    const name = 'Müller ./.. / Ünal — 東京 ⚖️ 2024/05';
    const c = await call('cases.create', { name });
    expect((await call('cases.get', { case_id: c.id })).name).toBe(name);
    expect(await fs.readdir(path.join(home, 'cases'))).toEqual([c.id]);
  });

  it('create – two cases may share a name and stay separate', async () => {
    const { call, engine } = await open();
    const a = await call('cases.create', { name: 'Estate of Doe' });
    const b = await call('cases.create', { name: 'Estate of Doe' });
    expect(a.id).not.toBe(b.id);
    await expect(engine.cases.resolve('Estate of Doe')).rejects.toMatchObject({ code: 'ambiguous' });
    expect((await engine.cases.resolve(b.id)).id).toBe(b.id);
    await call('cases.delete', { case_id: a.id });
    expect((await call('cases.list', {})).cases.map((c) => c.id)).toEqual([b.id]);
    expect((await engine.cases.resolve('Estate of Doe')).id).toBe(b.id);
  });

  it('delete – removes the whole directory and leaves the other case intact', async () => {
    const { call, home } = await open();
    const a = await call('cases.create', { name: 'A' });
    const b = await call('cases.create', { name: 'B' });
    await fs.writeFile(path.join(home, 'cases', a.id, 'note.txt'), 'x');
    await fs.writeFile(path.join(home, 'cases', b.id, 'note.txt'), 'y');
    await call('cases.delete', { case_id: a.id });
    await expect(fs.stat(path.join(home, 'cases', a.id))).rejects.toThrow();
    expect(await fs.readFile(path.join(home, 'cases', b.id, 'note.txt'), 'utf8')).toBe('y');
  });

  it('list – filters by a case-insensitive name query', async () => {
    const { call } = await open();
    await call('cases.create', { name: 'Acme Corp lease' });
    await call('cases.create', { name: 'Baker estate' });
    expect((await call('cases.list', { query: 'ACME' })).cases.map((c) => c.name)).toEqual(['Acme Corp lease']);
  });

  it('atomic write – a temp file left by a crash is ignored and cleaned, the old name kept', async () => {
    const { call, home, engine } = await open();
    const c = await call('cases.create', { name: 'Original' });
    const dir = path.join(home, 'cases', c.id);
    // Simulate a crash mid-write: a half-written temp beside an intact case.json.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    await fs.writeFile(path.join(dir, `case.json.tmp-${dead}-deadbeef`), '{"schemaVersion":1,"name":"Half');
    // And a crash during create: a staging directory never renamed into place.
    await fs.mkdir(path.join(home, 'cases', '.creating-cabc'), { recursive: true });
    expect((await call('cases.list', {})).cases.map((x) => x.name)).toEqual(['Original']);
    await engine.close();
    await Engine.open({ home });
    expect(await fs.readdir(dir)).toEqual(['case.json']);
    expect(await fs.readdir(path.join(home, 'cases'))).toEqual([c.id]);
  });

  it('read – a damaged case.json is reported, not crashed on', async () => {
    const { call, home } = await open();
    const c = await call('cases.create', { name: 'X' });
    await fs.writeFile(path.join(home, 'cases', c.id, 'case.json'), '{"schemaVersion":1');
    await expect(call('cases.get', { case_id: c.id })).rejects.toMatchObject({ code: 'failed' });
    expect((await call('cases.list', {})).cases).toEqual([]);
  });
});
