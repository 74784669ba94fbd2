/**
 * A redlined Word file: its tracked changes and comments are read from the package and appended to
 * the document as a final section ("Tracked changes and comments"), searchable and citable, while
 * the body stays the text mammoth reads (every change accepted). Samples are built here, by hand.
 */
import { DOMParser } from '@xmldom/xmldom';
import { strToU8, zipSync } from 'fflate';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import {
  annotationsAppendix,
  annotationsSummary,
  readDocxAnnotations,
  type DocxAnnotation,
} from '../../src/core/reader/formats/docx-annotations';
import { loadDocx } from '../../src/core/reader/loaders';
import { sectionsOf } from '../../src/core/text/outline';
import { parseFile } from '../../src/core/reader/parse';
import { highlightDocxSpan, sanitizeDocxHtml, type DomLike } from '../../src/renderer/src/lib/docx-html';

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>';

/** A minimal .docx: `body` goes inside <w:body>; `comments` is word/comments.xml (linked from the document unless `linked` is false). */
function docx(body: string, comments?: string, linked = true): Uint8Array {
  const rel = (id: string, type: string, target: string) =>
    `<Relationship Id="${id}" Type="${REL}/${type}" Target="${target}"/>`;
  const rels = (inner: string) =>
    strToU8(
      `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${inner}</Relationships>`,
    );
  return zipSync({
    '[Content_Types].xml': strToU8(
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    ),
    '_rels/.rels': rels(rel('rId1', 'officeDocument', 'word/document.xml')),
    'word/document.xml': strToU8(
      `${XML}<w:document xmlns:w="${W}" xmlns:r="${REL}"><w:body>${body}</w:body></w:document>`,
    ),
    'word/_rels/document.xml.rels': rels(
      comments !== undefined && linked ? rel('rId2', 'comments', 'comments.xml') : '',
    ),
    ...(comments !== undefined ? { 'word/comments.xml': strToU8(comments) } : {}),
  });
}

const run = (text: string) => `<w:r><w:t xml:space="preserve">${text}</w:t></w:r>`;
const change = (tag: string, author: string, date: string, ...runs: string[]) =>
  `<w:${tag} w:id="${Math.floor(Math.random() * 1e6)}" w:author="${author}" w:date="${date}T09:30:00Z">${runs.join('')}</w:${tag}>`;
const deletedRun = (text: string) => `<w:r><w:delText xml:space="preserve">${text}</w:delText></w:r>`;
const OC = 'Opposing Counsel';

const BODY = [
  `<w:p>${run('SERVICES AGREEMENT')}</w:p>`,
  // A comment on "notice period", a replacement (deletion + insertion) in the same sentence.
  `<w:p>${run('The ')}<w:commentRangeStart w:id="0"/>${run('notice period')}<w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r>${run(' is ')}${change('del', OC, '2024-05-02', deletedRun('thirty (30)'))}${change('ins', OC, '2024-05-02', run('ninety (90)'))}${run(' days. Either party may extend it once.')}</w:p>`,
  // Two insertion elements of one author side by side read as one; one deletion element of two runs is one.
  `<w:p>${run('Payment is due ')}${change('ins', 'J. Smith', '2024-05-04', run('within fifteen '))}${change('ins', 'J. Smith', '2024-05-04', run('days '))}${run('of invoice.')}${change('del', OC, '2024-05-02', deletedRun(' Late payments bear'), deletedRun(' interest &amp; costs.'))}</w:p>`,
  // A moved paragraph: a deletion where it was, an insertion where it went.
  `<w:p>${change('moveFrom', OC, '2024-05-02', run('Governing law: Delaware.'))}</w:p>`,
  `<w:p>${run('Signed by the parties.')}</w:p>`,
  `<w:p>${change('moveTo', OC, '2024-05-02', run('Governing law: Delaware.'))}</w:p>`,
].join('');

const COMMENTS = `${XML}<w:comments xmlns:w="${W}"><w:comment w:id="0" w:author="Partner" w:date="2024-05-03T11:00:00Z" w:initials="P"><w:p>${run('Push back on this.')}</w:p><w:p>${run('Thirty is market.')}</w:p></w:comment></w:comments>`;

const REDLINE = docx(BODY, COMMENTS);
const PLAIN = docx(
  `<w:p>${run('SERVICES AGREEMENT')}</w:p><w:p>${run('The notice period is ninety (90) days.')}</w:p>`,
);

