import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { cliEntry, tempHome } from '../helpers/home';

describe('casefile cases (child process)', () => {
  it('create – list – rename – delete, in text and JSON', async () => {
    const home = tempHome();
    const created = await runCasefile(home, ['cases', 'create', 'Acme v. Roadrunner / 2024 ⚖️', '--json']);
    expect(created.code).toBe(0);
    const { id, name } = JSON.parse(created.stdout) as { id: string; name: string };
    expect(name).toBe('Acme v. Roadrunner / 2024 ⚖️');

    const plain = await runCasefile(home, ['cases', 'create', 'Second matter']);
    expect(plain.code).toBe(0);
    expect(plain.stdout.trim()).toMatch(/^[a-z0-9]+$/);

    const listed = await runCasefile(home, ['cases', 'list', '--json']);
    expect(listed.code).toBe(0);
    const { cases } = JSON.parse(listed.stdout) as { cases: Record<string, unknown>[] };
    expect(cases).toHaveLength(2);
    expect(Object.keys(cases[0]!).sort()).toEqual(['bytes', 'created', 'files', 'id', 'name']);

    const text = await runCasefile(home, ['cases', 'list']);
    expect(text.stdout).toContain('Acme v. Roadrunner / 2024 ⚖️');
    expect(text.stdout).toContain('Second matter');

    const renamed = await runCasefile(home, ['cases', 'rename', 'Second matter', 'Second matter (settled)']);
    expect(renamed.code).toBe(0);
    expect((await runCasefile(home, ['cases', 'list'])).stdout).toContain('Second matter (settled)');

    // OCR: on by default; turned off and on by name; an uninstalled language is refused plainly.
    expect((await runCasefile(home, ['cases', 'ocr', 'Second matter (settled)'])).stdout.trim()).toBe(
      'OCR is on for "Second matter (settled)" (language: eng).',
    );
    const off = await runCasefile(home, ['cases', 'ocr', 'Second matter (settled)', 'off', '--json']);
    expect(JSON.parse(off.stdout)).toMatchObject({ ocr: { enabled: false, language: 'eng' }, available: true });
    const klingon = await runCasefile(home, ['cases', 'ocr', 'Second matter (settled)', '--language', 'klingon']);
    expect(klingon.code).not.toBe(0);
    expect(klingon.stderr).toContain('No OCR language "klingon" is installed (installed: eng).');
    expect((await runCasefile(home, ['cases', 'ocr', 'Second matter (settled)', 'on'])).stdout).toContain('OCR is on');

    const refused = await runCasefile(home, ['cases', 'delete', id]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--yes/);

    const deleted = await runCasefile(home, ['cases', 'delete', id, '--yes']);
    expect(deleted.code).toBe(0);
    const after = JSON.parse((await runCasefile(home, ['cases', 'list', '--json'])).stdout) as {
      cases: { name: string }[];
    };
    expect(after.cases.map((c) => c.name)).toEqual(['Second matter (settled)']);
  });

  it('usage errors – exit 2 with a one-line reason and the usage', async () => {
    const home = tempHome();
    for (const args of [
      ['cases'],
      ['frobnicate'],
      ['toString'],
      ['constructor'],
      ['cases', 'create'],
      ['cases', 'list', '--bogus-flag'],
      [],
    ]) {
      const r = await runCasefile(home, args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/Usage:/);
      expect(r.stdout).toBe('');
    }
  });

  it('failures – exit 1 with a clear reason: unknown case, ambiguous name', async () => {
    const home = tempHome();
    const missing = await runCasefile(home, ['cases', 'rename', 'nope', 'x']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No case with id or name "nope"/);
    await runCasefile(home, ['cases', 'create', 'Twin']);
    await runCasefile(home, ['cases', 'create', 'Twin']);
    const ambiguous = await runCasefile(home, ['cases', 'delete', 'Twin', '--yes']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(/2 cases are named "Twin"; use an id/);
  });

  it('delete – drops the persisted jobs of an interrupted ingest of that case, not of other cases', async () => {
    const { mkdirSync, readdirSync, writeFileSync } = await import('node:fs');
    const path = await import('node:path');
    const home = tempHome();
    const ids: string[] = [];
    for (const name of ['Gone', 'Kept'])
      ids.push(
        (JSON.parse((await runCasefile(home, ['cases', 'create', name, '--json'])).stdout) as { id: string }).id,
      );
    // What a process killed mid-ingest leaves behind (its pid no longer runs).
    mkdirSync(path.join(home, 'jobs'));
    for (const [i, caseId] of ids.entries()) {
      const job = {
        schemaVersion: 1,
        id: `j${i}`,
        caseId,
        paths: [home],
        created: new Date().toISOString(),
        state: 'running',
        pid: 2 ** 22 + 12345,
      };
      writeFileSync(path.join(home, 'jobs', `j${i}.json`), JSON.stringify(job));
    }
    const deleted = await runCasefile(home, ['cases', 'delete', ids[0]!, '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(readdirSync(path.join(home, 'jobs'))).toEqual(['j1.json']);
  });

  it('invalid name – exit 2 naming the field', async () => {
    const r = await runCasefile(tempHome(), ['cases', 'create', '   ']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/name: Enter a name./);
  });

  it('CASEFILE_HOME – is the data folder when --home is absent', async () => {
    const home = tempHome();
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [cliEntry, 'cases', 'create', 'Via env', '--json'], {
      env: { ...process.env, CASEFILE_HOME: home },
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    const listed = await runCasefile(home, ['cases', 'list', '--json']);
    expect(JSON.parse(listed.stdout).cases[0].name).toBe('Via env');
  });
});
