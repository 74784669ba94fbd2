// The main flows of Casefile, each through the real `casefile` command as a user runs it: import
// the embedding model, create a case, ingest real PDFs, hybrid search, ask with a GGUF model, and
// serve answering an authenticated request. Run by test/egress/egress.test.ts under strace inside
// `unshare -n`; plain Node, so the tracer sees only Casefile's own processes and
// this driver. Prints one JSON object: {steps: [{name, ok, code, detail}], interfaces, servePort}.
//
//   node test/egress/flows.mjs <config.json>
//   config: {home, embedModelDir, pdfs: [..], gguf, serveLingerMs?}
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';

const repoRoot = path.resolve(import.meta.dirname, '..', '..');
// The built command (out/main/cli.js, `npm test` builds it first): no TypeScript loader either.
const bin = path.join(repoRoot, 'out', 'main', 'cli.js');
const config = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const steps = [];
const STEP_TIMEOUT_MS = 240_000;

function casefile(args, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, '--home', config.home, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function json(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Run one step; `check` returns null when the output is right, else why not. Later steps still run. */
async function step(name, args, check, env) {
  const res = await casefile(args, env);
  const out = json(res.stdout);
  const why = res.code !== 0 ? `exit ${res.code}` : out === undefined ? 'stdout is not JSON' : check(out);
  steps.push({
    name,
    ok: !why,
    code: res.code,
    detail: why ? `${why}; stderr: ${res.stderr.slice(-600)}; stdout: ${res.stdout.slice(0, 300)}` : '',
  });
  return out;
}

async function serveStep(caseId) {
  const name = 'serve: authenticated hybrid search over HTTP';
  const child = spawn(process.execPath, [bin, '--home', config.home, 'serve', '--port', '0'], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
  const timer = setTimeout(() => child.kill('SIGKILL'), STEP_TIMEOUT_MS);
  let port = null;
  try {
    const open = await new Promise((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line.startsWith('Open: ')) resolve(line.slice('Open: '.length));
      });
      exited.then((code) => reject(new Error(`serve exited early (${code})`)));
    });
    const url = new URL(open);
    port = Number(url.port);
    const token = url.searchParams.get('token');
    const endpoint = `${url.origin}/api/op/search`;
    const body = JSON.stringify({ case_id: caseId, query: 'term of the co-branding agreement', mode: 'hybrid', k: 3 });
    const refused = await fetch(endpoint, { method: 'POST', body });
    const res = await fetch(endpoint, {
      method: 'POST',
      body,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    });
    const out = await res.json();
    // onnxruntime's telemetry (when on) first tries to upload about 10 s after the library starts:
    // a server lives that long, so under the tracer it stays up a while after its model loaded.
    if (config.serveLingerMs) await new Promise((resolve) => setTimeout(resolve, config.serveLingerMs));
    child.kill('SIGTERM');
    const code = await exited;
    const why =
      refused.status !== 401
        ? `request without the token got ${refused.status}, not 401`
        : res.status !== 200
          ? `authenticated request got ${res.status}: ${JSON.stringify(out).slice(0, 300)}`
          : !(out.results?.length > 0)
            ? 'no results'
            : out.semantic !== true
              ? 'search was not semantic (embedding model not used)'
              : code !== 0
                ? `serve exited with ${code} on SIGTERM`
                : null;
    steps.push({ name, ok: !why, code, detail: why ? `${why}; stderr: ${stderr.slice(-600)}` : '' });
  } catch (err) {
    child.kill('SIGKILL');
    steps.push({ name, ok: false, code: null, detail: `${err.message}; stderr: ${stderr.slice(-600)}` });
  } finally {
    clearTimeout(timer);
  }
  return port;
}

await step(
  'models import (embedding model, loaded to check it)',
  ['models', 'import', config.embedModelDir, '--link', '--json'],
  (o) => (o.model?.kind === 'embedding' ? null : 'not imported as an embedding model'),
);
const created = await step('cases create', ['cases', 'create', 'Egress', '--json'], (o) =>
  o.id ? null : 'no case id',
);
const caseId = created?.id ?? 'Egress';
await step(
  'ingest real PDFs (one a scan, read by OCR), a web page and an email that link remote images and scripts, with the embedding model',
  ['ingest', caseId, ...config.pdfs, '--json'],
  (o) =>
    o.results?.length === config.pdfs.length && o.results.every((r) => r.status === 'indexed')
      ? null
      : `not all indexed: ${JSON.stringify(o.results)}`,
);
await step(
  'search --mode hybrid',
  ['search', caseId, 'term of the co-branding agreement', '--mode', 'hybrid', '--k', '3', '--json'],
  (o) =>
    !(o.results?.length > 0)
      ? 'no results'
      : o.semantic !== true
        ? 'search was not semantic (embedding model not used)'
        : null,
);
await step(
  'ask with a local GGUF model',
  [
    'ask',
    caseId,
    'What is the term of the co-branding agreement?',
    '--model',
    config.gguf,
    '--max-steps',
    '1',
    '--json',
  ],
  (o) => (typeof o.answer === 'string' && Array.isArray(o.steps) ? null : 'no answer'),
  // A random-weight model: mechanics only, kept short.
  { CASEFILE_LLAMA_THREADS: '1', CASEFILE_LLAMA_CONTEXT: '2048', CASEFILE_AGENT_MAX_TOKENS: '64' },
);
const servePort = await serveStep(caseId);

process.stdout.write(`${JSON.stringify({ steps, interfaces: Object.keys(os.networkInterfaces()), servePort })}\n`);
