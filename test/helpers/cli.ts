import { spawn } from 'node:child_process';
import { cliEntry, repoRoot } from './home';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the real `casefile` binary as a child process against `home`. */
export function runCasefile(
  home: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; nodeArgs?: string[]; input?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), cliEntry, '--home', home, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // No input: stdin ends at once, as /dev/null would.
    child.stdin.end(opts.input ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
