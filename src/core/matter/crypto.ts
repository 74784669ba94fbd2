/**
 * The passphrase layer of a matter file: the zip is cut into chunks, each sealed with AES-256-GCM
 * under a key scrypt derives from the passphrase and a random salt. Each chunk's nonce holds a
 * random prefix, the chunk's index and a last-chunk flag, and the file's header is every chunk's
 * associated data, so a changed byte, a chunk moved, dropped or added, or a file cut short all fail
 * to open. A check value in the header tells a wrong passphrase apart from a damaged file.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { CasefileError } from '../../shared/errors';

/** The first bytes of an encrypted matter file. */
export const ENCRYPTED_MAGIC = Buffer.from('CFMATTER', 'latin1');
const FORMAT = 1;
/** Plain bytes per sealed chunk. */
const CHUNK = 64 * 1024;
const TAG = 16;
/** scrypt cost: 2^17 × r 8 uses 128 MiB once per export or import. */
const SCRYPT = { logN: 17, r: 8, p: 1 };
const SALT = 16;
const PREFIX = 7;
const CHECK = 16;
/** magic, format, logN, r, p, salt, nonce prefix, chunk size, passphrase check. */
export const HEADER_BYTES = 8 + 1 + 3 + SALT + PREFIX + 4 + CHECK;

export const WRONG_PASSPHRASE = 'The passphrase does not open this matter file.';
export const DAMAGED_ENCRYPTED =
  'This matter file was changed or cut short after it was exported: its encrypted contents do not check out. Ask for a fresh copy.';

interface Keys {
  key: Buffer;
  check: Buffer;
}

function deriveKeys(passphrase: string, salt: Buffer, p: typeof SCRYPT): Promise<Keys> {
  const N = 2 ** p.logN;
  return new Promise((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), salt, 64, { N, r: p.r, p: p.p, maxmem: 256 * N * p.r + 1024 }, (err, out) =>
      err ? reject(err) : resolve({ key: out.subarray(0, 32), check: out.subarray(32) }),
    );
  });
}

/** The header without its check value: what the check and every chunk authenticate. */
function headerBody(salt: Buffer, prefix: Buffer, p: typeof SCRYPT, chunk: number): Buffer {
  const fixed = Buffer.from([FORMAT, p.logN, p.r, p.p]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(chunk);
  return Buffer.concat([ENCRYPTED_MAGIC, fixed, salt, prefix, size]);
}

const checkOf = (keys: Keys, body: Buffer): Buffer =>
  createHmac('sha256', keys.check).update(body).digest().subarray(0, CHECK);

function nonce(prefix: Buffer, index: number, last: boolean): Buffer {
  const n = Buffer.alloc(12);
  prefix.copy(n, 0);
  n.writeUInt32BE(index, PREFIX);
  n[11] = last ? 1 : 0;
  return n;
}

/** Seals a stream of bytes: `header` first, then what `push` and `final` return, in order. */
export class ChunkSealer {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private index = 0;

  private constructor(
    private readonly keys: Keys,
    private readonly prefix: Buffer,
    readonly header: Buffer,
  ) {}

  static async create(passphrase: string): Promise<ChunkSealer> {
    const salt = randomBytes(SALT);
    const prefix = randomBytes(PREFIX);
    const keys = await deriveKeys(passphrase, salt, SCRYPT);
    const body = headerBody(salt, prefix, SCRYPT, CHUNK);
    return new ChunkSealer(keys, prefix, Buffer.concat([body, checkOf(keys, body)]));
  }

  /** Whole chunks are sealed once more bytes follow them (the last chunk waits for `final`). */
  push(data: Uint8Array): Buffer[] {
    this.pending.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    this.pendingBytes += data.byteLength;
    const out: Buffer[] = [];
    if (this.pendingBytes <= CHUNK) return out;
    let all = Buffer.concat(this.pending);
    while (all.length > CHUNK) {
      out.push(this.seal(all.subarray(0, CHUNK), false));
      all = all.subarray(CHUNK);
    }
    this.pending = [all];
    this.pendingBytes = all.length;
    return out;
  }

  final(): Buffer {
    return this.seal(Buffer.concat(this.pending), true);
  }

  private seal(plain: Buffer, last: boolean): Buffer {
    const cipher = createCipheriv('aes-256-gcm', this.keys.key, nonce(this.prefix, this.index++, last));
    cipher.setAAD(this.header);
    return Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
  }
}

/** Opens what `ChunkSealer` sealed: `create` checks the passphrase against the header. */
export class ChunkOpener {
  private pending: Buffer = Buffer.alloc(0);
  private index = 0;

  private constructor(
    private readonly keys: Keys,
    private readonly prefix: Buffer,
    private readonly header: Buffer,
    private readonly chunk: number,
  ) {}

  static async create(header: Buffer, passphrase: string): Promise<ChunkOpener> {
    if (header.length < HEADER_BYTES || !header.subarray(0, 8).equals(ENCRYPTED_MAGIC))
      throw new CasefileError('invalid_input', DAMAGED_ENCRYPTED);
    if (header[8] !== FORMAT)
      throw new CasefileError(
        'invalid_input',
        'This matter file was written by a newer Casefile. Update Casefile to import it.',
      );
    const p = { logN: header[9]!, r: header[10]!, p: header[11]! };
    if (p.logN < 10 || p.logN > 20 || p.r < 1 || p.r > 32 || p.p < 1 || p.p > 4)
      throw new CasefileError('invalid_input', DAMAGED_ENCRYPTED);
    const salt = header.subarray(12, 12 + SALT);
    const prefix = header.subarray(12 + SALT, 12 + SALT + PREFIX);
    const chunk = header.readUInt32BE(12 + SALT + PREFIX);
    if (chunk < 1024 || chunk > 16 * 1024 * 1024) throw new CasefileError('invalid_input', DAMAGED_ENCRYPTED);
    const body = header.subarray(0, HEADER_BYTES - CHECK);
    const keys = await deriveKeys(passphrase, Buffer.from(salt), p);
    if (!timingSafeEqual(checkOf(keys, body), header.subarray(HEADER_BYTES - CHECK, HEADER_BYTES)))
      throw new CasefileError('invalid_input', WRONG_PASSPHRASE);
    return new ChunkOpener(keys, Buffer.from(prefix), Buffer.from(header.subarray(0, HEADER_BYTES)), chunk);
  }

  /** The plain bytes of every chunk known not to be the last. */
  push(data: Buffer): Buffer[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    const out: Buffer[] = [];
    const sealed = this.chunk + TAG;
    let at = 0;
    while (this.pending.length - at > sealed) {
      out.push(this.open(this.pending.subarray(at, at + sealed), false));
      at += sealed;
    }
    this.pending = this.pending.subarray(at);
    return out;
  }

  /** The last chunk: what is left must open as the chunk sealed last, or the file was cut short. */
  final(): Buffer {
    if (this.pending.length < TAG) throw new CasefileError('invalid_input', DAMAGED_ENCRYPTED);
    return this.open(this.pending, true);
  }

  private open(sealed: Buffer, last: boolean): Buffer {
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.keys.key, nonce(this.prefix, this.index++, last));
      decipher.setAAD(this.header);
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG)), decipher.final()]);
    } catch {
      throw new CasefileError('invalid_input', DAMAGED_ENCRYPTED);
    }
  }
}
