/**
 * Matters of any size and any number of files: the zip layer writes more than 65,535 entries (zip64)
 * and reads every one back; matter files in zip64 form, with an entry placed past 4 GiB, and ones
 * written the old way (fflate, no zip64) all import whole. No case here is ingested: the cases are
 * folders the registry made, with files written into them.
 */
import { createHash } from 'node:crypto';
import {
  createWriteStream,
  promises as fs,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { ZipFile } from 'yazl';
import { CaseRegistry } from '../../src/core/cases/index';
import { ChunkSealer } from '../../src/core/matter/crypto';
import { exportCase } from '../../src/core/matter/export';
import { importMatter } from '../../src/core/matter/import';
import type { MatterPorts } from '../../src/core/matter/ports';
import { MatterZip } from '../../src/core/matter/zip-read';
import { writeZip } from '../../src/core/matter/zip-write';

/** Whether the zip ends with zip64's end records: a locator just before the last record (no comment). */
const endsInZip64 = (zip: Buffer): boolean => zip.readUInt32LE(zip.length - 22 - 20) === 0x07064b50;

/** Bytes that look like a compressed original: no runs for deflate to shrink. */
function scrambled(size: number): Buffer {
  const out = Buffer.alloc(size);
  for (let at = 0, n = 0; at < size; at += 32, n++) createHash('sha256').update(String(n)).digest().copy(out, at);
  return out;
}

const dirs: string[] = [];
const newDir = (prefix: string): string => {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function portsFor(home: string): Promise<MatterPorts> {
  const cases = new CaseRegistry(home);
  await cases.init();
  return {
    version: '0.1.0',
    home,
    cases,
    events: { emit: () => undefined },
    exclusive: (_caseId, fn) => fn(),
    beforeCaseReplace: async () => undefined,
  };
}

/** Every file under `dir` by its path inside it (forward slashes) and its bytes. */
function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (e.isFile()) {
      const full = path.join(e.parentPath, e.name);
      out.set(path.relative(dir, full).split(path.sep).join('/'), readFileSync(full));
    }
  return out;
}

/** A case made by the registry, with an original, some text and a chat written into its folder. */
async function sourceCase(ports: MatterPorts, name: string) {
  const made = await ports.cases.create(name);
  const dir = ports.cases.caseDir(made.id);
  const put = (rel: string, data: Buffer | string) => {
    const full = path.join(dir, ...rel.split('/'));
    return fs.mkdir(path.dirname(full), { recursive: true }).then(() => fs.writeFile(full, data));
  };
  await put('files/Lease.pdf', scrambled(300 * 1024));
  await put('files/empty.txt', '');
  await put('text/Lease.txt', 'The tenant shall pay rent monthly.\n'.repeat(2000));
  await put('chats/s1.json', JSON.stringify({ caseId: made.id, messages: [] }));
  const files = filesUnder(dir);
  const manifest = {
    format: 'casefile-matter',
    format_version: 1,
    casefile_version: '0.1.0',
    exported_at: '2026-01-01T00:00:00.000Z',
    case: { id: made.id, name },
    files: [...files].map(([rel, data]) => ({
      path: rel,
      size: data.length,
      sha256: createHash('sha256').update(data).digest('hex'),
    })),
  };
  return { id: made.id, files, manifest: Buffer.from(JSON.stringify(manifest, null, 1)) };
}

type Source = Awaited<ReturnType<typeof sourceCase>>;

/** Import `file` into a fresh home and check the case's files are the source's, byte for byte. */
async function importsWhole(file: string, source: Source, passphrase?: string): Promise<void> {
  const home = newDir('casefile-zip64-to-');
  const ports = await portsFor(home);
  const r = await importMatter(ports, file, passphrase);
  expect(r.case.id).toBe(source.id);
  expect(r.encrypted).toBe(!!passphrase);
  expect(filesUnder(ports.cases.caseDir(source.id))).toEqual(source.files);
}

/** A matter file built by yazl with every entry and the end of the zip in zip64 form. */
async function zip64Matter(source: Source): Promise<Buffer> {
  const zip = new ZipFile();
  for (const [rel, data] of source.files)
    zip.addBuffer(data, `case/${rel}`, { compress: !rel.startsWith('files/'), forceZip64Format: true });
  zip.addBuffer(source.manifest, 'manifest.json', { forceZip64Format: true });
  zip.end({ forceZip64Format: true, comment: '' });
  return Buffer.concat(await (zip.outputStream as Readable).toArray());
}

describe('matter files past the plain zip limits', () => {
  it('the zip layer writes more than 65,535 entries with zip64 records and reads every one back', async () => {
    const dir = newDir('casefile-zip64-many-');
    const count = 65_600;
    const body = (i: number) => `entry ${i}\n`;
    const file = path.join(dir, 'many.zip');
    const out = createWriteStream(file);
    await writeZip(
      Array.from({ length: count }, (_, i) => ({
        name: `case/files/${i}.txt`,
        deflate: i % 5000 === 0,
        open: () => Readable.from([Buffer.from(body(i))]),
      })),
      { name: 'manifest.json', data: () => Buffer.from('{"last":true}') },
      async (chunk) => {
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      },
    );
    out.end();
    await finished(out);
    const bytes = readFileSync(file);
    expect(endsInZip64(bytes)).toBe(true);

    const zip = await MatterZip.open(file);
    try {
      expect(zip.entries).toHaveLength(count + 1);
      const wrong: string[] = [];
      for (const [i, e] of zip.entries.entries()) {
        const want = i === count ? '{"last":true}' : body(i);
        const name = i === count ? 'manifest.json' : `case/files/${i}.txt`;
        const got = Buffer.concat(await (await zip.stream(e, 1024)).toArray()).toString();
        if (e.name !== name || got !== want) wrong.push(`${i}: ${e.name} ${JSON.stringify(got)}`);
      }
      expect(wrong).toEqual([]);
    } finally {
      zip.close();
    }
  }, 120_000);

  it('a matter in zip64 form imports whole, plain and locked', async () => {
    const ports = await portsFor(newDir('casefile-zip64-from-'));
    const source = await sourceCase(ports, 'Zip64 v. Plain');
    const dir = newDir('casefile-zip64-files-');
    const plain = path.join(dir, 'zip64.casefile');
    const zipBytes = await zip64Matter(source);
    expect(endsInZip64(zipBytes)).toBe(true);
    writeFileSync(plain, zipBytes);
    await importsWhole(plain, source);

    const sealer = await ChunkSealer.create('correct horse battery');
    const locked = path.join(dir, 'zip64-locked.casefile');
    writeFileSync(locked, Buffer.concat([sealer.header, ...sealer.push(zipBytes), sealer.final()]));
    await importsWhole(locked, source, 'correct horse battery');
  });

  it('a matter whose entries lie past 4 GiB into the file imports whole', async () => {
    const ports = await portsFor(newDir('casefile-zip64-from-'));
    const source = await sourceCase(ports, 'Far v. Near');
    const zipBytes = await zip64Matter(source);
    // Move every entry after the first 4 GiB further into the file (a hole, so no disk is used):
    // their offsets, and the central directory's, then need all 64 bits of zip64's fields.
    const gap = 4n * 1024n ** 3n + 12_345n;
    const end = zipBytes.length - 22;
    const locator = end - 20;
    const record = Number(zipBytes.readBigUInt64LE(locator + 8));
    const directory = Number(zipBytes.readBigUInt64LE(record + 48));
    const entries = Number(zipBytes.readBigUInt64LE(record + 32));
    const patched = Buffer.from(zipBytes);
    let split = 0;
    for (let i = 0, at = directory; i < entries; i++) {
      const nameLength = patched.readUInt16LE(at + 28);
      const extraLength = patched.readUInt16LE(at + 30);
      for (let x = at + 46 + nameLength; x < at + 46 + nameLength + extraLength; x += 4 + patched.readUInt16LE(x + 2)) {
        if (patched.readUInt16LE(x) !== 1) continue;
        // yazl's forced zip64 field: uncompressed size, compressed size, then the local header's offset.
        const offset = patched.readBigUInt64LE(x + 4 + 16);
        if (i === 1) split = Number(offset);
        if (i >= 1) patched.writeBigUInt64LE(offset + gap, x + 4 + 16);
      }
      at += 46 + nameLength + extraLength + patched.readUInt16LE(at + 32);
    }
    expect(split).toBeGreaterThan(0);
    patched.writeBigUInt64LE(BigInt(directory) + gap, record + 48);
    patched.writeBigUInt64LE(BigInt(record) + gap, locator + 8);

    const far = path.join(newDir('casefile-zip64-files-'), 'far.casefile');
    const handle = await fs.open(far, 'w');
    try {
      await handle.write(patched, 0, split, 0);
      await handle.write(patched, split, patched.length - split, Number(BigInt(split) + gap));
    } finally {
      await handle.close();
    }
    expect(statSync(far).size).toBeGreaterThan(2 ** 32);
    await importsWhole(far, source);
  });

  it('a matter file written the old way (fflate, no zip64) still imports whole', async () => {
    const ports = await portsFor(newDir('casefile-zip64-from-'));
    const source = await sourceCase(ports, 'Old v. New');
    // As the export before zip64 wrote it: fflate's streaming Zip, originals stored, the manifest last.
    const chunks: Uint8Array[] = [];
    const zip = new Zip((err, data) => {
      if (err) throw err;
      chunks.push(data);
    });
    for (const [rel, data] of source.files) {
      const entry = rel.startsWith('files/')
        ? new ZipPassThrough(`case/${rel}`)
        : new ZipDeflate(`case/${rel}`, { level: 6 });
      zip.add(entry);
      entry.push(data, true);
    }
    const manifest = new ZipDeflate('manifest.json', { level: 6 });
    zip.add(manifest);
    manifest.push(source.manifest, true);
    zip.end();
    const old = path.join(newDir('casefile-zip64-files-'), 'old.casefile');
    const bytes = Buffer.concat(chunks);
    expect(endsInZip64(bytes)).toBe(false);
    writeFileSync(old, bytes);
    await importsWhole(old, source);
  });

  it('an export of a small case stays a plain zip, without zip64 records, and imports back', async () => {
    const ports = await portsFor(newDir('casefile-zip64-from-'));
    const source = await sourceCase(ports, 'Small v. Plain');
    const out = path.join(newDir('casefile-zip64-files-'), 'small.casefile');
    const exported = await exportCase(ports, source.id, out);
    expect(exported.files).toBe(source.files.size);
    const bytes = readFileSync(out);
    expect(endsInZip64(bytes)).toBe(false);
    await importsWhole(out, source);
  });
});
