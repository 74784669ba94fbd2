import { describe, expect, it } from 'vitest';
import type { IngestCurrentFile } from '../../src/shared/contract/ingest';
import { ocrProgressText } from '../../src/shared/format';

describe('ocrProgressText', () => {
  it('reads the page being OCR-read from a progress event’s file (its wire name, ocr_page)', () => {
    const reading: IngestCurrentFile = {
      name: 'scan.pdf',
      file_id: 'f1',
      version: 1,
      stage: 'parsing',
      done: 2,
      total: 5,
      fraction: 0.4,
      pages: 5,
      eta_seconds: null,
      ocr_page: 3,
    };
    expect(ocrProgressText(reading)).toBe('OCR page 3 of 5');
    const { ocr_page: _, ...notReading } = reading;
    expect(ocrProgressText(notReading)).toBe('');
  });
});
