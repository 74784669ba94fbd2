import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { runCasefile } from '../helpers/cli';
import { corpusDir, tempHome } from '../helpers/home';

/** A document's outline and its sections through the real ingest of a CUAD contract (PDF) and a Common Paper template (DOCX). */
const PDF = path.join(
  corpusDir,
  'cuad/full_contract_pdf/Part_I/Supply/AgapeAtpCorp_20191202_10-KA_EX-10.1_11911128_EX-10.1_Supply Agreement.pdf',
);
const DOCX = path.join(
  corpusDir,
  'open-agreements/templates/common-paper-cc-by-4.0/common-paper-ai-addendum/template.docx',
);

let home: string;
let engine: Engine;
let caseId: string;
let pdfId: string;
let docxId: string;

beforeAll(async () => {
  home = tempHome('casefile-outline-');
  engine = await Engine.open({ home });
  caseId = (await engine.router.call('cases.create', { name: 'Agape supply' })).id;
  const run = await engine.router.call('ingest.start', { case_id: caseId, paths: [PDF, DOCX] });
  if (!('results' in run)) throw new Error('expected results');
  expect(run.results.map((r) => r.status)).toEqual(['indexed', 'indexed']);
  pdfId = run.results.find((r) => r.name.endsWith('.pdf'))!.file_id;
  docxId = run.results.find((r) => r.name.endsWith('.docx'))!.file_id;
});

afterAll(async () => {
  await engine.close();
});

describe('tools.outline and tools.readSection', () => {
  it('outline – the contract’s articles and sections in order, each with its pages and a citation of its heading', async () => {
    const o = await engine.router.call('tools.outline', { case_id: caseId, file_id: pdfId });
    const byNumber = new Map(o.sections.map((s) => [s.number, s]));
    expect(byNumber.get('1')).toMatchObject({ level: 1, title: 'TERMS OF AGREEMENT', pages: [2] });
    expect(byNumber.get('1.2')).toMatchObject({ level: 2, title: 'Term' });
    expect(byNumber.get('3.1')).toMatchObject({ title: 'Compliance with Local Laws and Regulations', pages: [3] });
    // Sections nest: 1.2 lies inside 1, and ends where 1.3 begins.
    const [one, term, renewal] = [byNumber.get('1')!, byNumber.get('1.2')!, byNumber.get('1.3')!];
    expect(term.start).toBeGreaterThan(one.start);
    expect(term.end).toBe(renewal.start);
    expect(one.end).toBe(byNumber.get('2')!.start);
    // The heading's citation resolves to the heading's own words.
    const c = term.citation;
    const { text } = await engine.router.call('files.read', { case_id: caseId, file_id: pdfId });
    expect(text.slice(c.start, c.end)).toMatch(/^1\.2\s+Term$/);
    // Defined terms, each cited where it is defined.
    expect(o.defined_terms?.length).toBeGreaterThan(0);
    for (const d of o.defined_terms!) {
      expect(text.slice(d.citation.start, d.citation.end)).toContain(d.term);
      expect(d.pages.length).toBeGreaterThan(0);
    }
  });

  it('readSection – by number, by title words and by id; an unknown section names what the outline holds', async () => {
    const byNumber = await engine.router.call('tools.readSection', { case_id: caseId, file_id: pdfId, section: '1.2' });
    expect(byNumber.text).toMatch(/^1\.2\s+Term\s+\S/);
    expect(byNumber.text).not.toMatch(/1\.3\s+Renewal/);
    expect(byNumber).toMatchObject({ section: { number: '1.2', title: 'Term' }, pages: [2] });
    const byTitle = await engine.router.call('tools.readSection', {
      case_id: caseId,
      file_id: pdfId,
      section: 'compliance with local laws',
    });
    expect(byTitle.section.number).toBe('3.1');
    const byId = await engine.router.call('tools.readSection', {
      case_id: caseId,
      file_id: pdfId,
      section: byTitle.section.id,
    });
    expect(byId.text).toBe(byTitle.text);
    await expect(
      engine.router.call('tools.readSection', { case_id: caseId, file_id: pdfId, section: '99.9' }),
    ).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/has no section "99\.9"; its outline starts: s1 /),
    });
  });

  it('search results say where they sit in their document: the section path and the document’s title', async () => {
    const res = await engine.router.call('search', {
      case_id: caseId,
      query: 'renewal of the agreement for a further term',
      mode: 'keyword',
      k: 10,
    });
    const renewal = res.results.find((r) => r.file_id === pdfId && r.section_path?.includes('1.3 Renewal'));
    expect(renewal).toMatchObject({
      section_path: ['1 TERMS OF AGREEMENT', '1.3 Renewal'],
      document_title: 'ODM - SUPPLY AGREEMENT',
    });
  });

  it('a DOCX – heading styles and run-in titles from the stored HTML', async () => {
    const o = await engine.router.call('tools.outline', { case_id: caseId, file_id: docxId });
    const titles = o.sections.map((s) => s.title);
    expect(titles).toEqual(
      expect.arrayContaining(['AI Services', 'Using AI Services', 'Restrictions', 'Model Training']),
    );
    const r = await engine.router.call('tools.readSection', {
      case_id: caseId,
      file_id: docxId,
      section: 'model training',
    });
    expect(r.text).toMatch(/^Model Training\./);
  });

  it('casefile outline – the headings as an indented list, one section’s text with --section, JSON as the operation returns it', async () => {
    await engine.close();
    const list = await runCasefile(home, ['outline', 'Agape supply', path.basename(PDF)]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^s\d+\s+1 TERMS OF AGREEMENT {2}\(p\. 2\)$/m);
    // Sections are indented under their article.
    const indent = (label: string) =>
      /^s\d+( +)/.exec(list.stdout.split('\n').find((l) => l.includes(label))!)![1]!.length;
    expect(indent('1.2 Term')).toBe(indent('1 TERMS OF AGREEMENT') + 2);
    const search = await runCasefile(home, ['search', 'Agape supply', 'renewal of the agreement', '--mode', 'keyword']);
    expect(search.stdout).toMatch(/^ {3}§ 1 TERMS OF AGREEMENT › 1\.3 Renewal$/m);
    const section = await runCasefile(home, ['outline', 'Agape supply', path.basename(PDF), '--section', '1.2']);
    expect(section.stdout).toMatch(/p\. 2:\n\n1\.2\s+Term/);
    const json = JSON.parse((await runCasefile(home, ['outline', 'Agape supply', pdfId, '--json'])).stdout) as {
      sections: { number: string }[];
    };
    expect(json.sections.map((s) => s.number)).toContain('1.2');
    const missing = await runCasefile(home, ['outline', 'Agape supply', 'nope.pdf']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No file "nope\.pdf" in case "Agape supply"/);
    engine = await Engine.open({ home });
  });
});
