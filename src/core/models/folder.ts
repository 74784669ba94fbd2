import { promises as fs } from 'node:fs';
import path from 'node:path';

/** How token vectors become one text vector. */
export type Pooling = 'mean' | 'cls';

/** transformers.js dtype names, by the file-name suffix they load (`onnx/model<suffix>.onnx`). */
const DTYPE_BY_SUFFIX: ReadonlyArray<readonly [suffix: string, dtype: OnnxDtype]> = [
  ['_quantized', 'q8'],
  ['_int8', 'int8'],
  ['_uint8', 'uint8'],
  ['', 'fp32'],
  ['_fp16', 'fp16'],
  ['_q4', 'q4'],
  ['_q4f16', 'q4f16'],
  ['_bnb4', 'bnb4'],
];
export type OnnxDtype = 'q8' | 'int8' | 'uint8' | 'fp32' | 'fp16' | 'q4' | 'q4f16' | 'bnb4';

/** What a transformers.js model folder holds, read from its files (nothing is loaded). */
export interface TransformersFolder {
  dir: string;
  kind: 'embedding' | 'reranker';
  /** config.json `model_type`, e.g. `bert`. */
  modelType: string;
  /** Hidden size: the vector dimension of an embedding model. */
  hiddenSize: number | null;
  maxPositions: number | null;
  pooling: Pooling;
  /** The weights transformers.js will load and the dtype that selects them. */
  onnxFile: string;
  dtype: OnnxDtype;
  /** Base file name when it is not `model` (passed as `model_file_name`). */
  modelFileName: string;
  /** `_name_or_path` from config.json when present. */
  sourceName: string | null;
}

export type FolderInspection = { ok: true; folder: TransformersFolder } | { ok: false; reason: string };

async function readJsonFile(file: string): Promise<Record<string, unknown> | null> {
  try {
    const value: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** Pick the ONNX weights transformers.js should load: `model_quantized` first (fast on CPU), then the rest. */
async function pickOnnx(dir: string): Promise<{ file: string; dtype: OnnxDtype; base: string } | null> {
  const onnxDir = path.join(dir, 'onnx');
  const names = (await fs.readdir(onnxDir).catch(() => [] as string[])).filter((n) => n.endsWith('.onnx'));
  for (const [suffix, dtype] of DTYPE_BY_SUFFIX) {
    const name = `model${suffix}.onnx`;
    if (names.includes(name)) return { file: path.join(onnxDir, name), dtype, base: 'model' };
  }
  // A single file with another base name loads as fp32 under its own name.
  if (names.length === 1)
    return { file: path.join(onnxDir, names[0]!), dtype: 'fp32', base: names[0]!.slice(0, -'.onnx'.length) };
  return null;
}

/**
 * Pooling follows the model: the sentence-transformers pooling config when the folder has one,
 * else CLS for BGE-style models and mean for the rest (MiniLM, MPNet, E5, GTE).
 */
async function detectPooling(dir: string, names: string[]): Promise<Pooling> {
  const pooling = await readJsonFile(path.join(dir, '1_Pooling', 'config.json'));
  if (pooling) {
    if (pooling.pooling_mode_cls_token === true) return 'cls';
    if (pooling.pooling_mode_mean_tokens === true) return 'mean';
  }
  return names.some((n) => /(^|[/_-])bge([_-]|$)/i.test(n)) ? 'cls' : 'mean';
}

/**
 * Check that `dir` looks like a transformers.js model folder (config.json, tokenizer files,
 * onnx weights) and describe it. Says plainly what is missing when it is not.
 */
export async function inspectTransformersFolder(dir: string): Promise<FolderInspection> {
  const stat = await fs.stat(dir).catch(() => null);
  if (!stat?.isDirectory()) return { ok: false, reason: `${dir} is not a folder` };
  const config = await readJsonFile(path.join(dir, 'config.json'));
  if (!config)
    return {
      ok: false,
      reason:
        'it has no readable config.json (a transformers.js model folder needs config.json, tokenizer.json and onnx/*.onnx)',
    };
  if (!(await exists(path.join(dir, 'tokenizer.json')))) return { ok: false, reason: 'it has no tokenizer.json' };
  const onnx = await pickOnnx(dir);
  if (!onnx)
    return {
      ok: false,
      reason: 'it has no ONNX weights under onnx/ (expected e.g. onnx/model_quantized.onnx or onnx/model.onnx)',
    };
  const architectures = Array.isArray(config.architectures) ? config.architectures.map(String) : [];
  const kind = architectures.some((a) => /ForSequenceClassification$/.test(a)) ? 'reranker' : 'embedding';
  const sourceName = typeof config._name_or_path === 'string' ? config._name_or_path : null;
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    ok: true,
    folder: {
      dir,
      kind,
      modelType: typeof config.model_type === 'string' ? config.model_type : 'unknown',
      hiddenSize: num(config.hidden_size) ?? num(config.d_model) ?? num(config.dim),
      maxPositions: num(config.max_position_embeddings),
      pooling: await detectPooling(dir, [path.basename(dir), sourceName ?? '']),
      onnxFile: onnx.file,
      dtype: onnx.dtype,
      modelFileName: onnx.base,
      sourceName,
    },
  };
}
