import { spawn } from 'node:child_process';
import { promises as fs, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { type AuditRecord, entryHash, GENESIS } from '../../src/core/audit/entry';
import { auditCsv } from '../../src/core/audit/export';
import { AuditLog } from '../../src/core/audit/log';
import { verifyAudit } from '../../src/core/audit/verify';
import { repoRoot, tempHome } from '../helpers/home';

/** Start a writer process (test/helpers/audit-writer.ts); resolves once it is ready, with its go signal and its exit. */
async function writerProcess(home: string, tag: string, count: number) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'test/helpers/audit-writer.ts'), home, tag, String(count)],
    { cwd: repoRoot, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', () => resolve());
    child.once('exit', (code) => reject(new Error(`writer ${tag} exited early (${code})`)));
  });
  return { go: () => child.stdin!.write('go\n'), exited };
}

/**
 * The audit trail as files on disk: every kind of access is one chained line; an edited, removed,
 * moved or cut-off line fails the check at that line; two writers keep one chain; the CSV export
 * filters by case and period and never hands a spreadsheet a formula.
 */
const admin = { user: 'ada', role: 'admin', address: '10.0.0.5' };
const reviewer = { user: 'rob', role: 'reviewer', address: '10.0.0.9' };

const rec = (kind: AuditRecord['kind'], what: AuditRecord['what'], case_id: string | null = 'c1'): AuditRecord => ({
  actor: reviewer,
  case_id,
  kind,
  what,
});

/** A log of `n` searches, one a minute from 2026-11-01 09:00 UTC. */
async function logOf(home: string, n: number): Promise<AuditLog> {
  const log = new AuditLog(home);
  for (let i = 0; i < n; i++)
    await log.append(rec('search', { words: `notice ${i}` }), new Date(Date.UTC(2026, 10, 1, 9, i)));
  return log;
}

const lines = (log: AuditLog) => readFileSync(log.file, 'utf8').trimEnd().split('\n');
const writeLines = (log: AuditLog, ls: string[]) => writeFileSync(log.file, `${ls.join('\n')}\n`);

