import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const MEMO = 'On 3 March 2021 the landlord served notice to quit the premises at 14 Elm Street.\n';

describe('casefile cases export / import (child process)', () => {
  it('moves a locked matter to another home and back as a new version, with plain refusals', async () => {
    const home = tempHome();
    const away = tempHome();
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    writeFileSync(path.join(drop, 'memo.txt'), MEMO);
    const id = (await runCasefile(home, ['cases', 'create', 'Elm Street'])).stdout.trim();
    expect((await runCasefile(home, ['ingest', id, drop])).code).toBe(0);
    const file = path.join(away, 'elm.casefile');

    const exported = await runCasefile(home, ['cases', 'export', 'Elm Street', '--out', file, '--passphrase-stdin'], {
      input: 'open sesame 42\n',
    });
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toMatch(
      /^Exported "Elm Street" \(\w+\) to .*elm\.casefile: \d+ files, .*, locked with a passphrase\.\n$/,
    );

    const wrong = await runCasefile(away, ['cases', 'import', file, '--passphrase-stdin'], { input: 'open sesame\n' });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('The passphrase does not open this matter file.');
    expect(wrong.stderr).not.toMatch(/\bat \w+ \(/); // no stack
    expect(readdirSync(path.join(away, 'cases'))).toEqual([]);

    const imported = await runCasefile(away, ['cases', 'import', file, '--passphrase-stdin', '--json'], {
      input: 'open sesame 42\n',
    });
    expect(imported.code).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ id, name: 'Elm Street', encrypted: true, earlier: null });
    const found = await runCasefile(away, ['search', id, 'notice to quit', '--json']);
    expect(found.stdout).toContain('served notice to quit');

    // Back home: the matter comes back as the current version, the one it replaces kept.
    const back = await runCasefile(home, ['cases', 'import', file, '--passphrase-stdin'], {
      input: 'open sesame 42\n',
    });
    expect(back.code).toBe(0);
    expect(back.stdout).toContain(
      'It replaces the case of the same id here, which is kept as "Elm Street (earlier version,',
    );
    const listed = JSON.parse((await runCasefile(home, ['cases', 'list', '--json'])).stdout) as {
      cases: { id: string }[];
    };
    expect(listed.cases).toHaveLength(2);
    expect(listed.cases.map((c) => c.id)).toContain(id);

    const usage = await runCasefile(home, ['cases', 'export', id]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('cases export takes <case> --out FILE.casefile');
  });
});
