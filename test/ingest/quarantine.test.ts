/**
 * Quarantine counts only what the file may have caused (#42, item 5). The app killed from outside
 * while a reader works on a file (a user, a session ending, the system) is not the file's doing:
 * after three such kills the file is read again, not set aside. The app dying while it stores what
 * a reader handed over still counts (`reading.json`), and three of those set the file aside.
 * Kills wait on what the reader is doing (its memory), never on a time.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bombPdf } from '../fixtures/hostile';
import { multiPagePdf } from '../fixtures/pdfs';
import { cliEntry, repoRoot, tempHome } from '../helpers/home';
import { runMeasured } from '../helpers/measured';
import { largestDescendantRss } from '../helpers/proc';

const BIN = cliEntry;

interface Result {
  name: string;
  status: string;
  reason: string;
}

/** Start `casefile ingest` and kill it (as the system would) while its reader is well into a file: holding more than start-up takes. */
async function killWhileReading(home: string, caseId: string, drop: string, env: NodeJS.ProcessEnv): Promise<void> {
  const child = spawn(process.execPath, [BIN, '--home', home, 'ingest', caseId, drop, '--json'], {
    cwd: repoRoot,
    env,
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  while (largestDescendantRss(child.pid!) < 600 * 1024 * 1024 && child.exitCode === null)
    await new Promise((r) => setTimeout(r, 20));
  expect(child.exitCode, 'the run ended before its reader was well into the file').toBeNull();
  child.kill('SIGKILL');
  await exited;
}

describe('quarantine', () => {
  it('three kills of the app while a reader works do not set the file aside; three deaths while storing it do', {
    timeout: 300_000,
  }, async () => {
    const home = tempHome('casefile-quarantine-');
    const drop = path.join(tempHome('casefile-quarantine-src-'), 'drop');
    mkdirSync(drop, { recursive: true });
    writeFileSync(path.join(drop, 'a-scan.pdf'), bombPdf(true));
    // Readers get all the memory they ask for, so reading the file takes a while: the app is killed meanwhile.
    const env = { ...process.env, CASEFILE_HOME: '', CASEFILE_PARSE_MEMORY_MB: '3000' };
    const { id } = JSON.parse((await runMeasured(home, ['cases', 'create', 'Kills', '--json'])).stdout) as {
      id: string;
    };
    const reading = path.join(home, 'cases', id, 'reading.json');
    for (let kill = 1; kill <= 3; kill++) {
      await killWhileReading(home, id, drop, env);
      expect(existsSync(reading)).toBe(false);
    }
    // The next run reads the file again: here its reader is stopped at the memory limit (the file's
    // own doing, said so), not set aside for the kills; a good file beside it goes in.
    writeFileSync(path.join(drop, 'b-lease.pdf'), await multiPagePdf(2, 10, 'lease'));
    const run = await runMeasured(home, ['ingest', id, drop, '--json'], { env: { CASEFILE_PARSE_MEMORY_MB: '700' } });
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const results = (JSON.parse(run.stdout) as { results: Result[] }).results;
    expect(results.find((r) => r.name === 'a-scan.pdf')).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^stopped: it needed more than 700 MB of memory/),
    });
    expect(results.find((r) => r.name === 'b-lease.pdf')?.status).toBe('indexed');

    // Deaths while storing what a reader handed over still count: a file left with three of them
    // in reading.json (as three such deaths leave it) is set aside by the next run at once.
    const files = JSON.parse((await runMeasured(home, ['files', id, '--json'])).stdout) as {
      files: { id: string; name: string; version: number }[];
    };
    const scan = files.files.find((f) => f.name === 'a-scan.pdf')!;
    writeFileSync(path.join(drop, 'a-scan.pdf'), Buffer.concat([bombPdf(true), Buffer.from('\n% a second version\n')]));
    await killWhileReading(home, id, drop, env);
    writeFileSync(reading, JSON.stringify({ [`${scan.id}@2`]: 3 }));
    const set = await runMeasured(home, ['ingest', id, drop, '--json'], { env: { CASEFILE_PARSE_MEMORY_MB: '700' } });
    const v2 = (JSON.parse(set.stdout) as { results: (Result & { version: number })[] }).results.find(
      (r) => r.name === 'a-scan.pdf',
    )!;
    expect(v2).toMatchObject({
      version: 2,
      status: 'failed',
      reason: expect.stringContaining(
        'closed unexpectedly 3 times while storing what it read from this file, so it was set aside',
      ),
    });
    expect(existsSync(reading)).toBe(false);
  });
});
