import { mkdirSync, openSync, closeSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sweepLanceTemp } from '../../src/core/retrieval/lancedb-temp';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const HOUR = 60 * 60 * 1000;

/** A ".tmpXXXXXX" folder as LanceDB's index build leaves it, last written `ageMs` ago. */
function leftover(dir: string, name: string, files: string[], ageMs: number): string {
  const folder = path.join(dir, name);
  mkdirSync(folder);
  const when = new Date(Date.now() - ageMs);
  for (const f of files) {
    writeFileSync(path.join(folder, f), 'x');
    utimesSync(path.join(folder, f), when, when);
  }
  utimesSync(folder, when, when);
  return folder;
}

describe('LanceDB temp folders left by a killed run', () => {
  it('go at the next start that opens LanceDB; another program’s temp folders and fresh ones stay', async () => {
    const home = tempHome();
    const tmp = path.join(home, 'system-tmp');
    mkdirSync(tmp);
    // What a kill during a vector-index build leaves (measured: the IVF shuffle's files).
    leftover(
      tmp,
      '.tmpAbC123',
      ['shuffle_data.lance', 'shuffle_offsets.lance', 'shuffle_data.spill', 'shuffle_offsets.spill'],
      2 * HOUR,
    );
    leftover(tmp, '.tmpBcD234', ['spill_state.spill'], 3 * HOUR);
    // Not LanceDB's (another program's files), LanceDB's but being written, empty (could be anyone's): kept.
    leftover(tmp, '.tmpCdE345', ['notes.txt'], 2 * HOUR);
    leftover(tmp, '.tmpDeF456', ['shuffle_data.lance'], 0);
    leftover(tmp, '.tmpEfG567', [], 2 * HOUR);
    leftover(tmp, 'lancedb-cache', ['shuffle_data.lance'], 2 * HOUR);

    const env = { TMPDIR: tmp, TMP: tmp, TEMP: tmp };
    const created = await runCasefile(home, ['cases', 'create', 'Temp test', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    // A command that does not open LanceDB does not sweep; a search does.
    expect(readdirSync(tmp)).toContain('.tmpAbC123');
    const search = await runCasefile(home, ['search', 'Temp test', 'notice'], { env });
    expect(search.code, search.stderr).toBe(0);
    expect(
      readdirSync(tmp)
        .filter((n) => n !== 'tsx-0' && !n.startsWith('tsx-'))
        .sort(),
    ).toEqual(['.tmpCdE345', '.tmpDeF456', '.tmpEfG567', 'lancedb-cache']);
  });

  it.skipIf(process.platform !== 'linux')(
    'a folder a running process still has a file open in stays, however old',
    async () => {
      const tmp = path.join(tempHome(), 'system-tmp');
      mkdirSync(tmp);
      const open = leftover(tmp, '.tmpHiJ789', ['shuffle_data.lance'], 5 * HOUR);
      const stale = leftover(tmp, '.tmpIjK890', ['shuffle_data.lance'], 5 * HOUR);
      const fd = openSync(path.join(open, 'shuffle_data.lance'), 'r');
      try {
        expect(await sweepLanceTemp({ dir: tmp })).toEqual([stale]);
        expect(readdirSync(tmp)).toEqual(['.tmpHiJ789']);
      } finally {
        closeSync(fd);
      }
    },
  );
});
