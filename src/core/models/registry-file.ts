/**
 * `<home>/models/registry.json`: the models imported into the data home, versioned so later
 * releases can migrate it; read whole, changed one writer at a time per process.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CasefileError } from '../../shared/errors';
import { KeyedQueue } from '../util/concurrency';
import { readJson, writeJsonAtomic } from '../util/fs';

export const REGISTRY_FILE = 'registry.json';
const REGISTRY_SCHEMA_VERSION = 1;

export const RegisteredModel = z.object({
  id: z.string(),
  kind: z.enum(['chat', 'embedding', 'reranker']),
  format: z.enum(['gguf', 'onnx']),
  /** Relative to modelsDir for copies; absolute for linked models. */
  path: z.string(),
  linked: z.boolean().default(false),
  importedFrom: z.string().nullable().default(null),
  imported: z.string(),
  sha256: z.string().nullable().default(null),
  bytes: z.number(),
  quantization: z.string().nullable().default(null),
  contextLength: z.number().nullable().default(null),
  architecture: z.string().nullable().default(null),
  dimension: z.number().nullable().default(null),
  pooling: z.enum(['mean', 'cls']).nullable().default(null),
});
export type RegisteredModel = z.infer<typeof RegisteredModel>;

/** `<home>/models/registry.json`, versioned so later releases can migrate it. */
export const RegistryFile = z.object({
  schemaVersion: z.literal(REGISTRY_SCHEMA_VERSION),
  defaultEmbedding: z.string().nullable().default(null),
  /** The chat model a question uses when it names none (null: the first installed). */
  defaultChat: z.string().nullable().default(null),
  models: z.array(RegisteredModel).default([]),
});
export type RegistryFile = z.infer<typeof RegistryFile>;

/** Registry writes of one process go one at a time (read-modify-write of registry.json). */
const writeLocks = new KeyedQueue<string>();

export class RegistryFileStore {
  readonly file: string;

  constructor(private readonly modelsDir: string) {
    this.file = path.join(modelsDir, REGISTRY_FILE);
  }

  async read(): Promise<RegistryFile> {
    let raw: unknown;
    try {
      raw = await readJson(this.file);
    } catch (err) {
      throw new CasefileError(
        'failed',
        `The model registry ${this.file} is unreadable (${(err as Error).message}); move it aside and import the models again.`,
      );
    }
    if (raw === undefined)
      return { schemaVersion: REGISTRY_SCHEMA_VERSION, defaultEmbedding: null, defaultChat: null, models: [] };
    const parsed = RegistryFile.safeParse(raw);
    if (!parsed.success)
      throw new CasefileError(
        'failed',
        `The model registry ${this.file} is damaged: ${parsed.error.issues[0]?.message}.`,
      );
    return parsed.data;
  }

  /** Read, change and write back, one change at a time in this process. */
  update<T>(change: (reg: RegistryFile) => T | Promise<T>): Promise<T> {
    return writeLocks.run(this.file, async () => {
      const reg = await this.read();
      const result = await change(reg);
      await fs.mkdir(this.modelsDir, { recursive: true });
      await writeJsonAtomic(this.file, reg);
      return result;
    });
  }
}
