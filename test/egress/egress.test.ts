/**
 * Nothing leaves the machine. The main flows (flows.mjs: embedding model import, ingest of real
 * PDFs, hybrid search, ask with a GGUF model, serve answering an authenticated request) run
 * once, under `unshare -n` (a network namespace with only loopback), where every flow must succeed,
 * and inside it under `strace -f [--seccomp-bpf] -e trace=connect,sendto,sendmsg`: any connection or
 * datagram to a non-loopback address, any DNS traffic (port 53, or the nscd / systemd-resolved /
 * avahi sockets) fails, and so does a telemetry file (onnxruntime's ~/.cache database, its
 * `mat-debug-<pid>.log` in the temp folder).
 * The child environment has no ORT_DISABLE_TELEMETRY of its own: Casefile must set it.
 * Without strace or unshare the tests fail on CI (CI set) and are skipped with a message elsewhere.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { corpusDir, repoRoot } from '../helpers/home';
import { ensureTestModels, miniLmDir, tinyRandomGguf } from '../helpers/models';

const onCi = Boolean(process.env.CI) && !/^(0|false)$/i.test(process.env.CI ?? '');
const FLOWS = path.join(repoRoot, 'test', 'egress', 'flows.mjs');
const PDFS = [
  path.join(
    corpusDir,
    'cuad/full_contract_pdf/Part_I/Co_Branding/PcquoteComInc_19990721_S-1A_EX-10.11_6377149_EX-10.11_Co-Branding Agreement2.pdf',
  ),
  path.join(
    corpusDir,
    'cuad/full_contract_pdf/Part_I/Co_Branding/MphaseTechnologiesInc_20030911_10-K_EX-10.15_1560667_EX-10.15_Co-Branding Agreement.pdf',
  ),
  // A scan: read by OCR, whose language data must come from the installed package, not a CDN.
  path.join(corpusDir, 'freelaw-courtlistener/cl/assets/media/test/search/opinion_pdf_image_based.pdf'),
];
const RUN_TIMEOUT_MS = 420_000;

function works(cmd: string, args: string[]): boolean {
  const res = spawnSync(cmd, args, { stdio: 'ignore', timeout: 30_000 });
  return res.status === 0;
}

/** strace installed and allowed to trace (a container may forbid ptrace). */
const hasStrace = works('strace', ['-f', '-qq', '-o', '/dev/null', 'true']);
/**
 * With --seccomp-bpf (strace ≥ 5.3, where the kernel allows it) only the traced calls stop the
 * processes, not every system call: the same lines in the trace, the flows at near full speed.
 */
const straceFast =
  hasStrace && works('strace', ['-f', '--seccomp-bpf', '-qq', '-e', 'trace=connect', '-o', '/dev/null', 'true'])
    ? ['--seccomp-bpf']
    : [];
/** `unshare -n` as root; `-rn` (a user namespace mapping us to root) otherwise. */
const unshareArgs = works('unshare', ['-n', 'true']) ? ['-n'] : works('unshare', ['-rn', 'true']) ? ['-rn'] : null;
const hasIp = works('ip', ['-V']);

/** A test that needs `missing` tools: on CI it fails saying so; elsewhere it is skipped with the same message. */
function needs(missing: string | null, name: string, fn: () => Promise<void>): void {
  if (!missing) it(name, fn, RUN_TIMEOUT_MS);
  else if (onCi) it(name, () => expect.fail(`${missing} — CI must provide it (.ci/run installs it with apt-get).`));
  else {
    console.warn(`egress: skipped "${name}": ${missing} (on CI, with CI set, this fails instead).`);
    it.skip(name, fn);
  }
}

interface FlowReport {
  steps: { name: string; ok: boolean; code: number | null; detail: string }[];
  interfaces: string[];
  servePort: number | null;
}

interface Sandbox {
  dir: string;
  home: string;
  userHome: string;
  tmp: string;
  env: NodeJS.ProcessEnv;
  config: string;
}

const sandboxes: string[] = [];
afterAll(() => {
  for (const dir of sandboxes) rmSync(dir, { recursive: true, force: true });
});

