/**
 * A followed folder's changed files are read without walking the folder (#16): `walkPaths` with
 * `only` takes just the named files, named as a walk of the folder names them, and nothing that
 * leads out of it; jobs merged for a resume read a path whole if any of them did.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeWalks } from '../../src/core/ingest/jobs';
import { walkPaths } from '../../src/core/util/walk';

describe('walkPaths – only the named files of a folder', () => {
  it('names as a walk gives them; gone, escaping, junk and outside links are skipped with a reason', async () => {
    const base = mkdtempSync(path.join(os.tmpdir(), 'casefile-walk-only-'));
    const folder = path.join(base, 'Smith');
    mkdirSync(path.join(folder, 'medical'), { recursive: true });
    writeFileSync(path.join(folder, 'complaint.txt'), 'complaint');
    writeFileSync(path.join(folder, 'medical', 'report.txt'), 'report');
    writeFileSync(path.join(folder, 'other.txt'), 'not asked for');
    writeFileSync(path.join(base, 'secret.txt'), 'outside');
    symlinkSync(path.join(base, 'secret.txt'), path.join(folder, 'link.txt'));

    const whole = await walkPaths([folder]);
    const named = await walkPaths([folder], undefined, {
      [folder]: ['medical/report.txt', 'complaint.txt', 'gone.txt', '../secret.txt', 'link.txt', '.hidden'],
    });
    expect(named.files.map((f) => f.name)).toEqual(['complaint.txt', 'medical/report.txt']);
    expect(named.files).toEqual(whole.files.filter((f) => f.name !== 'other.txt'));
    expect(Object.fromEntries(named.skipped.map((s) => [s.name, s.reason]))).toEqual({
      '.hidden': 'not a file of the folder',
      '../secret.txt': 'not a file of the folder',
      'gone.txt': 'not found',
      'link.txt': 'link pointing outside the dropped folder',
    });
  });
});

describe('mergeWalks – jobs merged for a resume', () => {
  it('a path read whole by one job is read whole; else the names of all jobs', () => {
    expect(
      mergeWalks([
        { paths: ['/a'], only: { '/a': ['x.txt'] } },
        { paths: ['/a'], only: { '/a': ['y.txt', 'x.txt'] } },
      ]),
    ).toEqual({ paths: ['/a'], only: { '/a': ['x.txt', 'y.txt'] } });
    expect(mergeWalks([{ paths: ['/a'], only: { '/a': ['x.txt'] } }, { paths: ['/a', '/b'] }])).toEqual({
      paths: ['/a', '/b'],
    });
    expect(mergeWalks([{ paths: ['/a'], only: { '/a': ['x.txt'] } }, { paths: ['/b'] }])).toEqual({
      paths: ['/a', '/b'],
      only: { '/a': ['x.txt'] },
    });
  });
});
