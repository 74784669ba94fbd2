import { DOMParser } from '@xmldom/xmldom';
import JSZip from 'jszip';
import mammoth from 'mammoth';
import { describe, expect, it } from 'vitest';
import { exportChat, exportMarkdown } from '../../src/core/agent/export';
import type { SessionFile } from '../../src/core/agent/sessions';
import type { ChatMessage, CheckedCitation } from '../../src/shared/contract/chat';

/** Chat export with the real `docx` library: Markdown footnotes, Word footnotes, one turn. */
const NOW = new Date('2026-11-05T14:03:00Z');
const QUOTE = 'Either party may terminate this Agreement upon sixty (60) days’ prior written notice.';

const supported: CheckedCitation = {
  id: 'c1',
  status: 'verified',
  verified: true,
  support: 'supported',
  reason: 'the sentence’s facts are in the passage',
  file_id: 'f1',
  file_name: 'contracts/cardlytics.pdf',
  version: 1,
  pages: [12, 13],
  span: { start: 100, end: 190, pages: [12], text: QUOTE.replace(' upon', '\n   upon') },
  title: 'Cardlytics Maintenance Agreement',
};
const notSupported: CheckedCitation = {
  id: 'c2',
  status: 'not_verified',
  verified: false,
  support: 'not_supported',
  reason: '$2,000,000 is not in the cited passage (it says $1,000,000)',
  file_id: 'f2',
  file_name: 'contracts/msa.txt',
  version: 2,
  pages: [4],
  span: { start: 10, end: 60, pages: [4], text: 'Liability is capped at $1,000,000 in the aggregate.' },
  title: 'Master Services Agreement',
};
const invented: CheckedCitation = {
  id: 'made01',
  status: 'invented',
  verified: false,
  support: 'invented',
  reason: 'invented: no tool returned this citation id in this conversation',
};
/** Saved before claim-level support: no support, span or title. */
const oldStyle: CheckedCitation = {
  id: 'c9',
  status: 'verified',
  verified: true,
  reason: 'quoted text found in the source',
  file_id: 'f3',
  file_name: 'letters/notice.txt',
  version: 1,
  pages: [3],
};

function msg(m: Partial<ChatMessage> & Pick<ChatMessage, 'role' | 'content' | 'turn_id'>): ChatMessage {
  return { id: `${m.role}-${m.turn_id}`, created: NOW.toISOString(), ...m };
}

function session(): SessionFile {
  return {
    schemaVersion: 1,
    id: 's_test',
    caseId: 'case1',
    title: 'Termination / notice ✉️',
    created: NOW.toISOString(),
    updated: NOW.toISOString(),
    ledger: [],
    messages: [
      msg({ role: 'user', turn_id: 't1', content: 'What notice ends the Cardlytics agreement?' }),
      msg({
        role: 'assistant',
        turn_id: 't1',
        status: 'done',
        grounded: false,
        answer_kind: 'agent',
        content:
          'Either party needs sixty days’ prior written notice [cite:c1].\n\n- The cap is $2,000,000 [cite:c2].\n- Ninety days applies [cite:made01, c1].\nA bell \u0007 in the text.',
        citations: [supported, notSupported, invented],
        coverage: { note: 'Looked at 2 files.' } as ChatMessage['coverage'],
      }),
      msg({ role: 'user', turn_id: 't2', content: 'Who sent the notice letter?' }),
      msg({
        role: 'assistant',
        turn_id: 't2',
        status: 'done',
        grounded: true,
        answer_kind: 'extractive',
        fallback: { reason: 'the model repeated itself', model_answer: 'the the the' },
        content: '“Notice is hereby given” [cite:c9]',
        citations: [oldStyle],
      }),
    ],
  };
}

async function docxParts(base64: string): Promise<{ document: string; footnotes: string }> {
  const zip = await JSZip.loadAsync(Buffer.from(base64, 'base64'));
  const document = await zip.file('word/document.xml')!.async('string');
  const footnotes = await zip.file('word/footnotes.xml')!.async('string');
  // Well-formed XML, or Word refuses the file (the bell character must not reach it).
  for (const xml of [document, footnotes]) {
    const errors: string[] = [];
    new DOMParser({
      errorHandler: { error: (e) => errors.push(e), fatalError: (e) => errors.push(e) },
    }).parseFromString(xml, 'text/xml');
    expect(errors).toEqual([]);
  }
  return { document, footnotes };
}

