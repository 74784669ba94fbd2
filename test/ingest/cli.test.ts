import { execFile, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync, copyFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ChunkStore } from '../../src/core/retrieval/store';
import { CaseDocuments } from '../../src/core/documents/case-documents';
import { corpusDir, cliEntry, repoRoot, tempHome } from '../helpers/home';
import { imageOnlyPdf, multiPagePdf, writeFixtureSet } from '../fixtures/pdfs';

const run = promisify(execFile);
const BIN = cliEntry;

async function cli(home: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return cliEnv(home, {}, ...args);
}

async function cliEnv(
  home: string,
  env: NodeJS.ProcessEnv,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, '--home', home, ...args], {
      cwd: repoRoot,
      env: { ...process.env, CASEFILE_HOME: '', ...env },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

async function smallFolder(dir: string): Promise<void> {
  const files: Record<string, Uint8Array | string> = {
    'a/lease.pdf': await multiPagePdf(12, 25, 'lease'),
    'a/addendum.pdf': await multiPagePdf(8, 25, 'addendum'),
    'scan.pdf': await imageOnlyPdf(),
    'notes.txt': Array.from({ length: 120 }, (_, i) => `Note ${i}: called the tenant about the repairs.`).join('\n'),
    'empty.txt': '',
  };
  await writeFixtureSet(dir, files);
  copyFileSync(path.join(corpusDir, 'freelaw-doctor/word-docx.docx'), path.join(dir, 'motion.docx'));
}

/** Every chunk of the case as "name@vN#i start-end hash", from ingest's store and from the LanceDB index. */
async function chunkSet(
  caseDir: string,
): Promise<{ stored: string[]; indexed: string[]; statuses: Record<string, string> }> {
  const docs = new CaseDocuments(caseDir);
  const stored: string[] = [];
  const statuses: Record<string, string> = {};
  for (const f of await docs.listFiles()) {
    const v = f.versions[f.versions.length - 1]!;
    statuses[f.name] = `v${v.version} ${v.status}`;
    if (v.status !== 'indexed') continue;
    for (const c of await docs.getChunks(f.id)) stored.push(`${c.chunk_id} ${c.start}-${c.end} ${c.hash}`);
  }
  const index = await ChunkStore.open(caseDir);
  try {
    const rows = await index.rows(undefined);
    const indexed = rows.map((c) => `${c.chunk_id} ${c.start}-${c.end} ${c.hash}`);
    return { stored: stored.sort(), indexed: indexed.sort(), statuses };
  } finally {
    index.close();
  }
}

describe('casefile ingest / files (CLI)', () => {
  it('--json shapes; unchanged on re-run; files lists versions; usage errors exit 2', async () => {
    const home = tempHome('casefile-cli-');
    const drop = path.join(home, 'drop');
    mkdirSync(drop);
    writeFileSync(
      path.join(drop, 'letter.txt'),
      'Dear Ms. Roe,\n\nWe write on May 2, 2023 about the lease.\n\nSincerely,\nCounsel',
    );
    writeFileSync(path.join(drop, 'blank.txt'), '');
    const created = JSON.parse((await cli(home, 'cases', 'create', 'Roe matter', '--json')).stdout) as { id: string };

    const first = await cli(home, 'ingest', 'Roe matter', drop, '--json');
    expect(first.code).toBe(0);
    const results = JSON.parse(first.stdout) as { results: Record<string, unknown>[] };
    expect(results).toEqual({
      results: [
        { name: 'blank.txt', version: 1, status: 'failed', reason: 'empty file' },
        { name: 'letter.txt', version: 1, status: 'indexed', reason: '' },
      ],
    });
    const again = JSON.parse((await cli(home, 'ingest', created.id, drop, '--json')).stdout) as {
      results: { status: string }[];
    };
    expect(again.results.map((r) => r.status)).toEqual(['unchanged', 'unchanged']);

    writeFileSync(path.join(drop, 'letter.txt'), 'Dear Ms. Roe,\n\nWe write again on June 9, 2023.\n');
    await cli(home, 'ingest', created.id, path.join(drop, 'letter.txt'), '--json');
    const files = JSON.parse((await cli(home, 'files', created.id, '--json')).stdout) as {
      files: Record<string, unknown>[];
    };
    expect(files.files).toEqual([
      {
        id: expect.any(String),
        name: 'blank.txt',
        version: 1,
        versions: [1],
        type: 'other',
        pages: 0,
        status: 'failed',
        reason: 'empty file',
        date: '',
        kind: 'unknown',
        title: 'blank',
      },
      {
        id: expect.any(String),
        name: 'letter.txt',
        version: 2,
        versions: [1, 2],
        type: 'correspondence',
        pages: 1,
        status: 'indexed',
        reason: '',
        date: '2023-06-09',
        kind: 'text',
        title: 'letter',
      },
    ]);

    const text = await cli(home, 'files', created.id);
    expect(text.stdout).toMatch(/letter\.txt\s+v2 \(of v1,v2\)\s+correspondence/);
    const plain = await cli(home, 'ingest', created.id, drop);
    expect(plain.stdout).toMatch(/2 files: 2 unchanged/);
    expect(plain.stdout).toMatch(/now holds 2 files \(/);
    const list = JSON.parse((await cli(home, 'cases', 'list', '--json')).stdout) as {
      cases: { files: number; bytes: number }[];
    };
    expect(list.cases[0]).toMatchObject({ files: 2 });
    expect(list.cases[0]!.bytes).toBeGreaterThan(50);

    expect((await cli(home, 'ingest', created.id)).code).toBe(2);
    expect((await cli(home, 'files')).code).toBe(2);
    const missing = await cli(home, 'ingest', 'No such case', drop);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No case with id or name "No such case"/);
  });

  it('crash – killed at random points, the next run finishes with exactly the chunks of a clean run', async () => {
    const drop = path.join(tempHome('casefile-crash-src-'), 'folder');
    await smallFolder(drop);

    // Clean run.
    const cleanHome = tempHome('casefile-clean-');
    const cleanCase = JSON.parse((await cli(cleanHome, 'cases', 'create', 'Clean', '--json')).stdout) as { id: string };
    const cleanStart = Date.now();
    expect((await cli(cleanHome, 'ingest', cleanCase.id, drop, '--json')).code).toBe(0);
    // Kill points are fractions of how long a whole run takes on this machine (start-up included),
    // so they land inside the run on a fast idle machine and on a loaded one alike.
    const runMs = Date.now() - cleanStart;
    const clean = await chunkSet(path.join(cleanHome, 'cases', cleanCase.id));
    expect(clean.stored.length).toBeGreaterThan(20);
    expect(clean.indexed).toEqual(clean.stored);

    // Killed runs: SIGKILL after pseudo-random delays covering start-up, hashing, parsing and indexing.
    // (CASEFILE_CRASH_SEED / CASEFILE_CRASH_KILLS vary the kill points for a longer local soak.)
    // Each run reads the unfinished files first, so on a loaded machine three kills can all land while
    // the same healthy file is read, and quarantine would rightly set it aside (hostile.test.ts covers
    // that): this test is about durability, so quarantine waits for more kills than it makes.
    const noQuarantine = { CASEFILE_QUARANTINE_AFTER: '1000' };
    const home = tempHome('casefile-killed-');
    const c = JSON.parse((await cli(home, 'cases', 'create', 'Killed', '--json')).stdout) as { id: string };
    let seed = Number(process.env.CASEFILE_CRASH_SEED ?? 7);
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const kills: number[] = [];
    for (let i = 0; i < Number(process.env.CASEFILE_CRASH_KILLS ?? 4); i++) {
      // The first kill lands early in a full run (guaranteed to interrupt it); later ones anywhere.
      const delay = Math.floor(runMs * (i === 0 ? 0.45 + rand() * 0.15 : 0.3 + rand() * 0.7));
      const child = spawn(process.execPath, [BIN, '--home', home, 'ingest', c.id, drop, '--json'], {
        cwd: repoRoot,
        stdio: 'ignore',
        env: { ...process.env, ...noQuarantine },
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      const timer = setTimeout(() => child.kill('SIGKILL'), delay);
      const code = await exited;
      clearTimeout(timer);
      kills.push(code === null ? delay : -1);
    }
    // At least one kill landed before the run finished (otherwise the test proves nothing).
    expect(kills.some((k) => k > 0)).toBe(true);

    const resumed = await cliEnv(home, noQuarantine, 'ingest', c.id, drop, '--json');
    expect(resumed.code).toBe(0);
    const statuses = (JSON.parse(resumed.stdout) as { results: { status: string }[] }).results.map((r) => r.status);
    expect(statuses.every((s) => ['indexed', 'unchanged', 'needs_ocr', 'failed'].includes(s))).toBe(true);
    const after = await chunkSet(path.join(home, 'cases', c.id));
    expect(after.statuses).toEqual(clean.statuses);
    expect(after.stored).toEqual(clean.stored);
    expect(after.indexed).toEqual(clean.stored);
    // No job left behind, no temp files, no orphan originals.
    expect(readdirSync(path.join(home, 'jobs'))).toEqual([]);
    expect(readdirSync(path.join(home, 'cases', c.id, 'files')).every((n) => /^[0-9a-f]{64}$/.test(n))).toBe(true);
  });
});