/** An address of TEST-NET-3: reaching it needs no DNS, and strace sees any connection to it. */
const REMOTE = 'http://203.0.113.9';

/**
 * A saved web page and an HTML email that point at the network the way real ones do — a tracking
 * pixel, a stylesheet, a script that fetches, an iframe: reading them must load none of it.
 */
function remoteLinkingDocuments(dir: string): string[] {
  const html = `<!DOCTYPE html><html><head><title>Tenant notice</title><link rel="stylesheet" href="${REMOTE}/style.css"><script src="${REMOTE}/app.js"></script><script>fetch('${REMOTE}/beacon'); new Image().src = '${REMOTE}/pixel.gif';</script></head><body><h1>Notice to tenants</h1><p>Rent is due on the first day of each month.</p><img src="${REMOTE}/logo.png" alt="logo"><iframe src="${REMOTE}/frame.html"></iframe><object data="${REMOTE}/x.swf"></object></body></html>`;
  const page = path.join(dir, 'tenant-notice.html');
  writeFileSync(page, html);
  const email = path.join(dir, 'newsletter.eml');
  writeFileSync(
    email,
    [
      'From: Landlord <office@landlord.example>',
      'To: Tenant <tenant@example.com>',
      'Subject: Building newsletter',
      'Date: Tue, 2 May 2023 10:00:00 +0000',
      'MIME-Version: 1.0',
      'Content-Type: text/html; charset=utf-8',
      '',
      html.replace('Notice to tenants', 'Building newsletter'),
    ].join('\r\n'),
  );
  return [page, email];
}