/** The text of an XML part (w:t contents), entities decoded. */
function textOf(xml: string): string {
  return [...xml.matchAll(/<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>/g)]
    .map((m) =>
      m[1]!
        .replace(/&amp;/g, '&')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'"),
    )
    .join('');
}

describe('chat export – Markdown', () => {
  const md = exportMarkdown(session(), 'Rivera v. Acme', { now: NOW });

  it('cite markers become footnote references, numbered by first appearance, continuing across answers', () => {
    expect(md).not.toContain('[cite:');
    expect(md).toContain('Either party needs sixty days’ prior written notice[^1].');
    expect(md).toContain('- The cap is $2,000,000[^2].');
    expect(md).toContain('- Ninety days applies[^3][^1].');
    expect(md).toContain('“Notice is hereby given”[^4]');
  });

  it('footnote definitions: place, the supporting words, the verdict in the shared words, the reason where not green', () => {
    expect(md).toContain(`[^1]: Cardlytics Maintenance Agreement, p. 12: “${QUOTE}” — Supported`);
    expect(md).toContain(
      '[^2]: Master Services Agreement, p. 4: “Liability is capped at $1,000,000 in the aggregate.” — Not supported: $2,000,000 is not in the cited passage (it says $1,000,000)',
    );
    expect(md).toContain(
      '[^3]: Unknown source (id made01) — Invented: no tool returned this citation id in this conversation',
    );
    // An old session's citation: the verdict from its status, the place from file name and pages.
    expect(md).toContain('[^4]: letters/notice.txt, p. 3 — Quoted');
    expect(md.match(/^\[\^1\]:/gm)).toHaveLength(1);
  });

  it('the head: title, case, date, the questions; the answer notes', () => {
    expect(md).toMatch(
      /^# Termination \/ notice ✉️\n\nCase: Rivera v\. Acme {2}\nSession: s_test {2}\nExported: 2026-11-05 14:03 UTC/,
    );
    expect(md).toContain('Questions:\n\n1. What notice ends the Cardlytics agreement?\n2. Who sent the notice letter?');
    expect(md).toContain('## Question\n\nWhat notice ends the Cardlytics agreement?');
    expect(md).toContain('> Ungrounded: some statements of this answer are not supported by the passages they cite.');
    expect(md).toContain('_Passages found without a model');
    expect(md).toContain('_The model’s own answer was not used: the model repeated itself._');
    expect(md).toContain('_Coverage: Looked at 2 files._');
    // The extractive answer is not an agent answer: no Ungrounded note for it.
    expect(md.match(/Ungrounded/g)).toHaveLength(1);
  });

  it('an agent answer with no green citation: the old "Ungrounded" note', () => {
    const s = session();
    s.messages[1]!.citations = [notSupported, invented];
    expect(exportMarkdown(s, 'X', { now: NOW })).toContain(
      '> Ungrounded: no citation of this answer could be verified.',
    );
  });

  it('a cancelled answer: its markers are footnotes that say they were not checked; no Ungrounded note', () => {
    const s = session();
    Object.assign(s.messages[1]!, { status: 'cancelled', citations: [], content: 'Sixty days [cite:c1]' });
    const md = exportMarkdown(s, 'X', { now: NOW, turnId: 't1' });
    expect(md).toContain('### Answer (cancelled)\n\nSixty days[^1]');
    expect(md).toContain('[^1]: Unknown source (id c1) — Not checked: the answer was not finished');
    expect(md).not.toContain('Ungrounded');
  });
});

