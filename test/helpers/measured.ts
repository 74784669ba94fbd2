import { spawn } from 'node:child_process';
import { cliEntry, repoRoot } from './home';

export interface MeasuredRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Peak resident set of the largest process of the run's tree (the CLI or one of its readers), in MiB. */
  peakRssMb: number;
}

/**
 * Python reports the peak RSS of everything the CLI started (getrusage RUSAGE_CHILDREN: the
 * largest of the waited-for process tree, readers included), which Node cannot see of itself.
 * With `uid`, the CLI runs as that user (root only: to make a chmod 000 file really unreadable).
 */
const WRAPPER = `
import json, os, resource, subprocess, sys
uid = int(os.environ.pop('MEASURED_UID', '-1'))
kw = {'user': uid, 'group': uid, 'extra_groups': []} if uid >= 0 else {}
p = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)
sys.stdout.buffer.write(p.stdout)
sys.stderr.buffer.write(p.stderr)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
sys.stderr.write('\\n@@measured ' + json.dumps({'code': p.returncode, 'maxrss_kb': ru.ru_maxrss}) + '\\n')
`;

/** Run the real `casefile` CLI against `home`, measuring its process tree's peak memory. */
export function runMeasured(
  home: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; uid?: number; timeoutMs?: number } = {},
): Promise<MeasuredRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', WRAPPER, process.execPath, cliEntry, '--home', home, ...args], {
      cwd: repoRoot,
      env: {
        ...process.env,
        CASEFILE_HOME: '',
        ...opts.env,
        ...(opts.uid !== undefined ? { MEASURED_UID: String(opts.uid) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 600_000);
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      const m = /@@measured (\{.*\})\s*$/.exec(stderr);
      if (!m) return reject(new Error(`the measured run did not finish (stderr: ${stderr.slice(-2000)})`));
      const r = JSON.parse(m[1]!) as { code: number; maxrss_kb: number };
      resolve({ code: r.code, stdout, stderr: stderr.slice(0, m.index), peakRssMb: Math.round(r.maxrss_kb / 1024) });
    });
  });
}
