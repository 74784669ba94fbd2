import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanTempFiles, TEMP_MARK, writeJsonAtomic } from '../../src/core/util/fs';

describe('temp files of atomic writes', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  const tempDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'casefile-temp-'));
    dirs.push(d);
    return d;
  };

  it('a crashed writer’s leftovers are removed; a write in flight (this process, or another still running) is left alone', async () => {
    const dir = tempDir();
    // A process that has ended: its pid names a crashed write.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    const crashed = path.join(dir, `s1.json${TEMP_MARK}${dead}-0a0b0c0d`);
    const mine = path.join(dir, `s2.json${TEMP_MARK}${process.pid}-0a0b0c0d`);
    const parent = path.join(dir, `s3.json${TEMP_MARK}${process.ppid}-0a0b0c0d`);
    for (const f of [crashed, mine, parent]) writeFileSync(f, '{}');
    await cleanTempFiles(dir);
    expect([crashed, mine, parent].map((f) => existsSync(f))).toEqual([false, true, true]);
  });

  it('listing while a session is written never breaks the write (the race a chat turn lost)', async () => {
    const dir = tempDir();
    const writes = Array.from({ length: 40 }, (_, i) =>
      writeJsonAtomic(path.join(dir, `s${i}.json`), { i, text: 'x'.repeat(20_000) }),
    );
    const cleans = Array.from({ length: 40 }, () => cleanTempFiles(dir));
    await expect(Promise.all([...writes, ...cleans])).resolves.toBeDefined();
    for (let i = 0; i < 40; i++) expect(existsSync(path.join(dir, `s${i}.json`))).toBe(true);
  });
});
