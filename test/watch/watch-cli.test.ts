/**
 * `casefile watch <case> [<folder>]` runs until Ctrl+C, printing what it picks up; --on / --off
 * switch following for the desktop app and serve. Waits are on the command's own output.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { cliEntry, repoRoot, tempHome } from '../helpers/home';

/** Resolves once `text` has appeared in what `read()` returns (checked on each chunk of output). */
function waitForText(child: ReturnType<typeof spawn>, read: () => string, text: string | RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const out = read();
      if (typeof text === 'string' ? out.includes(text) : text.test(out)) {
        child.stdout!.off('data', check);
        child.stderr!.off('data', check);
        child.off('close', closed);
        resolve();
      }
    };
    const closed = () => reject(new Error(`casefile watch ended before printing ${String(text)}:\n${read()}`));
    child.stdout!.on('data', check);
    child.stderr!.on('data', check);
    child.on('close', closed);
    check();
  });
}

/** `casefile watch` with these arguments, its output (stdout and stderr together) gathered as it comes. */
function startWatch(
  home: string,
  args: string[],
): { child: ReturnType<typeof spawn>; out: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [cliEntry, '--home', home, 'watch', ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out, exited: new Promise<number | null>((resolve) => child.on('close', resolve)) };
}

describe('casefile watch', () => {
  it('follows a folder until Ctrl+C, printing the files it adds', async () => {
    const home = tempHome();
    const folder = path.join(home, 'Doe matter');
    mkdirSync(folder);
    writeFileSync(path.join(folder, 'intake.txt'), 'Client intake: Jane Doe, slip and fall on 2 February 2023.\n');
    expect((await runCasefile(home, ['cases', 'create', 'Doe matter'])).code).toBe(0);

    const { child, out, exited } = startWatch(home, ['Doe matter', folder]);
    try {
      // The first catch-up adds what the folder holds.
      await waitForText(child, out, 'added    intake.txt');
      await waitForText(child, out, 'Up to date; watching for changes.');
      writeFileSync(path.join(folder, 'photos list.txt'), 'Photographs of the wet floor, taken 2 February 2023.\n');
      await waitForText(child, out, 'added    photos list.txt');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);

    const files = JSON.parse((await runCasefile(home, ['files', 'Doe matter', '--json'])).stdout) as {
      files: { name: string }[];
    };
    expect(files.files.map((f) => f.name).sort()).toEqual(['intake.txt', 'photos list.txt']);

    // Deleted while nothing watched: the next run catches up and says so; the file list keeps it, marked.
    rmSync(path.join(folder, 'intake.txt'));
    const { child: again, out: out2, exited: exited2 } = startWatch(home, ['Doe matter']);
    try {
      await waitForText(again, out2, 'removed  intake.txt (deleted from the folder; the stored copy is kept)');
    } finally {
      again.kill('SIGINT');
    }
    expect(await exited2).toBe(0);
    const listed = await runCasefile(home, ['files', 'Doe matter']);
    expect(listed.stdout).toMatch(
      /intake\.txt .*deleted from the folder on \d{1,2} [A-Z][a-z]{2} \d{4} — the copy here is kept/,
    );
    // The folder is remembered; following for the app is switched on and off by name.
    const on = await runCasefile(home, ['watch', 'Doe matter', '--on', '--json']);
    expect(JSON.parse(on.stdout)).toMatchObject({ watch: { enabled: true, folders: [folder] } });
    const off = await runCasefile(home, ['watch', 'Doe matter', '--off']);
    expect(off.stdout.trim()).toBe(`Not following the folders of Doe matter: ${folder}`);
  }, 120_000);

  it('a case that follows no folder says how to name one (exit 2)', async () => {
    const home = tempHome();
    await runCasefile(home, ['cases', 'create', 'Empty']);
    const res = await runCasefile(home, ['watch', 'Empty']);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('Empty follows no folder yet; name one: casefile watch <case> <folder>');
  });

  it('a folder with a symlink loop (#42): followed, its files added once, and Ctrl+C ends the command', async () => {
    const home = tempHome();
    const folder = path.join(home, 'L');
    mkdirSync(path.join(folder, 'sub'), { recursive: true });
    writeFileSync(path.join(folder, 'memo.txt'), 'Memo of the call with opposing counsel on 5 May 2023.\n');
    symlinkSync('.', path.join(folder, 'self'));
    symlinkSync('..', path.join(folder, 'sub', 'back'));
    expect((await runCasefile(home, ['cases', 'create', 'Loop'])).code).toBe(0);
    const { child, out, exited } = startWatch(home, ['Loop', folder]);
    try {
      await waitForText(child, out, 'Up to date; watching for changes.');
    } finally {
      child.kill('SIGINT');
    }
    // (the old watcher followed the links without end: no "Up to date", and Ctrl+C was never heard)
    expect(await exited).toBe(0);
    expect(out().match(/added {4}.*/g)).toEqual(['added    memo.txt']);
  }, 120_000);
});
