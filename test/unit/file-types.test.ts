/** The types of file Casefile reads, named alike by the drop zone and by the engine's word on a file it does not read. */
import { describe, expect, it } from 'vitest';
import { detectKind, imageFormat } from '../../src/core/domain/index';
import { READ_FILE_TYPES, readFileTypesText } from '../../src/shared/file-types';

describe('the file types read', () => {
  it('name every kind of document the engine makes, emails, spreadsheets, images and archives included', () => {
    const kinds = new Set(READ_FILE_TYPES.map((t) => t.kind));
    expect([...kinds].sort()).toEqual(['archive', 'docx', 'email', 'image', 'pdf', 'spreadsheet', 'text']);
    expect(readFileTypesText()).toBe(
      'PDF, Word (.docx, .doc), RTF, text, web pages, emails (.eml, .msg), spreadsheets (.xlsx, .xls, .ods, .csv), ZIP archives and images',
    );
  });

  it('the engine says the same list for a file it does not read', () => {
    expect(detectKind(Buffer.from([0, 1, 2, 3, 0, 255, 254]), 'blob.bin').reason).toBe(
      `.bin files are not a supported type; Casefile reads ${readFileTypesText()}`,
    );
  });

  it('a file of a listed type is read as its kind', () => {
    const text = (s: string) => Buffer.from(s, 'utf8');
    const samples: Record<string, Buffer> = {
      pdf: text('%PDF-1.4\n%…'),
      txt: text('Plain notes of the call.\n'),
      md: text('# Notes\n\nOf the call.\n'),
      rtf: text('{\\rtf1\\ansi Hello}'),
      html: text('<!DOCTYPE html><html><head><title>T</title></head><body>Hi</body></html>'),
      htm: text('<html><body><p>Hi</p></body></html>'),
      eml: text(
        'From: a@example.com\r\nTo: b@example.com\r\nSubject: Hi\r\nDate: Mon, 1 Jan 2024 10:00:00 +0000\r\n\r\nBody\r\n',
      ),
      csv: text('date,amount\n2024-01-01,10\n'),
      png: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
      jpg: Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]),
    };
    for (const type of READ_FILE_TYPES)
      for (const ext of type.extensions) {
        const bytes = samples[ext];
        if (!bytes) continue; // binary containers (DOCX, XLSX, MSG, ZIP…) are detected in test/ingest/detect.test.ts
        expect(detectKind(bytes, `sample.${ext}`).kind, ext).toBe(type.kind);
      }
    expect(imageFormat(samples.png!)).toBe('png');
  });
});
