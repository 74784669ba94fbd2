/** One status language for a document: done, needs you (amber), failed (red) only for a real failure. */
import { describe, expect, it } from 'vitest';
import { LOCKED_REASON } from '../../src/shared/contract/ingest';
import { checkTheOriginal, documentStatus } from '../../src/renderer/src/lib/status-tone';

describe('documentStatus', () => {
  it('a document read well is done, and a good OCR note does not change that', () => {
    expect(documentStatus({ status: 'indexed', reason: '' })).toEqual({ tone: 'done', label: 'Indexed' });
    expect(documentStatus({ status: 'unchanged' })).toEqual({ tone: 'done', label: 'Indexed' });
    const ocr = 'read by OCR: pages 1-5 (mean confidence 92%)';
    expect(documentStatus({ status: 'indexed', reason: ocr, ocr_pages: [{ page: 1, confidence: 92 }] })).toEqual({
      tone: 'done',
      label: 'Indexed',
    });
    expect(documentStatus({ status: 'indexed', reason: ocr }).tone).toBe('done');
  });

  it('a password-protected PDF needs you, it has not failed', () => {
    expect(documentStatus({ status: 'failed', reason: LOCKED_REASON })).toEqual({
      tone: 'needs-you',
      label: 'Password needed',
    });
    expect(documentStatus({ status: 'failed', reason: '', locked: 'needs_password' }).tone).toBe('needs-you');
    const wrong = 'password protected, and the password given does not open it — enter it again';
    expect(documentStatus({ status: 'failed', reason: wrong }).label).toBe('Password needed');
    expect(
      documentStatus({ status: 'failed', reason: 'password protected Word file — save an unlocked copy' }).tone,
    ).toBe('needs-you');
  });

  it('low OCR confidence, pages OCR could not read, and pages waiting for OCR need you', () => {
    const low = 'read by OCR: pages 1-5 (mean confidence 84%); page 4 under 80% — check the original';
    expect(documentStatus({ status: 'indexed', reason: low })).toEqual({ tone: 'needs-you', label: 'Check the scan' });
    expect(
      documentStatus({
        status: 'indexed',
        reason: '',
        ocr_pages: [
          { page: 1, confidence: 95 },
          { page: 2, confidence: 61 },
        ],
      }).tone,
    ).toBe('needs-you');
    const noLayer = '2 of 9 pages have no text layer (pages 3-4); turn on OCR in the case settings to search them';
    expect(documentStatus({ status: 'indexed', reason: noLayer })).toEqual({ tone: 'needs-you', label: 'Needs OCR' });
    expect(documentStatus({ status: 'needs_ocr', reason: 'no text layer' }).tone).toBe('needs-you');
    expect(documentStatus({ status: 'unsupported', reason: 'not a type Casefile reads' }).tone).toBe('needs-you');
    expect(documentStatus({ status: 'cancelled' }).tone).toBe('needs-you');
  });

  it('a file that could not be read has failed; one in flight is busy; one not added is off', () => {
    expect(documentStatus({ status: 'failed', reason: 'damaged or incomplete PDF, it could not be opened' })).toEqual({
      tone: 'failed',
      label: 'Failed',
    });
    expect(documentStatus({ status: 'failed', reason: 'empty file' }).tone).toBe('failed');
    for (const status of ['queued', 'parsing', 'embedding', 'indexing'] as const)
      expect(documentStatus({ status }).tone).toBe('busy');
    expect(documentStatus({ status: 'skipped', reason: 'a link out of the folder' }).tone).toBe('off');
  });

  it('checkTheOriginal reads the pages when sent, else the reason', () => {
    expect(checkTheOriginal({ ocr_pages: [{ page: 1, confidence: 79 }] })).toBe(true);
    expect(checkTheOriginal({ ocr_pages: [{ page: 1, confidence: 80 }] })).toBe(false);
    expect(checkTheOriginal({ reason: 'page 4 under 80% — check the original' })).toBe(true);
    expect(checkTheOriginal({ reason: '' })).toBe(false);
  });
});
