import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  htmlToParagraphs,
  loadHtml,
  loadRtf,
  loadWord97,
  word97Flags,
  WORD97_LOCKED_REASON,
} from '../../src/core/reader/formats/text-formats';
import { LoadError, type ParsedDoc } from '../../src/core/reader/loaders';
import { corpusDir } from '../helpers/home';

const utf8 = (s: string) => new TextEncoder().encode(s);
const paragraphsOf = (doc: ParsedDoc) => (doc.index.paragraphs ?? []).map(([s, e]) => doc.text.slice(s, e));

async function failure(p: Promise<unknown>): Promise<LoadError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(LoadError);
  return err as LoadError;
}

describe('RTF', () => {
  const rtf = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\froman Times New Roman;}{\f1\ftech\fcharset2 Symbol;}}{\colortbl;\red255\green0\blue0;}
{\info{\title Hidden title}{\author Hidden Author}}
{\header \pard Running header\par}
\pard\plain {\b LEASE AGREEMENT}\par
This lease is made between {\b Landlord} and Tenant.\par
The caf\'e9 pays \u8364? 1,200 per month\u8212-due on the 1st.\par
{\listtext\pard\plain\f1 \'b7\tab}Bulleted item.\par
\pard Clause 2{\footnote \pard {\super\chftn} Footnote: see the schedule.} applies.\line Second line.\par
\trowd\cellx2000\cellx4000 Rent\cell 1,200\cell\row
{\pict\wmetafile8\picw100\pich100 0123456789abcdef0123456789abcdef}
{\field{\*\fldinst HYPERLINK "http://example.com/secret"}{\fldrslt the schedule link}}\par
}`;

  it('reads paragraphs, bold text, \\u escapes and cp1252 bytes; leaves out metadata, headers, pictures and field codes', async () => {
    const doc = await loadRtf(utf8(rtf));
    expect(doc.kind).toBe('text');
    expect(paragraphsOf(doc)).toEqual([
      'LEASE AGREEMENT',
      'This lease is made between Landlord and Tenant.',
      'The café pays € 1,200 per month—due on the 1st.',
      '• Bulleted item.',
      'Clause 2 applies.',
      'Second line.',
      'Rent · 1,200',
      'the schedule link',
      // Footnotes come after the body.
      'Footnote: see the schedule.',
    ]);
    for (const hidden of ['Hidden', 'Running header', 'Times New Roman', '0123456789', 'http://', 'HYPERLINK'])
      expect(doc.text).not.toContain(hidden);
    // One unit without a label: cited by page number.
    expect(doc.index.pages).toHaveLength(1);
    expect(doc.index.pages[0]!.label).toBeUndefined();
    expect(doc.index.pages[0]).toMatchObject({ page: 1, start: 0, end: doc.text.length });
  });

  it('Outlook RTF that wraps HTML (\\fromhtml1) is read as its HTML', async () => {
    const outlook = String.raw`{\rtf1\ansi\ansicpg1252\fromhtml1 \deff0{\fonttbl{\f0\fswiss Arial;}}
{\*\htmltag19 <html>}{\*\htmltag34 <head>}{\*\htmltag41 <title>}{\*\htmltag49 </title>}{\*\htmltag43 <style>}{\*\htmltag27 p \{ color: red \}}{\*\htmltag51 </style>}{\*\htmltag42 </head>}
{\*\htmltag50 <body>}\htmlrtf {\htmlrtf0
{\*\htmltag64 <p>}\htmlrtf {\htmlrtf0 Dear Ms. Smith, the deposit is \'80500.\htmlrtf\par}\htmlrtf0
{\*\htmltag72 </p>}
{\*\htmltag64 <p>}\htmlrtf {\htmlrtf0 See {\*\htmltag84 <a href="http://example.com/track">}\htmlrtf {\htmlrtf0 the invoice\htmlrtf }\htmlrtf0 {\*\htmltag92 </a>}.\htmlrtf\par}\htmlrtf0
{\*\htmltag72 </p>}
\htmlrtf }\htmlrtf0 {\*\htmltag58 </body>}{\*\htmltag27 </html>}}`;
    const doc = await loadRtf(utf8(outlook));
    expect(paragraphsOf(doc)).toEqual(['Dear Ms. Smith, the deposit is €500.', 'See the invoice.']);
    expect(doc.text).not.toContain('color');
    expect(doc.text).not.toContain('example.com');
  });

  it('a file that is not RTF, or RTF without text, fails with a plain reason', async () => {
    const notRtf = await failure(loadRtf(utf8('this is not RTF')));
    expect(notRtf.status).toBe('failed');
    expect(notRtf.reason).toMatch(/^damaged RTF file, it could not be read \(.+\)$/);
    const empty = await failure(
      loadRtf(utf8(String.raw`{\rtf1\ansi{\fonttbl{\f0 Arial;}}{\info{\title Only metadata}}}`)),
    );
    expect(empty.reason).toBe('the RTF file has no text');
  });
});

describe('HTML', () => {
  const page = `<!DOCTYPE html>
<html><head>
<meta charset="utf-8">
<title>Smith v. Jones &amp; Co. — Docket</title>
<style>body { font-family: serif } .x::before { content: "STYLE TEXT" }</style>
<script>document.title='pwned'; var secret = "SCRIPT TEXT";</script>
</head>
<body>
<noscript>NOSCRIPT TEXT</noscript>
<h1>Complaint for Damages</h1>
<p>Plaintiff <b>John Smith</b> alleges as follows. See <a href="http://example.com/exhibit-a.pdf">Exhibit A</a>.</p>
<p><img src="http://example.com/x.png" alt="logo"> The parties are described below.</p>
<h2>Parties</h2>
<table>
  <thead><tr><th>Name</th><th>Role</th></tr></thead>
  <tbody><tr><td>John Smith</td><td>Plaintiff</td></tr><tr><td>Jones &amp; Co.</td><td>Defendant</td></tr></tbody>
</table>
<h3>Relief</h3>
<ul><li>Damages</li><li>Costs</li></ul>
<iframe src="http://example.com/frame">IFRAME TEXT</iframe>
<template><p>TEMPLATE TEXT</p></template>
<svg><title>SVG TITLE</title><text>SVG TEXT</text></svg>
</body></html>`;

  it('keeps the text, headings as written, tables as rows; drops scripts, styles, images and URLs', async () => {
    const doc = await loadHtml(utf8(page));
    expect(paragraphsOf(doc)).toEqual([
      'Smith v. Jones & Co. — Docket',
      'Complaint for Damages',
      'Plaintiff John Smith alleges as follows. See Exhibit A.',
      'The parties are described below.',
      'Parties',
      'Name · Role',
      'John Smith · Plaintiff',
      'Jones & Co. · Defendant',
      'Relief',
      '• Damages\n• Costs',
    ]);
    for (const gone of [
      'pwned',
      'SCRIPT',
      'STYLE',
      'NOSCRIPT',
      'IFRAME',
      'TEMPLATE',
      'SVG',
      'http',
      'example.com',
      'x.png',
      'logo',
      'font-family',
    ]) {
      expect(doc.text).not.toContain(gone);
    }
  });

  it('the title is not repeated when the first heading says it', () => {
    expect(
      htmlToParagraphs(
        '<html><head><title>Order  of Dismissal</title></head><body><h1>Order of dismissal</h1><p>It is ordered.</p></body></html>',
      ),
    ).toEqual(['Order of dismissal', 'It is ordered.']);
    expect(htmlToParagraphs('<title>Re: Lease</title><p>Body.</p>', { title: false })).toEqual(['Body.']);
    // A fragment (an email body): no head, no body.
    expect(
      htmlToParagraphs('<div dir="ltr">Hi Ann,<br>the draft is attached.<div><br></div><div>Best,<br>Bob</div></div>'),
    ).toEqual(['Hi Ann,\nthe draft is attached.', 'Best,\nBob']);
  });

  it('a table used for layout gives its cells as paragraphs', () => {
    const html = `<table><tr><td><p>First paragraph of the letter.</p><p>Second paragraph of the letter.</p></td><td>Sidebar</td></tr></table>`;
    expect(htmlToParagraphs(html)).toEqual([
      'First paragraph of the letter.',
      'Second paragraph of the letter.',
      'Sidebar',
    ]);
  });

  it('decodes by BOM, <meta charset> or http-equiv; UTF-8 by default, Windows-1252 when it is not UTF-8', async () => {
    const cp1252 = (s: string) => Uint8Array.from(s, (c) => (c === 'é' ? 0xe9 : c === '€' ? 0x80 : c.charCodeAt(0)));
    const equiv = cp1252(
      '<html><head><meta http-equiv="Content-Type" content="text/html; charset=windows-1252"></head><body><p>Café €5</p></body></html>',
    );
    expect((await loadHtml(equiv)).text).toBe('Café €5');
    const meta = cp1252('<meta charset="iso-8859-1"><p>Café €5</p>');
    expect((await loadHtml(meta)).text).toBe('Café €5');
    expect((await loadHtml(cp1252('<p>Café €5</p>'))).text).toBe('Café €5');
    expect((await loadHtml(utf8('<p>Café €5</p>'))).text).toBe('Café €5');
    expect(
      (await loadHtml(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8('<meta charset="windows-1252"><p>Café</p>')]))).text,
    ).toBe('Café');
  });

  it('a page without text fails with a plain reason', async () => {
    const err = await failure(
      loadHtml(utf8('<html><head><script>x()</script></head><body><img src="a.png"></body></html>')),
    );
    expect(err.reason).toBe('the web page has no text');
  });
});

describe('Word 97-2003 (.doc)', () => {
  const DOC = path.join(corpusDir, 'freelaw-doctor/word-doc.doc');
  const docBytes = () => new Uint8Array(readFileSync(DOC));
  const fibAt = (b: Uint8Array) => {
    for (let s = 512; s + 1 < b.length; s += 512) if (b[s] === 0xec && b[s + 1] === 0xa5) return s;
    throw new Error('no FIB');
  };

  it.skipIf(!existsSync(DOC))('reads the body as paragraphs, then the footnotes', async () => {
    const doc = await loadWord97(docBytes());
    const paras = paragraphsOf(doc);
    expect(paras[0]).toBe('Attorneys for Appellant\tAttorneys for Appellee');
    expect(paras).toContain('No. 49S00-0308-DP-392');
    expect(doc.text).toContain(
      'The appellee/defendant Charles Barker seeks rehearing following our decision in State v. Barker',
    );
    expect(paras.at(-1)).toMatch(/^Baker's Brief of Appellee also asserted .* procedurally forfeited\.$/);
    expect(doc.index.pages.length).toBeGreaterThan(1);
    expect(doc.index.pages.every((p) => p.label === undefined)).toBe(true);
    expect(word97Flags(docBytes())! & 0x0100).toBe(0);
  });

  it.skipIf(!existsSync(DOC))('a file with the FIB fEncrypted flag is password protected', async () => {
    const bytes = docBytes();
    const flagsHigh = fibAt(bytes) + 0x0b;
    bytes[flagsHigh] = bytes[flagsHigh]! | 0x01;
    const err = await failure(loadWord97(bytes));
    expect(err.status).toBe('failed');
    expect(err.reason).toBe(WORD97_LOCKED_REASON);
  });

  it.skipIf(!existsSync(DOC))(
    'a cut-short .doc, or an Office file without a Word document inside, fails as damaged',
    async () => {
      const cut = await failure(loadWord97(docBytes().subarray(0, 4096)));
      expect(cut.reason).toMatch(
        /^damaged or unreadable Word 97-2003 \(\.doc\) file \(.+\) — save it as \.docx or PDF$/,
      );
      // Rename the WordDocument stream: a compound (OLE) file that is not a Word document.
      const other = docBytes();
      const name = Buffer.from('WordDocument', 'utf16le');
      const at = Buffer.from(other).indexOf(name);
      expect(at).toBeGreaterThan(0);
      other[at] = 'X'.charCodeAt(0);
      expect(word97Flags(other)).toBeNull();
      expect((await failure(loadWord97(other))).reason).toMatch(/^damaged or unreadable Word 97-2003 \(\.doc\) file/);
    },
  );

  it('bytes that are not an Office file fail as damaged', async () => {
    const err = await failure(loadWord97(utf8('{\\rtf1 not a doc}')));
    expect(err.reason).toBe(
      'damaged or unreadable Word 97-2003 (.doc) file (not an Office file) — save it as .docx or PDF',
    );
  });
});
