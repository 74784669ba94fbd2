import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { cliEntry, repoRoot, tempHome } from '../helpers/home';

describe('casefile serve', () => {
  const home = tempHome('casefile-serve-cli-');

  it('serve – prints the sign-in URL with a token, answers with it, stops cleanly on SIGTERM', async () => {
    // Started as an installed command is, by its own first line (not `node bin/casefile.mjs`): that
    // line gives the process MALLOC_ARENA_MAX=2 and runs node in place of `env`.
    const bin = path.join(repoRoot, 'bin/casefile.mjs');
    const args = ['--home', home, 'serve', '--port', '0'];
    const { MALLOC_ARENA_MAX: _, ...env } = process.env;
    const stdio: ['ignore', 'pipe', 'pipe'] = ['ignore', 'pipe', 'pipe'];
    const opts = { cwd: repoRoot, env, stdio };
    const child = process.platform === 'win32' ? spawn(process.execPath, [bin, ...args], opts) : spawn(bin, args, opts);
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
    if (process.platform === 'linux')
      expect(readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_ARENA_MAX=2');
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('serve --audit – says so, records each request with the address, and audit check finds the chain intact', async () => {
    const child = spawn(process.execPath, [cliEntry, '--home', home, 'serve', '--port', '0', '--json', '--audit'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const first = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
      });
      const info = JSON.parse(first) as { url: string; token: string; audit: boolean };
      expect(info.audit).toBe(true);
      const res = await fetch(`${info.url}api/op/cases.list`, {
        method: 'POST',
        body: JSON.stringify({ query: 'acme' }),
        headers: { Authorization: `Bearer ${info.token}` },
      });
      expect(res.status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    const [entry] = readFileSync(path.join(home, 'audit', 'audit.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    expect(JSON.parse(entry!)).toMatchObject({
      seq: 1,
      kind: 'list_cases',
      actor: { user: 'token holder', role: 'token', address: '127.0.0.1' },
      what: { query: 'acme' },
    });
    const check = await runCasefile(home, ['audit', 'check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(/intact: 1 entry,/);
  });

  it('serve – a non-loopback host needs --allow-remote (usage error, exit 2)', async () => {
    const refused = await runCasefile(home, ['serve', '--host', '0.0.0.0', '--port', '0']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--allow-remote/);
    const badPort = await runCasefile(home, ['serve', '--port', 'eighty']);
    expect(badPort.code).toBe(2);
    expect(badPort.stderr).toMatch(/--port must be a number/);
    const proxyName = await runCasefile(home, ['serve', '--trust-proxy', 'proxy.example', '--port', '0']);
    expect(proxyName.code).toBe(2);
    expect(proxyName.stderr).toMatch(/--trust-proxy proxy\.example: give the reverse proxy's IP address/);
  });

  it('serve --firm – beyond loopback needs TLS; the session flags are for a firm server (usage errors, exit 2)', async () => {
    const plain = await runCasefile(home, ['serve', '--firm', '--host', '0.0.0.0', '--allow-remote', '--port', '0']);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toMatch(/needs TLS: add --tls-cert FILE and --tls-key FILE/);
    const half = await runCasefile(home, ['serve', '--firm', '--tls-cert', 'cert.pem', '--port', '0']);
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/give both --tls-cert FILE and --tls-key FILE/);
    const idle = await runCasefile(home, ['serve', '--session-idle', '10', '--port', '0']);
    expect(idle.code).toBe(2);
    expect(idle.stderr).toMatch(/for a firm server/);
    const zero = await runCasefile(home, ['serve', '--firm', '--session-max', '0', '--port', '0']);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--session-max must be a positive number/);
  });

  it('serve --allow-path – ingest reads that folder and nothing outside it; a missing folder is a usage error', async () => {
    const missing = await runCasefile(home, [
      'serve',
      '--port',
      '0',
      '--allow-path',
      path.join(home, 'no-such-folder'),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--allow-path .*no folder there/);
    expect(missing.stderr).toMatch(/--allow-path DIR/); // the usage names the flag

    const allowed = mkdtempSync(path.join(os.tmpdir(), 'casefile-serve-allowed-'));
    const outside = mkdtempSync(path.join(os.tmpdir(), 'casefile-serve-outside-'));
    writeFileSync(path.join(allowed, 'letter.txt'), 'The tenant gave notice.');
    writeFileSync(path.join(outside, 'secret.txt'), 'not for the server');
    const child = spawn(
      process.execPath,
      [cliEntry, '--home', home, 'serve', '--port', '0', '--json', '--allow-path', allowed],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      const lines = createInterface({ input: child.stdout! });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
      });
      const info = JSON.parse(first) as { url: string; token: string; allow_paths: string[] };
      expect(info.allow_paths).toHaveLength(1);
      const op = (name: string, body: unknown) =>
        fetch(`${info.url}api/op/${name}`, {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { Authorization: `Bearer ${info.token}` },
        });
      const { id: caseId } = (await (await op('cases.create', { name: 'Allowed' })).json()) as { id: string };
      const ok = await op('ingest.start', { case_id: caseId, paths: [allowed], wait: true });
      expect(ok.status).toBe(200);
      const refused = await op('ingest.start', {
        case_id: caseId,
        paths: [path.join(outside, 'secret.txt')],
        wait: true,
      });
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/outside/);
      const { files } = (await (await op('files.list', { case_id: caseId })).json()) as { files: { name: string }[] };
      expect(files.map((f) => f.name)).toEqual(['letter.txt']);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      rmSync(allowed, { recursive: true, force: true });
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it('serve --allow-downloads-from – names the hosts models may be downloaded from; anything but a host is a usage error', async () => {
    const bad = await runCasefile(home, [
      'serve',
      '--port',
      '0',
      '--allow-downloads-from',
      'https://huggingface.co/some/path',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--allow-downloads-from .*give a host name/);
    expect(bad.stderr).toMatch(/--allow-downloads-from HOST/); // the usage names the flag

    const args = [
      '--home',
      home,
      'serve',
      '--port',
      '0',
      '--json',
      '--allow-downloads-from',
      'https://HuggingFace.co',
      '--allow-downloads-from',
      '*.hf.co',
    ];
    const child = spawn(process.execPath, [cliEntry, ...args], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const lines = createInterface({ input: child.stdout! });
      const first = await new Promise<string>((resolve, reject) => {
        lines.once('line', resolve);
        child.once('exit', (code) => reject(new Error(`serve exited early with ${code}`)));
      });
      expect((JSON.parse(first) as { allow_downloads_from: string[] }).allow_downloads_from).toEqual([
        'huggingface.co',
        '*.hf.co',
      ]);
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('serve --allow-remote – binds and prints a warning', async () => {
    const child = spawn(
      process.execPath,
      [cliEntry, '--home', home, 'serve', '--host', '0.0.0.0', '--port', '0', '--allow-remote'],
      {
        cwd: repoRoot,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
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
