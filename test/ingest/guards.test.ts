import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, resolveLimits } from '../../src/core/domain/limits';
import { checkPdfStreams } from '../../src/core/reader/pdf-guard';
import { checkZip } from '../../src/core/reader/zip-guard';
import { parseFile } from '../../src/core/reader/parse';
import { deflateBomb, docx, fanOutZip, lyingZip, manyFilesZip, overlappingZip, rawPdf } from '../fixtures/hostile';
import { corpusDir } from '../helpers/home';

const contract = path.join(
  corpusDir,
  'cuad/full_contract_pdf/Part_I/Affiliate_Agreements/LinkPlusCorp_20050802_8-K_EX-10_3240252_EX-10_Affiliate Agreement.pdf',
);
const stream = (dict: string, data: Buffer) =>
  Buffer.concat([Buffer.from(`<< ${dict} /Length ${data.length} >>\nstream\n`), data, Buffer.from('\nendstream')]);

describe('limits before the parsers', () => {
  it('a real contract passes the stream check and its decoded bytes are counted', () => {
    const r = checkPdfStreams(readFileSync(contract), DEFAULT_LIMITS);
    expect(r.streams).toBeGreaterThan(0);
    expect(r.decoded).toBeGreaterThan(10_000);
  });

  it('a stream over the per-stream limit, and streams over the per-document limit, are refused with the limit named', () => {
    const one = rawPdf(['<< /Type /Catalog >>', stream('/Filter /FlateDecode', deflateBomb(40, 0))]);
    expect(() => checkPdfStreams(one, { maxStreamBytes: 32 * 1024 * 1024, maxDecodedBytes: 1e12 })).toThrow(
      'damaged or hostile PDF (a stream expands beyond 32 MB)',
    );
    expect(() => checkPdfStreams(one, { maxStreamBytes: 64 * 1024 * 1024, maxDecodedBytes: 1e12 })).not.toThrow();
    const many = rawPdf([
      '<< /Type /Catalog >>',
      ...Array.from({ length: 5 }, () => stream('/Filter /FlateDecode', deflateBomb(8, 0))),
    ]);
    expect(() => checkPdfStreams(many, { maxStreamBytes: 1e12, maxDecodedBytes: 32 * 1024 * 1024 })).toThrow(
      'its streams expand beyond 32 MB in all',
    );
  });

  it('a file full of fake stream keywords is scanned in linear time (no quadratic rescans)', () => {
    const fake = Buffer.from('%PDF-1.7\n' + '<< /Length 999999 >>\nstream\nxx\n'.repeat(100_000) + 'endstream\n');
    const r = checkPdfStreams(fake, DEFAULT_LIMITS);
    expect(r.streams).toBe(0);
  });

  it('a DOCX over the XML element limit, or with a part that expands hundreds of times, is refused; a normal one passes', () => {
    const paras = '<w:p><w:r><w:t>x</w:t></w:r></w:p>'.repeat(2000);
    const file = docx(`<?xml version="1.0"?><w:document xmlns:w="w"><w:body>${paras}</w:body></w:document>`);
    expect(() => checkZip(file, { ...DEFAULT_LIMITS, maxXmlElements: 5000 })).toThrow('more than 5,000 XML elements');
    expect(() => checkZip(file, DEFAULT_LIMITS)).not.toThrow();
    const bomb = docx({
      name: 'word/document.xml',
      data: zlib.deflateRawSync(Buffer.alloc(20 * 1024 * 1024, 0x20)),
      deflated: { size: 20 * 1024 * 1024, crc: 0 },
    });
    expect(() => checkZip(bomb, DEFAULT_LIMITS)).toThrow(/a part expands \d+ times, a zip bomb/);
  });

  it('limits come from defaults, then CASEFILE_* variables, then explicit options', () => {
    expect(resolveLimits({}, {}).maxPages).toBe(20_000);
    expect(resolveLimits({}, { CASEFILE_MAX_PAGES: '50', CASEFILE_PARSE_MEMORY_MB: '700' })).toMatchObject({
      maxPages: 50,
      maxParseMemoryBytes: 700 * 1024 * 1024,
    });
    expect(resolveLimits({ maxPages: 7 }, { CASEFILE_MAX_PAGES: '50' }).maxPages).toBe(7);
    expect(resolveLimits({}, { CASEFILE_MAX_PAGES: 'lots' }).maxPages).toBe(20_000);
    expect(resolveLimits({}, { CASEFILE_QUARANTINE_AFTER: '5' }).quarantineAfter).toBe(5);
  });
});

describe('ZIP archives: what the table of contents says', () => {
  const read = (bytes: Buffer, limits: Partial<typeof DEFAULT_LIMITS> = {}) =>
    parseFile({ bytes, name: 'archive.zip', maxBytes: DEFAULT_LIMITS.maxFileBytes, limits });
  const names = (children: { name: string }[] | undefined) => (children ?? []).map((c) => c.name);

  it('entries that share their bytes (records pointing at one local header, or data running over the next entry) fail the archive with the reason', async () => {
    const fanOut = await read(fanOutZip(3, 200));
    expect(fanOut).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(
        /^damaged or hostile ZIP archive \(199 of its entries share their bytes with others, the trick of a zip bomb\)/,
      ),
    });
    expect(fanOut.children).toBeUndefined();
    const overlap = await read(overlappingZip(4));
    expect(overlap).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^damaged or hostile ZIP archive \(3 of its entries share their bytes/),
    });
    // An archive written the usual way is read.
    const plain = await read(manyFilesZip(4));
    expect(plain).toMatchObject({ status: 'indexed', reason: '' });
    expect(names(plain.children)).toEqual(['notes/00000.txt', 'notes/00001.txt', 'notes/00002.txt', 'notes/00003.txt']);
  });

  it('a ZIP64 archive is counted by its ZIP64 end record, not as 65,535 files', async () => {
    const small = await read(manyFilesZip(3, true));
    expect(small).toMatchObject({ status: 'indexed', reason: '' });
    expect(names(small.children)).toEqual(['notes/00000.txt', 'notes/00001.txt', 'notes/00002.txt']);
    const large = await read(manyFilesZip(70_000, true));
    expect(large).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^the archive holds 70,000 files, more than 10,000/),
    });
  });

  it('an end record that gives another count than the table of contents is said, and every entry listed is read', async () => {
    const parts = ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt'].map((name) => ({
      name,
      data: Buffer.from(`The file ${name}.`),
    }));
    const under = await read(lyingZip(parts, 2));
    expect(under).toMatchObject({
      status: 'indexed',
      reason:
        "the archive's end record says it holds 2 entries, but its table of contents lists 5 entries: all of them were read — the archive may have been altered",
    });
    expect(names(under.children)).toEqual(['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e.txt']);
    const over = await read(lyingZip(parts, 9));
    expect(over).toMatchObject({
      status: 'indexed',
      reason: expect.stringMatching(
        /says it holds 9 entries, but only 5 entries could be found: it may be damaged or cut short/,
      ),
    });
    // The limit counts the entries the table of contents lists, not the end record's claim.
    expect(await read(lyingZip(parts, 2), { maxArchiveEntries: 4 })).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^the archive holds 5 files, more than 4/),
    });
  });
});
