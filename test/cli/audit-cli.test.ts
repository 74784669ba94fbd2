import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AuditLog } from '../../src/core/audit/log';
import { Engine } from '../../src/core/engine';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

/** `casefile audit check` and `casefile audit export` (child process) on a trail written to disk. */
describe('casefile audit', () => {
  it('check: exit 0 when intact, 1 with the line and reason when a line was removed; --json shape', async () => {
    const home = tempHome();
    const log = new AuditLog(home);
    const actor = { user: 'rob', role: 'reviewer', address: '10.0.0.9' };
    for (const words of ['indemnity', 'notice', 'term'])
      await log.append({ actor, case_id: 'c1', kind: 'search', what: { words } });

    const ok = await runCasefile(home, ['audit', 'check']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/intact: 3 entries/);

    const lines = readFileSync(log.file, 'utf8').trimEnd().split('\n');
    writeFileSync(log.file, `${[lines[0], lines[2]].join('\n')}\n`);
    const bad = await runCasefile(home, ['audit', 'check']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/broken at line 2: Entry 2 was removed/);
    const json = await runCasefile(home, ['audit', 'check', '--json']);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({
      intact: false,
      entries: 2,
      head: { seq: 3 },
      broken: { line: 2, seq: 3, reason: 'removed' },
      file: log.file,
    });
  });

  it('export: --case by name, --from/--to, --out writes a CSV with a header row', async () => {
    const home = tempHome();
    const engine = await Engine.open({ home });
    const { id } = await engine.router.call('cases.create', { name: 'Acme v. Widget' });
    await engine.close();
    const log = new AuditLog(home);
    const actor = { user: 'token holder', role: 'token', address: '127.0.0.1' };
    await log.append(
      { actor, case_id: id, kind: 'ask', what: { question: 'Who signed?' } },
      new Date('2026-11-02T10:00:00Z'),
    );
    await log.append(
      { actor, case_id: 'other', kind: 'search', what: { words: 'x' } },
      new Date('2026-11-02T11:00:00Z'),
    );
    await log.append({ actor, case_id: id, kind: 'search', what: { words: 'late' } }, new Date('2026-11-09T10:00:00Z'));
    const out = path.join(home, 'trail.csv');
    const r = await runCasefile(home, [
      'audit',
      'export',
      '--case',
      'Acme v. Widget',
      '--from',
      '2026-11-01',
      '--to',
      '2026-11-05',
      '--out',
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/Wrote 1 entry/);
    const rows = readFileSync(out, 'utf8').trimEnd().split('\r\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain('Who signed?');
    expect((await runCasefile(home, ['audit', 'export'])).code).toBe(2);
  });
});