/** A data home, a user HOME (for ~/.cache) and a TMPDIR of the run's own, and the flows' config. */
function sandbox(name: string, extra: Record<string, unknown> = {}): Sandbox {
  ensureTestModels();
  const dir = mkdtempSync(path.join(os.tmpdir(), `casefile-egress-${name}-`));
  sandboxes.push(dir);
  const s = {
    dir,
    home: path.join(dir, 'data'),
    userHome: path.join(dir, 'user'),
    tmp: path.join(dir, 'tmp'),
    config: path.join(dir, 'flows.json'),
  };
  for (const d of [s.home, s.userHome, s.tmp]) mkdirSync(d);
  writeFileSync(
    s.config,
    JSON.stringify({
      home: s.home,
      embedModelDir: miniLmDir,
      pdfs: [...PDFS, ...remoteLinkingDocuments(dir)],
      gguf: tinyRandomGguf,
      ...extra,
    }),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: s.userHome, TMPDIR: s.tmp, CASEFILE_EMBED_THREADS: '1' };
  // Casefile itself must turn telemetry off; caches go where HOME says.
  for (const name of [
    'ORT_DISABLE_TELEMETRY',
    'XDG_CACHE_HOME',
    'CASEFILE_HOME',
    'CASEFILE_ENDPOINT_URL',
    'CASEFILE_ENDPOINT_KEY',
  ])
    delete env[name];
  return { ...s, env };
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS - 10_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function report(res: { code: number | null; stdout: string; stderr: string }): FlowReport {
  const line = res.stdout.trim().split('\n').pop() ?? '';
  try {
    return JSON.parse(line) as FlowReport;
  } catch {
    throw new Error(`the flows did not report (exit ${res.code}): ${res.stderr.slice(-2000)}`);
  }
}

function expectAllFlowsOk(flows: FlowReport): void {
  const failed = flows.steps.filter((s) => !s.ok).map((s) => `${s.name}: ${s.detail}`);
  expect(failed).toEqual([]);
  expect(flows.steps.map((s) => s.name)).toHaveLength(6);
}

/** Traced calls that reach (or try to reach) the network, or a name resolver, in strace's output. */
function egressCalls(trace: string): { connects: string[]; violations: string[] } {
  const connects: string[] = [];
  const violations: string[] = [];
  const resolverSockets = /sun_path="(\/var)?\/run\/(nscd\/socket|systemd\/resolve\/|avahi-daemon\/socket)/;
  for (const line of trace.split('\n')) {
    const call = /\b(connect|sendto|sendmsg)\(/.exec(line);
    if (!call) continue;
    if (/\bsa_family=AF_(INET6?|UNIX)\b/.test(line)) connects.push(line);
    if (/htons\(53\)/.test(line)) violations.push(`DNS (port 53): ${line}`);
    else if (resolverSockets.test(line)) violations.push(`name resolver socket: ${line}`);
    for (const m of line.matchAll(/sin_addr=inet_addr\("([^"]+)"\)/g)) {
      if (!m[1]!.startsWith('127.')) violations.push(`IPv4 ${m[1]}: ${line}`);
    }
    for (const m of line.matchAll(/inet_pton\(AF_INET6, "([^"]+)"/g)) {
      if (m[1] !== '::1' && !/^::ffff:127\./i.test(m[1]!)) violations.push(`IPv6 ${m[1]}: ${line}`);
    }
  }
  return { connects, violations };
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/**
 * One run proves both: inside a network namespace with only loopback (`unshare -n`), every flow
 * succeeds, and under strace no process even tries to reach another address or a name resolver.
 * With no route, such an attempt fails at once, but strace still records the call. (Two separate
 * runs, one traced and one offline, took twice the time and proved the same.)
 */
describe('egress – Casefile makes no network connection of its own', () => {
  const missing = [
    hasStrace ? null : 'strace is not installed or may not trace here (`strace -f true` failed)',
    !unshareArgs
      ? 'unshare (util-linux) cannot create a network namespace here'
      : !hasIp
        ? 'ip (iproute2) is not installed, needed to bring up loopback in the namespace'
        : null,
  ].filter(Boolean);
  needs(
    missing.length ? missing.join('; ') : null,
    'with no network at all every flow works; strace sees no connection or datagram off loopback, no DNS, no telemetry files',
    async () => {
      const s = sandbox('offline', { serveLingerMs: 15_000 });
      const traceFile = path.join(s.dir, 'flows.trace');
      const startedMs = Date.now();
      const strace = ['strace', '-f', ...straceFast, '-qq', '-e', 'trace=connect,sendto,sendmsg', '-o', traceFile];
      // A namespace of its own: only loopback, brought up as on any machine; nothing else to reach.
      const script = `ip link set lo up && exec "$0" "$@"`;
      const res = await run(
        'unshare',
        [...unshareArgs!, 'sh', '-c', script, ...strace, process.execPath, FLOWS, s.config],
        s.env,
      );
      const flows = report(res);
      expect(flows.interfaces).toEqual(['lo']);
      expectAllFlowsOk(flows);

      const trace = readFileSync(traceFile, 'utf8');
      const { connects, violations } = egressCalls(trace);
      // The tracer saw Casefile's processes: the request to the server on loopback is in the trace.
      expect(flows.servePort).toBeGreaterThan(0);
      expect(connects.some((l) => l.includes(`htons(${flows.servePort})`) && l.includes('127.0.0.1'))).toBe(true);

      // onnxruntime's telemetry leaves no trace either: no event database or device id under
      // ~/.cache, no mat-debug-<pid>.log in the temp folder (this run's own, and /tmp for the traced
      // pids). A /tmp log counts only if written since the run began: pids are reused, and another
      // process (not Casefile's) that once had a traced pid may have left one there.
      const pids = new Set([...trace.matchAll(/^(\d+) /gm)].map((m) => m[1]!));
      const writtenDuringRun = (file: string) =>
        (statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0) >= startedMs - 2_000;
      const problems = [
        ...violations,
        ...filesUnder(path.join(s.userHome, '.cache'))
          .filter((f) => /onnxruntime|Microsoft/i.test(f))
          .map((f) => `telemetry cache file ~/.cache/${f}`),
        ...filesUnder(s.tmp)
          .filter((f) => /mat-debug-/.test(f))
          .map((f) => `telemetry debug log $TMPDIR/${f}`),
        ...[...pids]
          .filter((pid) => writtenDuringRun(`/tmp/mat-debug-${pid}.log`))
          .map((pid) => `telemetry debug log /tmp/mat-debug-${pid}.log`),
      ];
      expect(problems).toEqual([]);
    },
  );
});