describe('audit trail', () => {
  it('records each kind of access as one chained line with who, when, from where, which case and what', async () => {
    const home = tempHome();
    const log = new AuditLog(home);
    await log.append({ actor: admin, case_id: null, kind: 'sign_in', what: { method: 'password' } });
    await log.append({ actor: admin, case_id: 'c1', kind: 'membership', what: { change: 'added', user: 'rob' } });
    await log.append({ actor: admin, case_id: 'c1', kind: 'membership', what: { change: 'removed', user: 'eve' } });
    await log.append(rec('search', { words: 'termination notice' }));
    await log.append(rec('ask', { question: 'When may either party terminate?' }));
    await log.append(rec('open_page', { file_id: 'f1', version: 1, page: 3 }));
    await log.append(rec('export', { export: 'chat', format: 'docx' }));
    await log.append({ actor: admin, case_id: null, kind: 'sign_out', what: {} });
    const entries = lines(log).map((l) => JSON.parse(l));
    expect(entries.map((e) => e.kind)).toEqual([
      'sign_in',
      'membership',
      'membership',
      'search',
      'ask',
      'open_page',
      'export',
      'sign_out',
    ]);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(entries[0]).toMatchObject({ prev: GENESIS, actor: admin, case_id: null });
    expect(entries[1].prev).toBe(entries[0].hash);
    expect(entries[1].what).toEqual({ change: 'added', user: 'rob' });
    expect(entries[3]).toMatchObject({ actor: reviewer, case_id: 'c1', what: { words: 'termination notice' } });
    expect(entries[5].what).toEqual({ file_id: 'f1', version: 1, page: 3 });
    expect(Number.isNaN(Date.parse(entries[4].time))).toBe(false);
    expect(JSON.parse(readFileSync(log.headFile, 'utf8'))).toEqual({ seq: 8, hash: entries[7].hash });
    const check = await verifyAudit(log);
    expect(check).toMatchObject({ intact: true, entries: 8, broken: null, head: { seq: 8 } });
  });

  it('an empty trail is intact', async () => {
    const check = await verifyAudit(new AuditLog(tempHome()));
    expect(check).toMatchObject({ intact: true, entries: 0, head: null, broken: null });
  });

  it('an edited line fails the check at that line', async () => {
    const log = await logOf(tempHome(), 5);
    const ls = lines(log);
    ls[2] = ls[2]!.replace('notice 2', 'notice 9');
    writeLines(log, ls);
    const check = await verifyAudit(log);
    expect(check.intact).toBe(false);
    expect(check.broken).toMatchObject({ line: 3, seq: 3, reason: 'edited' });
    expect(check.broken!.message).toMatch(/Line 3.*changed/);
  });

  it('an edited line whose hash was recomputed still fails: the next line no longer follows it', async () => {
    const log = await logOf(tempHome(), 4);
    const ls = lines(log);
    const e = JSON.parse(ls[1]!);
    e.what.words = 'something else';
    e.hash = entryHash(e);
    ls[1] = JSON.stringify(e);
    writeLines(log, ls);
    expect((await verifyAudit(log)).broken).toMatchObject({ line: 2, reason: 'edited' });
  });

  it('a removed line in the middle fails the check', async () => {
    const log = await logOf(tempHome(), 5);
    const ls = lines(log);
    ls.splice(2, 1);
    writeLines(log, ls);
    const check = await verifyAudit(log);
    expect(check.broken).toMatchObject({ line: 3, seq: 4, reason: 'removed' });
    expect(check.broken!.message).toBe('Entry 3 was removed before line 3.');
  });

  it('a removed last line fails the check through the head record', async () => {
    const log = await logOf(tempHome(), 5);
    writeLines(log, lines(log).slice(0, 4));
    const check = await verifyAudit(log);
    expect(check.broken).toMatchObject({ line: 5, reason: 'truncated' });
    expect(check.broken!.message).toMatch(/last entry \(5\) was removed/);
    // Every line removed, the head record kept: still noticed.
    await fs.writeFile(log.file, '');
    expect((await verifyAudit(log)).broken).toMatchObject({ line: 1, reason: 'truncated' });
  });

  it('swapped lines fail as reordered; a line cut short as unreadable; a removed head record is noticed', async () => {
    const log = await logOf(tempHome(), 5);
    const ls = lines(log);
    writeLines(log, [ls[0]!, ls[2]!, ls[1]!, ls[3]!, ls[4]!]);
    expect((await verifyAudit(log)).broken).toMatchObject({ line: 2, reason: 'reordered' });
    writeLines(log, [ls[0]!, ls[1]!, ls[2]!.slice(0, 40), ls[3]!, ls[4]!]);
    expect((await verifyAudit(log)).broken).toMatchObject({ line: 3, reason: 'unreadable' });
    writeLines(log, ls);
    expect((await verifyAudit(log)).intact).toBe(true);
    await fs.rm(log.headFile);
    expect((await verifyAudit(log)).broken).toMatchObject({ reason: 'truncated' });
  });

  it('after damage, new entries still follow the head, so the damage stays visible', async () => {
    const log = await logOf(tempHome(), 3);
    writeLines(log, lines(log).slice(0, 2));
    const next = await new AuditLog(log.dir.replace(/\/audit$/, '')).append(rec('search', { words: 'after' }));
    expect(next.seq).toBe(4);
    expect((await verifyAudit(log)).broken).toMatchObject({ line: 3, seq: 4, reason: 'removed' });
  });

  it('two writers appending at once (separate queues, one lock file) keep one valid chain', async () => {
    const home = tempHome();
    const a = new AuditLog(home);
    const b = new AuditLog(home);
    const writes: Promise<unknown>[] = [];
    for (let i = 0; i < 40; i++) {
      writes.push(a.append(rec('search', { words: `a${i}` })));
      writes.push(b.append(rec('ask', { question: `b${i}` })));
    }
    await Promise.all(writes);
    const entries = lines(a).map((l) => JSON.parse(l));
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    expect(await verifyAudit(a)).toMatchObject({ intact: true, entries: 80 });
  });

  it('entries appended while the log is being checked are not taken for tampering', async () => {
    const home = tempHome();
    const writer = await logOf(home, 3);
    // A check that, once it has begun, reads the lines only after two more entries were appended (a long log, a busy server).
    let begun!: () => void;
    const reading = new Promise<void>((resolve) => (begun = resolve));
    let appended!: () => void;
    const others = new Promise<void>((resolve) => (appended = resolve));
    class SlowReader extends AuditLog {
      override async *lines(size?: number): AsyncGenerator<string> {
        begun();
        await others;
        yield* super.lines(size);
      }
    }
    const checking = verifyAudit(new SlowReader(home));
    await reading;
    await writer.append(rec('search', { words: 'during 1' }));
    await writer.append(rec('search', { words: 'during 2' }));
    appended();
    const check = await checking;
    expect(check.broken).toBeNull();
    expect(check.entries).toBe(3);
    expect((await verifyAudit(writer)).entries).toBe(5);
  });

  it('two processes appending at once keep one valid chain', async () => {
    const home = tempHome();
    const a = await writerProcess(home, 'alpha', 60);
    const b = await writerProcess(home, 'beta', 60);
    a.go();
    b.go();
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const log = new AuditLog(home);
    const users = lines(log).map((l) => JSON.parse(l).actor.user as string);
    expect(users.filter((u) => u === 'alpha')).toHaveLength(60);
    expect(users.filter((u) => u === 'beta')).toHaveLength(60);
    expect(await verifyAudit(log)).toMatchObject({ intact: true, entries: 120, head: { seq: 120 } });
  });

  it('a lock left by a process that is gone, or left empty long ago, is taken over', async () => {
    const home = tempHome();
    const log = await logOf(home, 1);
    // A pid far above any real one: no such process.
    writeFileSync(`${log.dir}/audit.lock`, JSON.stringify({ pid: 2 ** 30, token: 'x' }));
    await log.append(rec('search', { words: 'next' }));
    // Left empty by a crash between creating and writing it, a minute ago: taken over by its age.
    writeFileSync(`${log.dir}/audit.lock`, '');
    const minuteAgo = new Date(Date.now() - 60_000);
    await fs.utimes(`${log.dir}/audit.lock`, minuteAgo, minuteAgo);
    await log.append(rec('search', { words: 'after a crash' }));
    expect(await verifyAudit(log)).toMatchObject({ intact: true, entries: 3 });
  });

  it('CSV export filters by case and period and neutralises formulas', async () => {
    const log = new AuditLog(tempHome());
    const day = (d: number, h = 12) => new Date(Date.UTC(2026, 10, d, h));
    await log.append(rec('search', { words: '=HYPERLINK("http://x","y")' }, 'c1'), day(1));
    await log.append(rec('ask', { question: '+1 what notice?' }, 'c1'), day(2, 23));
    await log.append(rec('search', { words: 'other matter' }, 'c2'), day(2));
    await log.append(
      { actor: { ...admin, user: '@evil' }, case_id: 'c1', kind: 'export', what: { export: 'chat' } },
      day(3),
    );
    await log.append(rec('search', { words: 'later' }, 'c1'), day(5));
    // A case's name and a user's name are typed by people: either may start like a formula.
    const names = new Map([['c1', '=cmd|"/c calc"!A1']]);
    const { csv, entries } = await auditCsv(log, { case_id: 'c1', from: '2026-11-01', to: '2026-11-03' }, names);
    expect(entries).toBe(3);
    const rows = csv.trimEnd().split('\r\n');
    expect(rows[0]).toBe('Seq,Time (UTC),User,Role,Address,Case ID,Case,Action,What,Hash');
    expect(rows).toHaveLength(4);
    expect(rows.slice(1).map((r) => r.split(',')[0])).toEqual(['1', '2', '4']);
    // A cell that would start with a formula character begins with an apostrophe instead.
    expect(rows[1]).toContain(`,"'=cmd|""/c calc""!A1",search,"words: =HYPERLINK(""http://x"",""y"")",`);
    expect(rows[3]).toContain(",'@evil,");
    const cells = rows.slice(1).flatMap((r) => r.split(','));
    expect(cells.filter((c) => /^"?[=+\-@]/.test(c))).toEqual([]);
    // A period by time, not only by day; and every case.
    const all = await auditCsv(log, { from: '2026-11-02T20:00:00Z' }, names);
    expect(all.entries).toBe(3);
  });
});