describe('chat export – Word', () => {
  it('each citation a Word footnote; the answer as paragraphs with footnote references; no raw markers', async () => {
    const r = await exportChat(session(), { caseName: 'Rivera v. Acme', format: 'docx', now: NOW });
    expect(r.format).toBe('docx');
    expect(r.filename).toBe('Termination notice.docx');
    expect(r.markdown).toContain('[^1]:');
    const { document, footnotes } = await docxParts(r.docx_base64!);

    const notes = textOf(footnotes);
    expect(notes).toContain(`Cardlytics Maintenance Agreement, p. 12: “${QUOTE}” — Supported`);
    expect(notes).toContain(
      'Master Services Agreement, p. 4: “Liability is capped at $1,000,000 in the aggregate.” — Not supported: $2,000,000 is not in the cited passage',
    );
    expect(notes).toContain('Unknown source (id made01) — Invented');
    expect(notes).toContain('letters/notice.txt, p. 3 — Quoted');
    for (const id of [1, 2, 3, 4]) expect(footnotes).toMatch(new RegExp(`<w:footnote [^>]*w:id="${id}"`));

    const body = textOf(document);
    expect(document).not.toContain('[cite:');
    expect(body).not.toContain('[cite:');
    expect(document.match(/<w:footnoteReference w:id="\d+"\/>/g)).toEqual(
      ['1', '2', '3', '1', '4'].map((n) => `<w:footnoteReference w:id="${n}"/>`),
    );
    expect(body).toContain('Termination / notice ✉️');
    expect(body).toContain('Case: Rivera v. Acme');
    expect(body).toContain('Exported: 2026-11-05 14:03 UTC');
    expect(body).toContain('1. What notice ends the Cardlytics agreement?');
    expect(body).toContain('Either party needs sixty days’ prior written notice');
    expect(body).toContain('Passages found without a model');
    expect(body).toContain('Ungrounded: some statements');
    // "- " lines are bullets (a numbering reference), without the dash.
    expect(body).toContain('The cap is $2,000,000');
    expect(body).not.toContain('- The cap');
    expect(document).toMatch(/<w:numPr>/);
    expect(body).toContain('A bell  in the text.');

    // Another Word reader (mammoth, which ingest uses) sees the footnotes and the bullet list.
    const html = (await mammoth.convertToHtml({ buffer: Buffer.from(r.docx_base64!, 'base64') })).value;
    expect(html).toContain('<sup><a href="#footnote-1" id="footnote-ref-1">[1]</a></sup>');
    expect(html).toMatch(/<li id="footnote-2"><p>Master Services Agreement, p\. 4: “Liability is capped/);
    expect(html).toMatch(/<ul><li>The cap is \$2,000,000<sup>/);
  });

  it('turnId – only that turn; its footnotes start at 1; an unknown turn is not_found', async () => {
    const r = await exportChat(session(), { caseName: 'Rivera v. Acme', format: 'docx', turnId: 't2', now: NOW });
    // Its heading is the question, whole, and is not repeated as a "Question:" line under it.
    expect(r.markdown).toMatch(/^# Who sent the notice letter\?\n/);
    expect(r.markdown).not.toContain('Question: Who sent');
    expect(r.markdown).not.toContain('Cardlytics');
    expect(r.markdown).toContain('[^1]: letters/notice.txt, p. 3 — Quoted');
    const { document, footnotes } = await docxParts(r.docx_base64!);
    expect(textOf(document)).not.toContain('What notice ends');
    expect(textOf(document)).toContain('Who sent the notice letter?');
    expect(textOf(footnotes)).toContain('letters/notice.txt, p. 3 — Quoted');
    expect(textOf(footnotes)).not.toContain('Cardlytics');

    const md = await exportChat(session(), { caseName: 'X', turnId: 't1', now: NOW });
    // One question exported: named after it, whole.
    expect(md).toMatchObject({ format: 'md', filename: 'What notice ends the Cardlytics agreement.md' });
    expect(md.docx_base64).toBeUndefined();
    expect(md.markdown).not.toContain('Who sent');

    await expect(exportChat(session(), { caseName: 'X', turnId: 'nope', now: NOW })).rejects.toMatchObject({
      code: 'not_found',
      message: expect.stringMatching(/No question nope in the chat session s_test/),
    });
  });
});

describe('chat export – long questions', () => {
  const LONG =
    'What is the governing law of the Water Now distributor agreement with Hydraspin, and which courts hear disputes under it?';
  const long = (): SessionFile => ({
    ...session(),
    title: `${LONG.slice(0, 79)}…`,
    messages: [msg({ role: 'user', turn_id: 't1', content: LONG }), session().messages[1]!],
  });

  it('the heading is the whole question; the file name whole words, safe characters, no "…"', async () => {
    const r = await exportChat(long(), { caseName: 'Water Now', format: 'docx', turnId: 't1', now: NOW });
    expect(r.markdown.split('\n')[0]).toBe(`# ${LONG}`);
    expect(r.markdown).not.toContain('…');
    expect(r.filename).toBe('What is the governing law of the Water Now distributor agreement with Hydraspin.docx');
    const { document } = await docxParts(r.docx_base64!);
    expect(textOf(document)).toContain(LONG);
    // The whole chat: its title was cut, so the heading is its first question, whole.
    const all = await exportChat(long(), { caseName: 'Water Now', now: NOW });
    expect(all.markdown.split('\n')[0]).toBe(`# ${LONG}`);
    expect(all.filename).not.toMatch(/…|agre\.md$/);
    expect(all.filename.length).toBeLessThanOrEqual(80 + '.md'.length);
  });
});
