/**
 * Putting a model in place: what an import source is, copying or moving it into
 * `<modelsDir>/<id>/` through a staging folder (hashing on the way), and checking it loads.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CasefileError } from '../../shared/errors';
import { pidAlive } from '../util/concurrency';
import { statOrNull } from './discover';
import { inspectTransformersFolder, type TransformersFolder } from './folder';
import { looksLikeGguf } from './gguf';

/** Staging folders of imports in progress: `<modelsDir>/.importing-<pid>-<id>-<random>`. */
const IMPORTING = '.importing-';

/**
 * Loads an embedding model folder the way search will (in the embedding worker) and returns the
 * length of its vectors; an import validates with it. Injected by the engine (retrieval/models.ts's
 * `probeEmbedding`), so the catalog does not depend on retrieval.
 */
export type EmbeddingProbe = (id: string, dir: string, signal?: AbortSignal) => Promise<number>;

/** Remove leftovers of imports interrupted by a crash (staging folders of processes that are gone). */
export async function cleanupStaging(modelsDir: string): Promise<void> {
  for (const name of await fs.readdir(modelsDir).catch(() => [] as string[])) {
    if (!name.startsWith(IMPORTING)) continue;
    const pid = Number(name.slice(IMPORTING.length).split('-')[0]);
    if (Number.isInteger(pid) && pid > 0 && pidAlive(pid)) continue;
    await fs.rm(path.join(modelsDir, name), { recursive: true, force: true });
  }
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}

/** Copy one file, hashing it on the way; honours `signal`. */
async function copyFileHashed(src: string, dest: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  const tap = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  await pipeline(createReadStream(src), tap, createWriteStream(dest), { signal });
  return hash.digest('hex');
}

async function copyTree(src: string, dest: string, signal?: AbortSignal): Promise<void> {
  await fs.mkdir(dest, { recursive: true });
  for (const entry of await fs.readdir(src, { withFileTypes: true })) {
    if (signal?.aborted) throw abortError(signal);
    if (entry.name.startsWith('.')) continue; // .git, markers, OS junk: not part of the model
    const from = path.join(src, entry.name);
    const to = path.join(dest, entry.name);
    if (entry.isDirectory()) await copyTree(from, to, signal);
    else if (entry.isFile() || entry.isSymbolicLink()) await copyFileHashed(from, to, signal);
  }
}

/** What an import source is: a GGUF file (checked by its signature), a transformers.js model folder, or a folder holding one .gguf. */
export async function classifySource(
  src: string,
  stat: Stats,
): Promise<{ ggufFile?: string; folder?: TransformersFolder }> {
  let ggufFile: string | undefined;
  let folder: TransformersFolder | undefined;
  if (stat.isFile()) {
    if (!(await looksLikeGguf(src))) {
      throw new CasefileError(
        'failed',
        `${path.basename(src)} is not a GGUF model file (its first bytes are not the GGUF signature). Import a .gguf chat model, or a transformers.js model folder (config.json, tokenizer.json, onnx/*.onnx).`,
      );
    }
    ggufFile = src;
  } else if (stat.isDirectory()) {
    const inspected = await inspectTransformersFolder(src);
    if (inspected.ok) folder = inspected.folder;
    else {
      const ggufs = (await fs.readdir(src)).filter((n) => n.toLowerCase().endsWith('.gguf'));
      if (ggufs.length !== 1) {
        throw new CasefileError(
          'failed',
          `${src} is not a model folder: ${inspected.reason}. Import a .gguf file or a transformers.js model folder.`,
        );
      }
      ggufFile = path.join(src, ggufs[0]!);
    }
  } else {
    throw new CasefileError('failed', `${src} is neither a file nor a folder.`);
  }
  return { ggufFile, folder };
}

async function hashFile(file: string, signal?: AbortSignal): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file, { signal })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Put an imported model in place: linked where it is, or copied (moved) into `<modelsDir>/<id>/` through a staging folder. */
export async function installModel(
  modelsDir: string,
  id: string,
  src: string,
  ggufFile: string | undefined,
  mode: 'copy' | 'link' | 'move',
  signal: AbortSignal | undefined,
): Promise<{ relPath: string; sha256: string | null }> {
  let relPath: string;
  let sha256: string | null = null;
  if (mode === 'link') {
    relPath = ggufFile ?? src;
    if (ggufFile) sha256 = await hashFile(ggufFile, signal);
  } else {
    await cleanupStaging(modelsDir);
    const staging = path.join(modelsDir, `${IMPORTING}${process.pid}-${id}-${randomBytes(4).toString('hex')}`);
    const target = path.join(modelsDir, id);
    if (await statOrNull(target)) {
      throw CasefileError.withRemedy('conflict', `${target} already exists but is not a registered model.`, {
        app: 'Move that folder away, or rename this model’s file or folder, then import it again.',
        cli: 'Move it away, or import under another id (--id NAME).',
      });
    }
    try {
      if (ggufFile) {
        await fs.mkdir(staging, { recursive: true });
        const dest = path.join(staging, path.basename(ggufFile));
        if (mode === 'move') {
          await fs.rename(ggufFile, dest); // downloads land inside modelsDir: no second copy
          sha256 = await hashFile(dest, signal);
        } else sha256 = await copyFileHashed(ggufFile, dest, signal);
        relPath = path.join(id, path.basename(ggufFile));
      } else {
        if (mode === 'move') await fs.rename(src, staging);
        else await copyTree(src, staging, signal);
        relPath = id;
      }
      await fs.rename(staging, target);
    } catch (err) {
      await fs.rm(staging, { recursive: true, force: true });
      throw err;
    }
  }
  return { relPath, sha256 };
}

/** Load a transformers.js folder the way the engine will use it; fail with the loader's reason. */
export async function validateByLoading(
  id: string,
  folder: TransformersFolder,
  probe: EmbeddingProbe | undefined,
  signal?: AbortSignal,
): Promise<{ dimension: number | null }> {
  if (folder.kind === 'embedding') {
    if (!probe)
      throw new CasefileError(
        'unavailable',
        'Embedding models cannot be imported here (no embedding worker to check them with).',
      );
    return { dimension: await probe(id, folder.dir, signal) };
  }
  const { withLocalModel } = await import('./transformers');
  try {
    // A cross-encoder scores a (query, passage) pair: load tokenizer and model and score one pair.
    await withLocalModel(folder, async (mod, name, options) => {
      const tokenizer = await mod.AutoTokenizer.from_pretrained(name, { local_files_only: true });
      const model = await mod.AutoModelForSequenceClassification.from_pretrained(name, options);
      try {
        const inputs = tokenizer(['what is the notice period?'], {
          text_pair: ['Either party may terminate on thirty days notice.'],
          padding: true,
          truncation: true,
        });
        const { logits } = (await model(inputs)) as { logits: { data: ArrayLike<number> } };
        if (!logits?.data?.length || !Number.isFinite(logits.data[0]!)) throw new Error('it produced no score');
      } finally {
        await model.dispose();
      }
    });
  } catch (err) {
    throw new CasefileError('failed', `Could not load the reranker model at ${folder.dir}: ${(err as Error).message}`);
  }
  return { dimension: null };
}
