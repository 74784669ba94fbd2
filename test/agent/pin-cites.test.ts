/**
 * Citations say what a lawyer writes: a Bates-stamped page by its Bates number, a deposition by
 * "Smith Dep. 42:10–12" — in search results, in answers, on checked citations and in the chronology;
 * the documents list says a file's Bates range and that it is a transcript.
 */
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { citationPlace } from '../../src/shared/citation-text';
import { markedPdf, transcriptPdf } from '../fixtures/legal-pdfs';
import { ingestedCase } from '../helpers/case';
import { runCasefile } from '../helpers/cli';

describe('pin cites', () => {
  it('Bates numbers and transcript page:line in results, answers, citations and the chronology', async () => {
    const { call, caseId } = await ingestedCase('Acme v. Beta', {
      'production.pdf': await markedPdf(3, (p) => ({ footer: `ACME${String(100 + p).padStart(6, '0')} CONFIDENTIAL` })),
      'smith deposition.pdf': await transcriptPdf(3, 41),
    });

    const files = Object.fromEntries(
      (await call('files.list', { case_id: caseId })).files.map((f) => [f.name, f.versions.at(-1)!]),
    );
    expect(files['production.pdf']).toMatchObject({
      status: 'indexed',
      bates: { first: 'ACME000101', last: 'ACME000103' },
    });
    expect(files['smith deposition.pdf']).toMatchObject({
      status: 'indexed',
      transcript: { deponent: 'Smith', first_page: 41, last_page: 43 },
    });

    // A Bates number finds its page, and the result is cited by it.
    const stamp = (await call('search', { case_id: caseId, query: 'ACME000102', mode: 'keyword', k: 1 })).results[0]!;
    expect(stamp.file_name).toBe('production.pdf');
    expect(stamp.pages).toContain(2);
    expect(stamp.place).toMatch(/ACME000102/);

    // A Bates range finds the stamped pages in it, whatever the search mode.
    for (const query of ['ACME000102-ACME000103', 'ACME000102–03', 'acme000102 to acme000103']) {
      const range = await call('search', { case_id: caseId, query, mode: 'hybrid', k: 5 });
      expect(range.results.length, query).toBeGreaterThan(0);
      expect(
        range.results.every((r) => r.file_name === 'production.pdf' && /ACME00010[23]/.test(r.text)),
        query,
      ).toBe(true);
      expect(new Set(range.results.flatMap((r) => r.pages)), query).toContain(3);
    }

    // The deposition's passages are cited by page and line.
    const testimony = (
      await call('search', { case_id: caseId, query: 'sign the lease closing date Friday', mode: 'keyword', k: 1 })
    ).results[0]!;
    expect(testimony.file_name).toBe('smith deposition.pdf');
    expect(testimony.place).toMatch(/^Smith Dep\. 4[12]:\d+–4[23]:\d+$|^Smith Dep\. 42:\d+–\d+$/);

    // Find passages quotes the answer's lines and cites them as a lawyer would.
    const r = await call('chat.ask', {
      case_id: caseId,
      question: 'Did he sign the lease on behalf of the company before the closing date?',
      mode: 'extractive',
    });
    const cite = r.citations.find((c) => c.file_name === 'smith deposition.pdf')!;
    expect(cite.place).toMatch(/^Smith Dep\. 42:1[0-2](–1[0-2])?$/);
    expect(r.answer).toContain(`, ${cite.place}: “`);
    expect(citationPlace(cite)).toBe(`${cite.title || 'smith deposition.pdf'}, ${cite.place}`);

    // The Markdown and Word exports of the answer cite the lines the same way.
    const md = await call('chat.export', { case_id: caseId, session_id: r.session_id });
    expect(md.markdown).toContain(cite.place!);
    const word = await call('chat.export', { case_id: caseId, session_id: r.session_id, format: 'docx' });
    const footnotes = new TextDecoder().decode(
      unzipSync(Buffer.from(word.docx_base64!, 'base64'))['word/footnotes.xml']!,
    );
    expect(footnotes.replace(/<[^>]+>/g, '')).toContain(cite.place!);

    // The chronology cites the stamped pages by their Bates numbers.
    const events = (await call('tools.timeline', { case_id: caseId, file_name: 'production.pdf' })).events;
    expect(events.length).toBeGreaterThan(10);
    expect(new Set(events.map((e) => e.place))).toEqual(new Set(['ACME000101', 'ACME000102', 'ACME000103']));
  });

  it('the user corrects a document’s Bates prefix, or says it is not stamped; the pages are marked again without reading the file', async () => {
    const { home, call, caseId, close } = await ingestedCase('Acme v. Beta', {
      // One page of three stamped: too little for the detector to be sure.
      'letter.pdf': await markedPdf(3, (p) => ({ footer: p === 2 ? 'DEF0004410' : null })),
      'production.pdf': await markedPdf(2, (p) => ({ footer: `ACME${String(100 + p).padStart(6, '0')}` })),
    });
    const byName = async () =>
      Object.fromEntries((await call('files.list', { case_id: caseId })).files.map((f) => [f.name, f]));
    const before = await byName();
    expect(before['letter.pdf']!.versions[0]!.bates).toBeUndefined();
    const placeOn = async (fileName: string) =>
      (await call('search', { case_id: caseId, query: 'supplier shipped units', mode: 'keyword', k: 10 })).results
        .filter((r) => r.file_name === fileName)
        .map((r) => r.place);

    const fixed = await call('files.setBates', { case_id: caseId, file_id: before['letter.pdf']!.id, prefix: 'DEF' });
    expect(fixed.file.versions[0]!.bates).toEqual({ first: 'DEF0004410', last: 'DEF0004410' });
    expect(
      (await call('tools.timeline', { case_id: caseId, file_name: 'letter.pdf' })).events
        .filter((e) => e.pages[0] === 2)
        .every((e) => e.place === 'DEF0004410'),
    ).toBe(true);

    const none = await call('files.setBates', { case_id: caseId, file_id: before['production.pdf']!.id, prefix: null });
    expect(none.file.versions[0]!.bates).toBeUndefined();
    expect((await placeOn('production.pdf')).every((p) => p === undefined)).toBe(true);
    await expect(
      call('files.setBates', { case_id: caseId, file_id: before['production.pdf']!.id, prefix: 'XYZ' }),
    ).rejects.toThrow('No page of production.pdf has a Bates number starting XYZ in its header or footer.');
    await call('files.setBates', { case_id: caseId, file_id: before['production.pdf']!.id, prefix: 'ACME' });
    expect((await placeOn('production.pdf')).every((p) => /^ACME00010[12]/.test(p ?? ''))).toBe(true);
    // The CLI says the same.
    await close();
    const cli = await runCasefile(home, ['bates', 'Acme v. Beta', 'production.pdf', '--none', '--json']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ name: 'production.pdf', bates: null });
    const usage = await runCasefile(home, ['bates', 'Acme v. Beta', 'production.pdf']);
    expect(usage.code).toBe(2);
  });

  it('an exhibit is cited as one: "Exhibit 14, p. 2"', async () => {
    const { call, caseId } = await ingestedCase('Exhibits', {
      'Exhibit 14 - supply terms.pdf': await markedPdf(2, () => ({})),
    });
    const hit = (await call('search', { case_id: caseId, query: 'Body 2.5 supplier shipped', mode: 'keyword', k: 1 }))
      .results[0]!;
    expect(hit.place).toMatch(/^Exhibit 14, pp?\. /);
    const events = (await call('tools.timeline', { case_id: caseId })).events;
    expect(events.find((e) => e.pages[0] === 2)?.place).toBe('Exhibit 14, p. 2');
  });
});
