import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { repoRoot, tempHome } from '../helpers/home';

describe('casefile serve', () => {
  const home = tempHome('casefile-serve-cli-');

  it('serve – prints the sign-in URL with a token, answers with it, stops cleanly on SIGTERM', async () => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/casefile.mjs'), '--home', home, 'serve', '--port', '0'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines = createInterface({ input: child.stdout! });
    const open = await new Promise<string>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('Open: ')) resolve(line.slice('Open: '.length));
      });
      child.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
    });
    const url = new URL(open);
    expect(url.hostname).toBe('127.0.0.1');
    const token = url.searchParams.get('token')!;
    expect(token.length).toBeGreaterThanOrEqual(32);
    const base = `${url.origin}/api/op/app.info`;
    expect((await fetch(base, { method: 'POST', body: '{}' })).status).toBe(401);
    const info = await fetch(base, { method: 'POST', body: '{}', headers: { Authorization: `Bearer ${token}` } });
    expect(info.status).toBe(200);
    expect(((await info.json()) as { home: string }).home).toBe(home);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('serve – a non-loopback host needs --allow-remote (usage error, exit 2)', async () => {
    const refused = await runCasefile(home, ['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--allow-remote/);
    const badPort = await runCasefile(home, ['serve', '--port', 'eighty']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be a number/);
  });

  it('serve --allow-remote – binds and prints a warning', async () => {
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/casefile.mjs'), '--home', home, 'serve', '--host', '0.0.0.0', '--port', '0', '--allow-remote'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const lines = createInterface({ input: child.stdout! });
    await new Promise<void>((resolve, reject) => {
      lines.on('line', (line) => {
        if (line.startsWith('Open: ')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited early with ${code}: ${stderr}`)));
    });
    expect(stderr).toMatch(/WARNING: listening on 0\.0\.0\.0/);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
});
