import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCasefile, type CliResult } from '../helpers/cli';
import { cliEntry, repoRoot, tempHome } from '../helpers/home';

/**
 * Exports replace the file the user named atomically: a write that fails half-way (here the
 * system's file-size limit, which fails the write once the file reaches 1 KiB, every time at the
 * same byte) keeps the previous export whole, and a full disk is said in plain words.
 */
let home: string;

const session = {
  schemaVersion: 1,
  id: 's_atomic',
  title: 'Notice questions',
  created: '2026-11-05T14:00:00.000Z',
  updated: '2026-11-05T14:00:00.000Z',
  ledger: [],
  messages: [
    { id: 'm1', role: 'user', turnId: 't1', created: '2026-11-05T14:00:00.000Z', content: 'What notice ends the MSA?' },
    {
      id: 'm2',
      role: 'assistant',
      turnId: 't1',
      created: '2026-11-05T14:00:01.000Z',
      status: 'done',
      grounded: false,
      content: 'Sixty days’ prior written notice.',
      citations: [],
    },
  ],
};

/** `casefile` under a file-size limit of `kib` KiB (bash's `ulimit -f`): a write past it fails with EFBIG. */
function runLimited(kib: number, args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const script = `ulimit -f ${kib} && exec "$0" "$@"`;
    const child = spawn('bash', ['-c', script, process.execPath, cliEntry, '--home', home, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

beforeAll(async () => {
  home = tempHome();
  const created = await runCasefile(home, ['cases', 'create', 'Rivera v. Acme', '--json']);
  const caseId = (JSON.parse(created.stdout) as { id: string }).id;
  const dir = path.join(home, 'cases', caseId, 'chats');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 's_atomic.json'), JSON.stringify({ ...session, caseId }));
});

describe.skipIf(process.platform === 'win32')('exports are written atomically (child process)', () => {
  it('chat export --format docx: a write that fails half-way keeps the previous export whole', async () => {
    const out = path.join(home, 'exports', 'chat.docx');
    mkdirSync(path.dirname(out), { recursive: true });
    const first = await runCasefile(home, [
      'chat',
      'Rivera v. Acme',
      'export',
      's_atomic',
      '--format',
      'docx',
      '--out',
      out,
    ]);
    expect(first.code, first.stderr).toBe(0);
    const previous = readFileSync(out);
    expect(previous.length).toBeGreaterThan(2048);

    const failed = await runLimited(1, [
      'chat',
      'Rivera v. Acme',
      'export',
      's_atomic',
      '--format',
      'docx',
      '--out',
      out,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^casefile: .*EFBIG/);
    // The previous export is there, whole and still a Word file; no half-written file beside it.
    expect(readFileSync(out).equals(previous)).toBe(true);
    await expect(JSZip.loadAsync(readFileSync(out))).resolves.toBeTruthy();
    expect(readdirSync(path.dirname(out))).toEqual(['chat.docx']);
  });

  it('chronology --docx: a write that fails half-way keeps the previous export whole', async () => {
    const out = path.join(home, 'exports', 'chronology.docx');
    mkdirSync(path.dirname(out), { recursive: true });
    const first = await runCasefile(home, ['chronology', 'Rivera v. Acme', '--docx', out]);
    expect(first.code, first.stderr).toBe(0);
    const previous = readFileSync(out);
    expect(previous.length).toBeGreaterThan(2048);

    const failed = await runLimited(1, ['chronology', 'Rivera v. Acme', '--docx', out]);
    expect(failed.code).toBe(1);
    expect(readFileSync(out).equals(previous)).toBe(true);
    expect(readdirSync(path.dirname(out)).filter((n) => n.startsWith('chronology.docx'))).toEqual(['chronology.docx']);
  });

  it.skipIf(!existsSync('/dev/full'))(
    'a full disk is said in plain words: what ran out, and that nothing in the case was lost',
    async () => {
      // /dev/full answers every write with "no space left on device"; it is not a regular file, so it is written directly.
      const r = await runCasefile(home, ['chat', 'Rivera v. Acme', 'export', 's_atomic', '--out', '/dev/full']);
      expect(r.code).toBe(1);
      expect(r.stderr.trim()).toBe(
        'casefile: The disk is full. Nothing already in the case was lost; free some space and try again.',
      );
    },
  );
});
