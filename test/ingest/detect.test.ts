/** What a file is, by its bytes: the readers each format goes to, and plain words for the rest. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { BookType } from '@e965/xlsx';
import { describe, expect, it } from 'vitest';
import { detectKind } from '../../src/core/domain/detect';
import { corpusDir } from '../helpers/home';
import { workbook } from '../fixtures/sheets';
import { eml, zip } from '../helpers/mail';

const corpus = (rel: string) => readFileSync(path.join(corpusDir, rel));

const billing = (bookType: BookType) =>
  workbook(
    {
      Billing: [
        ['Date', 'Amount'],
        ['2023-03-04', 1200],
      ],
    },
    bookType,
  );

describe('file types by content', () => {
  it('Office, OpenDocument and Outlook files by the parts inside them, whatever their names', async () => {
    expect(detectKind(corpus('freelaw-doctor/word-docx.docx'), 'x.bin')).toEqual({ kind: 'docx', reason: '' });
    expect(detectKind(corpus('freelaw-doctor/word-doc.doc'), 'x.bin')).toEqual({
      kind: 'text',
      format: 'doc',
      reason: '',
    });
    expect(detectKind(billing('xlsx'), 'x.bin')).toEqual({ kind: 'spreadsheet', format: 'xlsx', reason: '' });
    expect(detectKind(billing('biff8'), 'x.bin')).toEqual({ kind: 'spreadsheet', format: 'xls', reason: '' });
    expect(detectKind(billing('ods'), 'x.bin')).toEqual({ kind: 'spreadsheet', format: 'ods', reason: '' });
    const msg = gunzipSync(
      readFileSync(path.join(import.meta.dirname, '../fixtures/msg/attach-sample-eml-sent.msg.gz')),
    );
    expect(detectKind(msg, 'mail.bin')).toEqual({ kind: 'email', format: 'msg', reason: '' });
  });

  it('an email, a web page and a CSV by how their text begins (CSV by its name: its text alone cannot say)', async () => {
    const mail = await eml({
      from: 'a@x.example',
      to: 'b@y.example',
      subject: 'Re: lease',
      date: new Date('2023-05-02T10:00:00Z'),
      text: 'See you Monday.',
    });
    expect(detectKind(mail, 'message.txt')).toEqual({ kind: 'email', format: 'eml', reason: '' });
    expect(
      detectKind(
        Buffer.from('From: Jane\nTo: John\n\nA memo whose first lines look like two headers only.'),
        'memo.txt',
      ).kind,
    ).toBe('text');
    expect(
      detectKind(Buffer.from('<!-- saved -->\n<!DOCTYPE html><html><body><p>Saved page</p></body></html>'), 'page.bin'),
    ).toEqual({ kind: 'text', format: 'html', reason: '' });
    expect(detectKind(Buffer.from('<p>A fragment</p>'), 'fragment.htm')).toEqual({
      kind: 'text',
      format: 'html',
      reason: '',
    });
    expect(detectKind(Buffer.from('# Notes\n\n<b>not a web page</b>'), 'notes.md')).toEqual({
      kind: 'text',
      reason: '',
    });
    expect(detectKind(Buffer.from('Date,Amount\n2023-03-04,1200\n'), 'billing.csv')).toEqual({
      kind: 'spreadsheet',
      format: 'csv',
      reason: '',
    });
    expect(detectKind(Buffer.from('{\\rtf1\\ansi Hello}'), 'letter.doc')).toEqual({
      kind: 'text',
      format: 'rtf',
      reason: '',
    });
  });

  it('a ZIP of files is an archive; files that are not read yet are named, with what to do', () => {
    expect(detectKind(zip({ 'vol1/a.txt': 'a' }), 'production.zip')).toEqual({
      kind: 'archive',
      format: 'zip',
      reason: '',
    });
    expect(detectKind(zip({ 'ppt/presentation.xml': '<p/>' }), 'deck.pptx')).toEqual({
      kind: 'unknown',
      reason: 'PowerPoint presentation: not supported yet — save it as PDF',
    });
    expect(detectKind(zip({ 'Index/Document.iwa': 'x', 'Metadata/Properties.plist': 'y' }), 'damages.numbers')).toEqual(
      { kind: 'unknown', reason: 'Apple Numbers file: not supported yet — export it as PDF' },
    );
    expect(detectKind(corpus('freelaw-doctor/word-perfect.wpd'), 'brief.wpd')).toEqual({
      kind: 'unknown',
      reason: 'WordPerfect document: not supported yet — save it as .docx or PDF',
    });
    expect(detectKind(Buffer.from([0, 1, 2, 3, 0, 255, 254]), 'call.m4a').reason).toBe(
      'audio recording: not supported yet — save or export it as PDF',
    );
    expect(detectKind(Buffer.from([0, 1, 2, 3, 0, 255, 254]), 'invoice.eml').reason).toMatch(/^not an email file: /);
    expect(detectKind(Buffer.from([0, 1, 2, 3, 0, 255, 254]), 'blob.bin').reason).toMatch(
      /^\.bin files are not a supported type; Casefile reads PDF, Word/,
    );
  });
});
