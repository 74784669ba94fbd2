import { describe, expect, it } from 'vitest';
import { loadText } from '../../src/core/reader/loaders';
import { loadHtml } from '../../src/core/reader/formats/text-formats';
import { structureOf } from '../../src/core/text/structure';
import { detectOutline } from '../../src/core/text/outline';

const contract = [
  'SUPPLY AGREEMENT',
  'RECITALS',
  'a. The Manufacturer wishes to appoint the Customer.',
  'ARTICLE IV - TERM AND TERMINATION',
  '4.1 Term. This Agreement runs for five years.',
  '4.2 The Customer may renew it once.',
  'The Manufacturer shall supply the following:',
  '1. the products listed in Schedule A;',
  '2. spare parts.',
  '7.2 "Licensed Product" means any product sold under this Agreement.',
  'Exhibit B',
  'IN WITNESS WHEREOF, the parties have signed this Agreement.',
].join('\n');

describe('outline detection', () => {
  it('finds the title, articles, numbered and run-in sections, defined terms, exhibits and the signature block', () => {
    const outline = detectOutline(contract);
    expect(outline.map((h) => [h.kind, h.level, h.number, h.title])).toEqual([
      ['title', 1, '', 'SUPPLY AGREEMENT'],
      ['recitals', 1, '', 'RECITALS'],
      ['subsection', 3, 'a', ''],
      ['article', 1, 'IV', 'TERM AND TERMINATION'],
      ['section', 2, '4.1', 'Term'],
      ['subsection', 2, '4.2', ''],
      ['section', 2, '7.2', 'Licensed Product'],
      ['exhibit', 1, 'B', ''],
      ['signature', 1, '', 'IN WITNESS WHEREOF'],
    ]);
    // Exact ranges: each heading's range is its line in the text.
    const term = outline.find((h) => h.number === '4.1')!;
    expect(contract.slice(term.start, term.end)).toBe('4.1 Term. This Agreement runs for five years.');
  });

  it('leaves out footnotes, list items after a colon, running headers and page numbers', () => {
    const pages = [
      'Smith v. Jones 3',
      'I. BACKGROUND',
      'The facts follow.',
      '1 We cite the 2000 code, as amended.',
      '12',
    ];
    const text = [
      pages.join('\n'),
      'Smith v. Jones 4\nII. DISCUSSION\nMore.',
      'Smith v. Jones 5\nCONCLUSION\nAffirmed.',
    ].join('\n\n');
    const starts = [0, text.indexOf('Smith v. Jones 4'), text.indexOf('Smith v. Jones 5')];
    const outline = detectOutline(text, starts);
    expect(outline.map((h) => [h.number || h.title, h.page])).toEqual([
      ['I', 1],
      ['II', 2],
      ['CONCLUSION', 3],
    ]);
  });

  it('a DOCX: heading styles and bold run-in titles from its HTML (Word list numbers are not in the text)', () => {
    const text =
      'Definitions\n\nConfidentiality.  Each party keeps the other’s secrets.\n\nTerm\n\nThe term is one year.\n\nSafeguards.  Provider will protect the data.\n\nProvider will not subcontract.  Ever.';
    const html =
      '<h1>Definitions</h1><p><strong>Confidentiality.</strong> Each party keeps the other’s secrets.</p><table><tr><td><p><strong>Term</strong></p></td></tr></table><p>The term is one year.</p>' +
      '<ol><li>Safeguards.  Provider will protect the data.<ol><li>Provider will not subcontract.  Ever.</li></ol></li></ol>';
    expect(detectOutline(text, [0], html).map((h) => [h.level, h.title, text.slice(h.start, h.start + 10)])).toEqual([
      [1, 'Definitions', 'Definition'],
      [2, 'Confidentiality', 'Confidenti'],
      [2, 'Safeguards', 'Safeguards'],
    ]);
  });
});

describe('headings of web pages and Markdown', () => {
  it('a saved page’s <h1>–<h6> and a Markdown file’s # lines are the outline', async () => {
    const page = await loadHtml(
      Buffer.from(
        '<html><head><title>Memo</title></head><body><h1>Settlement memo</h1><p>Intro.</p><h2>Background</h2><p>The tenant moved in during 2019.</p><h2>Damages &amp; costs</h2><p>Water damage.</p></body></html>',
      ),
    );
    expect(structureOf(page.text, page.index, 'memo.html', page.html).sections.map((s) => [s.level, s.title])).toEqual([
      [1, 'Settlement memo'],
      [2, 'Background'],
      [2, 'Damages & costs'],
    ]);
    const md = loadText(
      Buffer.from(
        '# Settlement memo\n\nIntro text about the case.\n\n## Background\n\nThe tenant moved in during 2019.\n\n### Water damage ##\n\nOf $12,500.\n',
      ),
    );
    expect(structureOf(md.text, md.index, 'memo.md').sections.map((s) => [s.level, s.title])).toEqual([
      [1, 'Settlement memo'],
      [2, 'Background'],
      [3, 'Water damage'],
    ]);
  });
});