/** What loadDocx read before annotations: mammoth's raw text, one blank line between paragraphs. */
async function mammothText(bytes: Uint8Array): Promise<{ text: string; html: string }> {
  const buffer = Buffer.from(bytes);
  const raw = (await mammoth.extractRawText({ buffer })).value;
  return {
    text: raw
      .replace(/\r\n?/g, '\n')
      .replace(/\n{3,}/g, '\n\n')
      .replace(/\s+$/, ''),
    html: (await mammoth.convertToHtml({ buffer })).value,
  };
}

describe('DOCX tracked changes and comments', () => {
  it('reads insertions, deletions, moves and comments in document order', async () => {
    const a = await readDocxAnnotations(REDLINE);
    expect(a.map((x) => [x.type, x.author, x.date, x.text])).toEqual([
      ['comment', 'Partner', '2024-05-03', 'Push back on this. Thirty is market.'],
      ['deletion', OC, '2024-05-02', 'thirty (30)'],
      ['insertion', OC, '2024-05-02', 'ninety (90)'],
      ['insertion', 'J. Smith', '2024-05-04', 'within fifteen days'],
      ['deletion', OC, '2024-05-02', 'Late payments bear interest & costs.'],
      ['deletion', OC, '2024-05-02', 'Governing law: Delaware.'],
      ['insertion', OC, '2024-05-02', 'Governing law: Delaware.'],
    ]);
    expect(a[0]!.anchor).toBe('notice period');
    // A change's anchor: its sentence as the document reads now.
    expect(a[1]!.anchor).toBe('The notice period is ninety (90) days.');
    expect(a[3]!.anchor).toBe('Payment is due within fifteen days of invoice.');
    expect(a[5]!.anchor).toBe(''); // the paragraph it was in reads empty now
    expect(annotationsSummary(a)).toBe('5 tracked changes by Opposing Counsel and 1 by J. Smith, 1 comment');
  });

  it('the body reads as mammoth reads it; the changes and comments follow as a final section', async () => {
    const doc = await loadDocx(REDLINE);
    const before = await mammothText(REDLINE);
    const heading = '\n\nTracked changes and comments\n\n';
    const at = doc.text.indexOf(heading);
    expect(doc.text.slice(0, at)).toBe(before.text);
    expect(before.text).toContain('The notice period is ninety (90) days.');
    expect(before.text).not.toContain('thirty');
    const appendix = doc.text.slice(at + heading.length).split('\n\n');
    expect(appendix).toEqual([
      'Comment by Partner on 2024-05-03 on "notice period": "Push back on this. Thirty is market."',
      'Deleted by Opposing Counsel on 2024-05-02: "thirty (30)" — in: "The notice period is ninety (90) days."',
      'Inserted by Opposing Counsel on 2024-05-02: "ninety (90)" — in: "The notice period is ninety (90) days."',
      'Inserted by J. Smith on 2024-05-04: "within fifteen days" — in: "Payment is due within fifteen days of invoice."',
      'Deleted by Opposing Counsel on 2024-05-02: "Late payments bear interest & costs." — in: "Payment is due within fifteen days of invoice."',
      'Deleted by Opposing Counsel on 2024-05-02: "Governing law: Delaware."',
      'Inserted by Opposing Counsel on 2024-05-02: "Governing law: Delaware." — in: "Governing law: Delaware."',
    ]);
    expect(doc.annotations).toEqual({
      summary: '5 tracked changes by Opposing Counsel and 1 by J. Smith, 1 comment',
      count: { insertions: 3, deletions: 3, comments: 1 },
    });
    // Every appendix paragraph is a paragraph of the index, and the last page ends with it.
    const paras = doc.index.paragraphs!.map(([s, e]) => doc.text.slice(s, e));
    expect(paras.slice(-8)).toEqual(['Tracked changes and comments', ...appendix]);
    expect(doc.index.pages[doc.index.pages.length - 1]!.end).toBe(doc.text.length);
    expect(doc.html!.startsWith(before.html)).toBe(true);
    expect(doc.html).toContain('<del>thirty (30)</del>');
    expect(doc.html).toContain('<del>Late payments bear interest &amp; costs.</del>');
  });

  it('the appended HTML holds the same paragraphs: a cited span maps onto it, and it is a heading of the outline', async () => {
    const doc = await loadDocx(REDLINE);
    const body = new DOMParser({ errorHandler: () => undefined })
      .parseFromString(`<!DOCTYPE html><html><body>${doc.html}</body></html>`, 'text/html')
      .getElementsByTagName('body')[0];
    const nodes = sanitizeDocxHtml(body as unknown as DomLike);
    for (const words of ['thirty (30)', 'Late payments bear interest & costs.', 'Push back on this.']) {
      const start = doc.text.lastIndexOf(words);
      const marked = highlightDocxSpan(nodes, doc.text, start, start + words.length);
      expect(marked?.markedText).toBe(words);
    }
    const sections = sectionsOf(
      doc.text,
      doc.index.pages.map((p) => p.start),
      doc.html,
    );
    const last = sections[sections.length - 1]!;
    expect(last.title).toBe('Tracked changes and comments');
    expect(last.start).toBe(doc.text.indexOf('Tracked changes and comments'));
  });

  it('a file without changes or comments reads exactly as before', async () => {
    const doc = await loadDocx(PLAIN);
    const before = await mammothText(PLAIN);
    expect(doc.text).toBe(before.text);
    expect(doc.html).toBe(before.html);
    expect(doc.annotations).toBeUndefined();
    expect(await readDocxAnnotations(PLAIN)).toEqual([]);
    expect(annotationsAppendix([])).toBeNull();
    expect(annotationsSummary([])).toBe('');
  });

  it('a damaged comments part or a broken package costs the comments, never the document', async () => {
    // comments.xml that is not XML at all: the changes are still read. (mammoth itself refuses such a
    // file — it reads word/comments.xml, linked or not — so loadDocx fails on it as it always did.)
    const garbage = await readDocxAnnotations(docx(BODY, '\u0000<<w:comments garbage', false));
    expect(garbage.map((x) => x.type)).toEqual([
      'deletion',
      'insertion',
      'insertion',
      'deletion',
      'deletion',
      'insertion',
    ]);
    // Well-formed but wrong: a comment without an id or text, another vocabulary, a range to no comment.
    const odd = docx(
      BODY,
      `${XML}<w:comments xmlns:w="${W}"><w:comment w:author="X"/><foo xmlns="urn:x"><w:comment w:id="0"/></foo></w:comments>`,
    );
    expect((await loadDocx(odd)).annotations?.summary).toBe('5 tracked changes by Opposing Counsel and 1 by J. Smith');
    // Not a package at all, or one without a document: nothing, and no throw.
    expect(await readDocxAnnotations(new Uint8Array([1, 2, 3]))).toEqual([]);
    expect(await readDocxAnnotations(zipSync({ 'word/comments.xml': strToU8(COMMENTS) }))).toEqual([]);
  });

  it('a change in a long sentence is anchored on a window of about 200 characters around it', async () => {
    const long =
      'the Supplier shall deliver the goods described in the schedule to the premises of the Customer '.repeat(4);
    const a = await readDocxAnnotations(
      docx(
        `<w:p>${run(`Under this clause ${long}`)}${change('del', OC, '2024-05-02', deletedRun('promptly and'))}${run(` ${long}without delay.`)}</w:p>`,
      ),
    );
    expect(a).toHaveLength(1);
    expect(a[0]!.anchor.length).toBeLessThanOrEqual(204);
    expect(a[0]!.anchor).toMatch(/^… .*premises of the Customer +the Supplier.* …$/);
  });

  it('the summary groups the changes by author, most first', () => {
    const x = (type: DocxAnnotation['type'], author: string): DocxAnnotation => ({
      type,
      author,
      date: '',
      text: 'w',
      anchor: '',
    });
    expect(
      annotationsSummary([
        x('insertion', 'A'),
        x('comment', 'P'),
        x('deletion', 'B'),
        x('deletion', 'B'),
        x('insertion', 'C'),
      ]),
    ).toBe('2 tracked changes by B, 1 by A and 1 by C, 1 comment');
    expect(annotationsSummary([x('insertion', ''), x('comment', 'P'), x('comment', 'Q')])).toBe(
      '1 tracked change, 2 comments',
    );
    expect(annotationsAppendix([x('comment', '')])!.text).toBe('Tracked changes and comments\n\nComment: "w"');
  });

  it('parses through parseFile: the whole document is indexed', async () => {
    const out = await parseFile({ bytes: REDLINE, name: 'redline.docx', maxBytes: 50 * 1024 * 1024 });
    expect(out.status).toBe('indexed');
    expect(out.kind).toBe('docx');
    expect(out.doc!.text).toContain('Deleted by Opposing Counsel on 2024-05-02: "thirty (30)"');
    expect(out.doc!.text).toContain('Push back on this.');
    expect(out.doc!.annotations?.summary).toBe('5 tracked changes by Opposing Counsel and 1 by J. Smith, 1 comment');
  });
});
