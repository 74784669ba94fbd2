import { promises as fs } from 'node:fs';
import { CasefileError } from '../../shared/errors';

/** What the header of a GGUF file says about the model. */
export interface GgufInfo {
  version: number;
  tensorCount: number;
  /** `general.architecture`, e.g. `llama`. */
  architecture: string | null;
  /** `general.name` when the file carries one. */
  name: string | null;
  /** `general.file_type` as llama.cpp names it (e.g. `Q4_K_M`), else null. */
  quantization: string | null;
  /** `<architecture>.context_length`: the context the model was trained for. */
  contextLength: number | null;
  /** Scalar metadata values (arrays are reduced to their length). */
  metadata: Record<string, string | number | boolean | bigint | { arrayLength: number }>;
  bytes: number;
}

/** llama.cpp's `llama_ftype` values. */
const FILE_TYPES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  11: 'Q3_K_S',
  12: 'Q3_K_M',
  13: 'Q3_K_L',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  19: 'IQ2_XXS',
  20: 'IQ2_XS',
  21: 'Q2_K_S',
  22: 'IQ3_XS',
  23: 'IQ3_XXS',
  24: 'IQ1_S',
  25: 'IQ4_NL',
  26: 'IQ3_S',
  27: 'IQ3_M',
  28: 'IQ2_S',
  29: 'IQ2_M',
  30: 'IQ4_XS',
  31: 'IQ1_M',
  32: 'BF16',
  36: 'TQ1_0',
  37: 'TQ2_0',
  38: 'MXFP4_MOE',
};

/** ggml tensor types, for files whose header has no `general.file_type`. */
const TENSOR_TYPES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  6: 'Q5_0',
  7: 'Q5_1',
  8: 'Q8_0',
  9: 'Q8_1',
  10: 'Q2_K',
  11: 'Q3_K',
  12: 'Q4_K',
  13: 'Q5_K',
  14: 'Q6_K',
  15: 'Q8_K',
  16: 'IQ2_XXS',
  17: 'IQ2_XS',
  18: 'IQ3_XXS',
  19: 'IQ1_S',
  20: 'IQ4_NL',
  21: 'IQ3_S',
  22: 'IQ2_S',
  23: 'IQ4_XS',
  24: 'I8',
  25: 'I16',
  26: 'I32',
  27: 'I64',
  28: 'F64',
  29: 'IQ1_M',
  30: 'BF16',
  34: 'TQ1_0',
  35: 'TQ2_0',
  39: 'MXFP4',
};

/** Byte sizes of the fixed-size GGUF value types. */
const SCALAR_SIZE: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;
const CHUNK = 1 << 20;
const MAX_STRING = 64 * 1024 * 1024;

class NotGguf extends Error {}

/** Sequential reader over a file handle with a 1 MB window; skipping far ahead does not read the bytes. */
class Reader {
  private buf = Buffer.alloc(0);
  private bufStart = 0;
  private off = 0;
  constructor(
    private readonly handle: fs.FileHandle,
    readonly size: number,
  ) {}

  get position(): number {
    return this.bufStart + this.off;
  }

  private async ensure(n: number): Promise<void> {
    if (this.off + n <= this.buf.length) return;
    const start = this.position;
    if (start + n > this.size) throw new NotGguf('the header ends before the file does (truncated or damaged)');
    const length = Math.min(Math.max(n, CHUNK), this.size - start);
    const buf = Buffer.alloc(length);
    const { bytesRead } = await this.handle.read(buf, 0, length, start);
    if (bytesRead < n) throw new NotGguf('the header ends before the file does (truncated or damaged)');
    this.buf = buf.subarray(0, bytesRead);
    this.bufStart = start;
    this.off = 0;
  }

  async skip(n: number): Promise<void> {
    if (this.position + n > this.size) throw new NotGguf('the header ends before the file does (truncated or damaged)');
    if (this.off + n <= this.buf.length) this.off += n;
    else {
      this.bufStart = this.position + n;
      this.buf = Buffer.alloc(0);
      this.off = 0;
    }
  }

  async bytes(n: number): Promise<Buffer> {
    await this.ensure(n);
    const out = this.buf.subarray(this.off, this.off + n);
    this.off += n;
    return out;
  }

  async u32(): Promise<number> {
    return (await this.bytes(4)).readUInt32LE(0);
  }

  async u64(): Promise<number> {
    const v = (await this.bytes(8)).readBigUInt64LE(0);
    if (v > BigInt(Number.MAX_SAFE_INTEGER))
      throw new NotGguf('a length in the header is impossibly large (damaged file)');
    return Number(v);
  }
}

async function readString(r: Reader, count: (r: Reader) => Promise<number>): Promise<string> {
  const len = await count(r);
  if (len > MAX_STRING) throw new NotGguf('a string in the header is impossibly long (damaged file)');
  return (await r.bytes(len)).toString('utf8');
}

async function readScalar(r: Reader, type: number): Promise<string | number | boolean | bigint> {
  const b = await r.bytes(SCALAR_SIZE[type]!);
  switch (type) {
    case 0:
      return b.readUInt8(0);
    case 1:
      return b.readInt8(0);
    case 2:
      return b.readUInt16LE(0);
    case 3:
      return b.readInt16LE(0);
    case 4:
      return b.readUInt32LE(0);
    case 5:
      return b.readInt32LE(0);
    case 6:
      return b.readFloatLE(0);
    case 7:
      return b.readUInt8(0) !== 0;
    case 10: {
      const v = b.readBigUInt64LE(0);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v;
    }
    case 11: {
      const v = b.readBigInt64LE(0);
      return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v;
    }
    default:
      return b.readDoubleLE(0);
  }
}

/**
 * Read a GGUF file's header (magic, version, metadata) without loading the model. Throws a
 * CasefileError (`failed`) with a plain reason when the file is not GGUF or its header is damaged.
 */
export async function readGgufInfo(file: string): Promise<GgufInfo> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new CasefileError(
      code === 'ENOENT' ? 'not_found' : 'failed',
      code === 'ENOENT' ? `${file} does not exist.` : `Cannot read ${file}: ${(err as Error).message}`,
    );
  }
  try {
    const { size } = await handle.stat();
    const r = new Reader(handle, size);
    if (size < 24) throw new NotGguf('the file is too small to be a GGUF model');
    const magic = (await r.bytes(4)).toString('latin1');
    if (magic !== 'GGUF') throw new NotGguf('its first bytes are not the GGUF signature');
    const version = await r.u32();
    if (version < 1 || version > 3)
      throw new NotGguf(`it declares GGUF version ${version}, which this app does not read (1–3)`);
    // Version 1 stored counts and string lengths as 32-bit numbers.
    const count = version === 1 ? (x: Reader) => x.u32() : (x: Reader) => x.u64();
    const tensorCount = await count(r);
    const kvCount = await count(r);
    if (tensorCount > 10_000_000 || kvCount > 1_000_000)
      throw new NotGguf('its header counts are impossibly large (damaged file)');
    const metadata: GgufInfo['metadata'] = {};
    for (let i = 0; i < kvCount; i++) {
      const key = await readString(r, count);
      const type = await r.u32();
      if (type === STRING) metadata[key] = await readString(r, count);
      else if (type in SCALAR_SIZE) metadata[key] = await readScalar(r, type);
      else if (type === ARRAY) {
        const elemType = await r.u32();
        const n = await count(r);
        if (elemType === STRING) for (let j = 0; j < n; j++) await r.skip(await count(r));
        else if (elemType in SCALAR_SIZE) await r.skip(n * SCALAR_SIZE[elemType]!);
        else throw new NotGguf(`metadata "${key}" has an unknown array type ${elemType} (damaged file)`);
        metadata[key] = { arrayLength: n };
      } else throw new NotGguf(`metadata "${key}" has an unknown value type ${type} (damaged file)`);
    }
    // Tensor infos: name, dims, type, offset. Reading them checks the header is whole and gives the weight type.
    const typeCounts = new Map<number, number>();
    for (let i = 0; i < tensorCount; i++) {
      await r.skip(await count(r)); // name
      const nDims = await r.u32();
      if (nDims > 8) throw new NotGguf('a tensor has an impossible number of dimensions (damaged file)');
      await r.skip(nDims * (version === 1 ? 4 : 8));
      const type = await r.u32();
      await r.skip(8); // offset
      if (nDims >= 2) typeCounts.set(type, (typeCounts.get(type) ?? 0) + 1);
    }
    const dominant = [...typeCounts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
    const architecture = typeof metadata['general.architecture'] === 'string' ? metadata['general.architecture'] : null;
    const ctx = architecture ? metadata[`${architecture}.context_length`] : undefined;
    const ftype = metadata['general.file_type'];
    return {
      version,
      tensorCount,
      architecture,
      name: typeof metadata['general.name'] === 'string' ? metadata['general.name'] : null,
      quantization:
        typeof ftype === 'number'
          ? (FILE_TYPES[ftype] ?? `type ${ftype}`)
          : (quantizationFromName(file) ?? (dominant !== undefined ? (TENSOR_TYPES[dominant] ?? null) : null)),
      contextLength: typeof ctx === 'number' ? ctx : null,
      metadata,
      bytes: size,
    };
  } catch (err) {
    if (err instanceof NotGguf)
      throw new CasefileError('failed', `${file} is not a usable GGUF model: ${err.message}.`);
    throw err;
  } finally {
    await handle.close();
  }
}

/** `model.Q4_K_M.gguf` → `Q4_K_M` (for files whose header has no `general.file_type`). */
export function quantizationFromName(file: string): string | null {
  const m = /[._-]((?:I?Q\d(?:_[A-Z0-9]+)*)|F16|F32|BF16)(?=\.gguf$)/i.exec(file);
  return m ? m[1]!.toUpperCase() : null;
}

/** True when the first four bytes are the GGUF signature (cheap check before a full header read). */
export async function looksLikeGguf(file: string): Promise<boolean> {
  const handle = await fs.open(file, 'r').catch(() => null);
  if (!handle) return false;
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await handle.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.toString('latin1') === 'GGUF';
  } finally {
    await handle.close();
  }
}
