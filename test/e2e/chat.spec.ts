import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import JSZip from 'jszip';
import path from 'node:path';
import { citationPlace, quoteWithCitation } from '../../src/shared/citation-text';
import type { ChatSession, CheckedCitation } from '../../src/shared/contract/chat';
import type { PageImage } from '../../src/shared/contract/viewer';
import { hasPoppler, popplerWords } from '../helpers/poppler';
import { CORPUS } from './corpus';
import type { Locator } from '@playwright/test';
import { corpusDir, expect, screenshot, test, type AppFixture } from './fixtures';
import { recordTexts } from './record';

const scripts = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-scripts-'));

/** A scripted-model script (test/agent fixtures format) written to a temp file; returns its path. */
function writeScript(name: string, script: object): string {
  const file = path.join(scripts, name);
  writeFileSync(file, JSON.stringify(script));
  return file;
}

/** findFiles → retrieve → an answer citing the first passage, plus one invented cite id. */
const answerScript = writeScript('answer.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    {
      thought: 'Search for the term and renewal clause.',
      action: 'retrieve',
      action_input: { query: 'term one year renew automatically termination' },
    },
    { final: 'The agreement runs for one year and renews automatically [cite:{{cite}}]. Another claim [cite:zz9zz9].' },
  ],
  chunkChars: 12,
  delayMs: 5,
});

/** Streams slowly, so the turn is still running when the user cancels it. */
const slowScript = writeScript('slow.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    { thought: 'Now I search. '.repeat(200), action: 'retrieve', action_input: { query: 'termination' } },
  ],
  chunkChars: 4,
  delayMs: 40,
});

/** An answer that streams slowly, with one citation quoting its passage and one whose quote is not in its passage. */
const streamScript = writeScript('stream.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    {
      thought: 'Search for the term.',
      action: 'retrieve',
      action_input: { query: 'term one year renew automatically termination' },
    },
    {
      thought: 'The clause answers it; I quote it.',
      final:
        'The agreement sets out its term: "{{quote}}" [cite:{{cite}}]. ' +
        'It also says "the moon is made of green cheese" [cite:{{cite:2}}]. ' +
        'Nothing else in the results bears on the question.',
    },
  ],
  chunkChars: 3,
  delayMs: 25,
});

/** The model's answer cites nothing that supports it: it is replaced by the best passages, and the app says why. */
const unsupportedScript = writeScript('unsupported.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    {
      thought: 'Search for the term.',
      action: 'retrieve',
      action_input: { query: 'term one year renew automatically termination' },
    },
    {
      thought: 'I will answer from memory.',
      final: 'The agreement lasts ninety-nine years and is governed by lunar law [cite:{{cite}}].',
    },
  ],
  chunkChars: 4,
  delayMs: 10,
});

/** grepCase finds an exact phrase in a DOCX; the answer cites that match (a span of a few words). */
const docxScript = writeScript('docx.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    {
      thought: 'Find the exact wording in the decision.',
      action: 'grepCase',
      action_input: { pattern: 'did not support him' },
    },
    { final: 'The Applicant says his command did not support him [cite:{{cite}}].' },
  ],
  chunkChars: 16,
  delayMs: 2,
});

/** Type a question in the chat and send it with Enter, as a user does. */
async function ask(chat: Locator, question: string): Promise<void> {
  const box = chat.getByRole('textbox', { name: 'Question' });
  await box.fill(question);
  await box.press('Enter');
}

async function caseWithContract(app: AppFixture): Promise<string> {
  const { id } = await app.op<{ id: string }>('cases.create', { name: 'Equidata affiliate' });
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-chat-')), 'docs');
  mkdirSync(dir);
  copyFileSync(path.join(corpusDir, CORPUS.steelVault), path.join(dir, 'affiliate-agreement.pdf'));
  await app.op('ingest.start', { case_id: id, paths: [dir], wait: true });
  await app.page.reload();
  await app.page
    .getByRole('navigation', { name: 'Cases' })
    .getByRole('button', { name: /Equidata affiliate/ })
    .click();
  return id;
}

test.describe('chat', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('ask: live timeline, verified and invented chips, chip opens the page with boxes on the cited words', async ({
    app,
  }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    await ask(chat, 'How long does the agreement run?');

    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    // The timeline reads in plain words: the documents listed, the search with its passages and best label, the answer.
    const timeline = answer.locator('details.timeline');
    await timeline.locator(':scope > summary').click();
    const steps = timeline.getByRole('list', { name: 'Agent steps' }).locator(':scope > li');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0).locator('.step-text')).toHaveText(/^Listed the (one document|\d+ documents)$/);
    await expect(steps.nth(1).locator('.step-text')).toHaveText(
      /^Searched ‘term one year renew automatically termination’( in .+)? — \d+ passages?, best (strong|good|partial|weak|none|marginal|noise)$/,
    );
    await expect(steps.nth(2).locator('.step-text')).toHaveText('Answered');
    // Every line's own time, in seconds.
    for (let i = 0; i < 3; i++) await expect(steps.nth(i).locator('.step-time')).toHaveText(/^\d+\.\d s$/);
    // Tool names, inputs and what the tool returned are behind each step's Details, closed at first.
    const details = steps.nth(1).locator('details.step-details');
    await expect(details.locator('.step-raw')).toBeHidden();
    await details.locator(':scope > summary').click();
    await expect(details.locator('.step-raw')).toBeVisible();
    await expect(details.locator('.step-action')).toHaveText('retrieve');
    await expect(details).toContainText('Search for the term and renewal clause.');
    await expect(details.locator('.step-input')).toContainText(
      '"query":"term one year renew automatically termination"',
    );
    await expect(details.locator('.step-observation')).toContainText('[cite:');
    // Settings untouched: the search ran with the model's own arguments only.
    await expect(details).not.toContainText('from Settings');
    // The answer says which model produced it (the scripted test model here).
    await expect(answer.locator('.turn-model')).toHaveText('Answered by scripted:answer.json');

    // Chips: the real citation is green (quoted or supported), the made-up id is flagged as invented — and they look different.
    const verified = answer.locator('.chip[data-status="verified"]');
    const invented = answer.locator('.chip[data-status="invented"]');
    await expect(verified).toHaveCount(1);
    await expect(invented).toHaveCount(1);
    await expect(verified).toHaveText('✓1');
    await expect(verified).toHaveAttribute('data-support', /^(quoted|supported)$/);
    await expect(verified).toHaveAttribute(
      'title',
      /^(Quoted: these words are in the cited passage|Supported: the passage states these facts)$/,
    );
    await expect(invented).toHaveText('!2');
    await expect(invented).toHaveAttribute('data-support', 'invented');
    const look = async (l: typeof verified) =>
      l.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        return `${style.backgroundColor} ${style.borderStyle}`;
      });
    expect(await look(verified)).not.toBe(await look(invented));
    await expect(invented).toBeDisabled();
    await screenshot(page, '04-chat-timeline');

    // The answer's sources, in chip order: the quote, where it is, its verdict in words; the invented one says so.
    const sessionId = (await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId })).sessions[0]!
      .id;
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessionId });
    const cite = session.messages_list.at(-1)!.citations!.find((c) => c.status === 'verified')!;
    const sources = answer.getByRole('region', { name: 'Sources' });
    const rows = sources.getByRole('listitem');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0)).toHaveAttribute('data-cite', cite.id);
    await expect(rows.nth(0).locator('.source-place')).toHaveText(citationPlace(cite));
    await expect(rows.nth(0).locator('.source-state')).toHaveText(/^(Quoted|Supported)$/);
    const quote = (await rows.nth(0).locator('.source-quote').textContent())!.replace(/^“|”$/g, '');
    expect(quote.length).toBeGreaterThan(10);
    await expect(rows.nth(1)).toHaveAttribute('data-support', 'invented');
    await expect(rows.nth(1).locator('.source-state')).toHaveText('Invented');
    await expect(rows.nth(1).getByRole('button', { name: /Copy quote/ })).toHaveCount(0);
    await expect(rows.nth(1).getByRole('button', { name: /Source 2/ })).toBeDisabled();
    // "Copy quote with citation": the quote and its place on the clipboard, and a word that it was copied.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await rows
      .nth(0)
      .getByRole('button', { name: /Copy quote with citation/ })
      .click();
    await expect(page.getByRole('status').filter({ hasText: 'Copied the quote with its citation.' })).toBeVisible();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(quoteWithCitation(cite));

    // Click the verified chip: the page image opens with boxes exactly where the geometry API puts them.
    await verified.click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    const img = viewer.getByRole('img', { name: /affiliate-agreement\.pdf/ });
    await expect(img).toBeVisible();
    const boxes = viewer.getByTestId('cite-box');
    await expect(boxes.first()).toBeVisible();

    // The chip opens on the supporting words when the check found them (its span), else on the whole cited passage.
    const narrows =
      cite.span &&
      cite.span.start >= cite.start! &&
      cite.span.end <= cite.end! &&
      cite.span.end - cite.span.start < cite.end! - cite.start!;
    const shown = narrows ? cite.span! : { start: cite.start!, end: cite.end!, pages: cite.pages! };
    const pageNo = Number(/Page (\d+) of/.exec((await viewer.getByText(/Page \d+ of \d+/).textContent()) ?? '')![1]);
    expect(shown.pages).toContain(pageNo);
    const oracle = await app.op<PageImage>('citations.page', {
      case_id: caseId,
      file_id: cite.file_id,
      version: cite.version,
      page: pageNo,
      scale: 1,
      start: shown.start,
      end: shown.end,
    });
    expect(oracle.rects.length).toBeGreaterThan(0);
    await expect(boxes).toHaveCount(oracle.rects.length);
    const imgBox = (await img.boundingBox())!;
    for (let i = 0; i < oracle.rects.length; i++) {
      const r = oracle.rects[i]!;
      const b = (await boxes.nth(i).boundingBox())!;
      // Same place as a fraction of the page, to within a pixel or so on screen.
      expect(Math.abs((b.x - imgBox.x) / imgBox.width - r.x / oracle.width)).toBeLessThan(0.003);
      expect(Math.abs((b.y - imgBox.y) / imgBox.height - r.y / oracle.height)).toBeLessThan(0.003);
      expect(Math.abs(b.width / imgBox.width - r.width / oracle.width)).toBeLessThan(0.003);
      expect(Math.abs(b.height / imgBox.height - r.height / oracle.height)).toBeLessThan(0.003);
    }
    await screenshot(page, '05-citation-viewer');

    // Zoom: the page image grows, and the boxes stay on the same words (same fractions of the page).
    const width = imgBox.width;
    await viewer.getByRole('button', { name: 'Zoom in' }).click();
    await expect(viewer.getByText('125%')).toBeVisible();
    await expect.poll(async () => (await img.boundingBox())!.width).toBeGreaterThan(width * 1.2);
    // The boxes are laid out again once the larger image is drawn: wait for them to settle there.
    await expect
      .poll(async () => {
        const zoomed = (await img.boundingBox())!;
        const first = (await boxes.first().boundingBox())!;
        return Math.abs((first.x - zoomed.x) / zoomed.width - oracle.rects[0]!.x / oracle.width);
      })
      .toBeLessThan(0.003);
    await viewer.getByRole('button', { name: 'Zoom out' }).click();
    await expect(viewer.getByText('100%')).toBeVisible();

    // Previous / next page: another page of the same file, then back to the cited page with its boxes.
    const pageCount = Number(/of (\d+)/.exec((await viewer.getByText(/Page \d+ of \d+/).textContent()) ?? '')![1]);
    expect(pageCount).toBeGreaterThan(1);
    const step = pageNo < pageCount ? 'Next page' : 'Previous page';
    const other = pageNo < pageCount ? pageNo + 1 : pageNo - 1;
    const back = pageNo < pageCount ? 'Previous page' : 'Next page';
    await viewer.getByRole('button', { name: step }).click();
    await expect(viewer.getByText(`Page ${other} of ${pageCount}`)).toBeVisible();
    await expect(
      viewer.getByRole('img', { name: new RegExp(`^Page ${other} of .*affiliate-agreement\\.pdf$`) }),
    ).toBeVisible();
    await viewer.getByRole('button', { name: back }).click();
    await expect(viewer.getByText(`Page ${pageNo} of ${pageCount}`)).toBeVisible();
    await expect(boxes).toHaveCount(oracle.rects.length);
    // "Open in system viewer" is the desktop app's; a browser has no system viewer to hand a file to.
    await expect(viewer.getByRole('button', { name: 'Open in system viewer' })).toHaveCount(
      test.info().project.name === 'electron' ? 1 : 0,
    );

    // Export chat → Markdown: a file with the question and the answer.
    const exportChat = chat.getByRole('button', { name: 'Export chat' });
    await exportChat.click();
    const download = page.waitForEvent('download');
    await chat.getByRole('menuitem', { name: 'Markdown (.md)' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.md$/);
    const markdown = readFileSync(await file.path(), 'utf8');
    expect(markdown).toContain('How long does the agreement run?');
    expect(markdown).toContain('renews automatically');
    // Export chat → Word: a .docx (a zip: "PK"), the menu reached and chosen with the keyboard.
    await exportChat.focus();
    await page.keyboard.press('Enter');
    await expect(chat.getByRole('menuitem', { name: 'Word document (.docx)' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(chat.getByRole('menuitem', { name: 'Markdown (.md)' })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    await expect(chat.getByRole('menuitem', { name: 'Word document (.docx)' })).toBeFocused();
    const wordDownload = page.waitForEvent('download');
    await page.keyboard.press('Enter');
    const word = await wordDownload;
    expect(word.suggestedFilename()).toMatch(/\.docx$/);
    expect(
      readFileSync(await word.path())
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');
    // It opens as a Word document: each citation a footnote with the document, page and quoted words.
    const zipped = await JSZip.loadAsync(readFileSync(await word.path()));
    const documentXml = await zipped.file('word/document.xml')!.async('string');
    const footnotesXml = await zipped.file('word/footnotes.xml')!.async('string');
    expect(documentXml).toContain('<w:footnoteReference');
    expect(documentXml).not.toContain('[cite:');
    const green = (
      await app.op<ChatSession>('chat.session', {
        case_id: caseId,
        session_id: (
          await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId })
        ).sessions[0]!.id,
      })
    ).messages_list
      .flatMap((m) => m.citations ?? [])
      .find((c) => c.status === 'verified')!;
    const xmlText = (xml: string) =>
      xml
        .replace(/<[^>]+>/g, '')
        .replace(/&amp;/g, '&')
        .replace(/&quot;/g, '"')
        .replace(/&apos;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>');
    expect(xmlText(footnotesXml)).toContain(citationPlace(green));
    expect(xmlText(footnotesXml)).toContain(green.span!.text.replace(/\s+/g, ' ').trim().slice(0, 40));
    await expect(chat.getByRole('menu')).toHaveCount(0);
    // Export answer: this one answer as a Word document.
    const answerDownload = page.waitForEvent('download');
    await answer.getByRole('button', { name: 'Export answer' }).click();
    const one = await answerDownload;
    // Named after its question, whole (safe characters only).
    expect(one.suggestedFilename()).toBe('How long does the agreement run.docx');
    expect(
      readFileSync(await one.path())
        .subarray(0, 2)
        .toString('latin1'),
    ).toBe('PK');

    // The conversation can be deleted; the case's documents stay.
    await chat.getByRole('button', { name: 'Delete chat' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete conversation' });
    await expect(confirm).toContainText('How long does the agreement run?');
    await confirm.getByRole('button', { name: 'Delete conversation' }).click();
    await expect(chat.getByRole('article')).toHaveCount(0);
    expect((await app.op<{ sessions: unknown[] }>('chat.sessions', { case_id: caseId })).sessions).toEqual([]);
  });
});

test.describe('chat retrieval settings', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('the top k set in Settings bounds the agent’s searches, and the timeline shows it came from Settings', async ({
    app,
  }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await expect(settings.getByTestId('retrieval-scope')).toContainText('follows the number of passages');
    await settings.getByLabel('Passages per search').fill('2');
    await page.getByRole('button', { name: 'Settings' }).click();

    const chat = page.getByRole('region', { name: 'Chat' });
    await ask(chat, 'How long does the agreement run?');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    const timeline = answer.locator('details.timeline');
    await timeline.locator(':scope > summary').click();
    const retrieve = timeline.getByRole('list', { name: 'Agent steps' }).locator(':scope > li').nth(1);
    await expect(retrieve.locator('.step-text')).toContainText('— 2 passages');
    await retrieve.locator('details.step-details > summary').click();
    await expect(retrieve.locator('.step-action')).toHaveText('retrieve');
    await expect(retrieve.locator('.step-input')).toContainText('"top_k":2');
    await expect(retrieve.locator('.step-input')).toContainText('(from Settings: top_k)');

    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId });
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessions[0]!.id });
    const step = session.messages_list
      .find((m) => m.role === 'assistant')!
      .steps!.find((st) => st.action === 'retrieve')!;
    expect(step.input).toMatchObject({ top_k: 2 });
    expect(step.summary!.count).toBe(2);
  });
});

test.describe('chat model per turn', () => {
  // A real GGUF (a tiny random-weight llama) as the second model; short generations keep it quick.
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript, CASEFILE_AGENT_MAX_TOKENS: '48' } });

  test('the picker chooses the model of the next turn, and the step setting bounds that turn', async ({ app }) => {
    const { page } = app;
    await app.op('models.import', {
      path: path.join(corpusDir, '..', 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf'),
    });
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    const question = chat.getByRole('textbox', { name: 'Question' });
    const picker = chat.getByRole('combobox', { name: 'Chat model' });
    await expect(picker.locator('option', { hasText: 'llama-2-tiny-random' })).toHaveCount(1);

    // Turn 1: the default model (the scripted one, as configured for tests), five steps allowed.
    await question.fill('How long does the agreement run?');
    await question.press('Enter');
    const answers = chat.getByRole('article', { name: 'Answer', exact: true });
    await expect(answers).toHaveCount(1, { timeout: 60_000 });
    await expect(answers.nth(0).locator('.turn-model')).toHaveText('Answered by scripted:answer.json');

    // Turn 2: one step per question (Settings), and the GGUF model picked for this turn.
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Searches per question (1–5)').fill('1');
    await page.getByRole('button', { name: 'Settings' }).click();
    await chat.getByRole('combobox', { name: 'Chat model' }).selectOption('llama-2-tiny-random');
    await question.fill('Who are the parties?');
    await question.press('Enter');
    await expect(answers).toHaveCount(2, { timeout: 90_000 });
    await expect(answers.nth(1).locator('.turn-model')).toHaveText('Answered by llama-2-tiny-random');
    // The first turn keeps its own model.
    await expect(answers.nth(0).locator('.turn-model')).toHaveText('Answered by scripted:answer.json');

    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId });
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessions[0]!.id });
    const replies = session.messages_list.filter((m) => m.role === 'assistant');
    expect(replies.map((m) => m.model)).toEqual(['scripted:answer.json', 'llama-2-tiny-random']);
    // At most one tool step in the second turn: the budget the setting asked for (the best passages
    // quoted when the tiny model's answer is unusable are not one of the agent's steps).
    expect(
      replies[1]!.steps!.filter((st) => st.kind !== 'final' && st.action !== 'find_passages').length,
    ).toBeLessThanOrEqual(1);

    // The sessions list: a new conversation starts empty; picking the old one brings it back.
    await chat.getByRole('button', { name: 'New chat' }).click();
    await expect(chat.getByRole('article')).toHaveCount(0);
    const sessionPicker = chat.getByRole('combobox', { name: 'Chat session' });
    await expect(sessionPicker.locator('option')).toHaveText(['New conversation', 'How long does the agreement run?']);
    await sessionPicker.selectOption({ label: 'How long does the agreement run?' });
    await expect(answers).toHaveCount(2);
  });
});

test.describe('chat streaming', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: streamScript } });

  test('the answer slot shows only the final answer: thought and draft stream on the timeline; a quote not in its passage gets an amber chip that says why', async ({
    app,
  }) => {
    const { page } = app;
    await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    // Every state of the answer slot and of the timeline's live line is recorded, and checked once the turn is over.
    const slotTexts = await recordTexts(page, '[data-testid="answer-slot"]');
    const liveTexts = await recordTexts(page, '[data-testid="live-line"]');
    await ask(chat, 'What is the term?');

    const live = chat.getByRole('article', { name: 'Answer in progress' });
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('Nothing else in the results bears on the question.', { timeout: 60_000 });
    await expect(live).toBeHidden();
    const finalText = (await answer.getByTestId('answer-slot').textContent())!.replace(/\s+/g, ' ').trim();

    // The timeline's live line showed the thought, then the answer being drafted (its start, not yet its end).
    const lines = await liveTexts();
    expect(
      lines.some((t) => t.includes('Search for the term.')),
      'a thought on the live line',
    ).toBe(true);
    const partial = lines.filter(
      (t) =>
        t.includes('Writing the answer') &&
        t.includes('The agreement sets out') &&
        !t.includes('Nothing else in the results'),
    );
    expect(
      partial.length,
      'a state of the drafted answer with its start but not its end, on the timeline',
    ).toBeGreaterThan(0);
    // The answer slot never showed a thought or a half-written answer: "Working…", the passages found
    // first while the model wrote (answer first), then the final answer.
    const slots = await slotTexts();
    for (const t of slots) {
      expect(t, 'no thought in the answer slot').not.toContain('Search for the term.');
      expect(t, 'no thought in the answer slot').not.toContain('First I list the files');
      expect(t, 'no thought in the answer slot').not.toContain('I quote it');
      expect(
        t.startsWith('Working…') || t.startsWith('Passages found') || t === finalText,
        `answer slot state: ${t}`,
      ).toBe(true);
    }
    const passages = slots.filter((t) => t.startsWith('Passages found'));
    expect(passages.length, 'the passages were shown while the model wrote').toBeGreaterThan(0);
    expect(passages[0]).toMatch(/^Passages found ?Writing an answer with scripted:stream\.json…/);
    expect(slots.indexOf(passages[0]!)).toBeLessThan(slots.indexOf(finalText));
    expect(slots).toContain(finalText);

    const verified = answer.locator('.chip[data-status="verified"]');
    const amber = answer.locator('.chip[data-support="not_supported"]');
    await expect(verified).toHaveText('✓1');
    await expect(verified).toHaveAttribute('data-support', 'quoted');
    await expect(verified).toHaveAttribute('title', 'Quoted: these words are in the cited passage');
    await expect(amber).toHaveText('?2');
    // Its reason, in plain words, in the tooltip and in what a screen reader says.
    await expect(amber).toHaveAttribute('title', /^Not supported: .*moon is made of green cheese/);
    await expect(amber).toHaveAttribute(
      'aria-label',
      /^Citation 2: .* — Not supported: .*moon is made of green cheese/,
    );
    const look = async (l: typeof verified) =>
      l.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        return `${style.backgroundColor} ${style.borderStyle} ${style.color}`;
      });
    expect(await look(verified)).not.toBe(await look(amber));
    // The sources list the same verdicts in words.
    const rows = answer.getByRole('region', { name: 'Sources' }).getByRole('listitem');
    await expect(rows).toHaveCount(2);
    await expect(rows.nth(0).locator('.source-state')).toHaveText('Quoted');
    await expect(rows.nth(1).locator('.source-state')).toHaveText(/^Not supported: /);
    // Words the check did not find in the document are never offered as a quote to paste.
    await expect(rows.nth(1).getByRole('button', { name: /Copy quote/ })).toHaveCount(0);
    await expect(rows.nth(1)).not.toContainText('green cheese”');
    // The chips' text is readable on their colours (WCAG AA, 4.5:1) in the light and the dark theme.
    const contrast = (l: typeof verified) =>
      l.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        const lum = (rgb: string) => {
          const [r, g, b] = rgb
            .match(/[\d.]+/g)!
            .slice(0, 3)
            .map((v) => {
              const c = Number(v) / 255;
              return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
            });
          return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
        };
        const [a, b] = [lum(style.color), lum(style.backgroundColor)];
        return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      });
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const chip of [verified, amber])
        expect(await contrast(chip), `${scheme}: contrast`).toBeGreaterThanOrEqual(4.5);
    }
    await screenshot(page, '04c-chat-sources-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  });
});

test.describe('chat fallback', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: unsupportedScript } });

  test('an answer nothing supports is replaced by the best passages, with a badge and the reason behind “Why?”; its draft never reached the answer slot', async ({
    app,
  }) => {
    const { page } = app;
    await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    const slotTexts = await recordTexts(page, '[data-testid="answer-slot"]');
    const liveTexts = await recordTexts(page, '[data-testid="live-line"]');
    await chat.getByRole('textbox', { name: 'Question' }).fill('How long does the agreement run?');
    await chat.getByRole('button', { name: 'Ask' }).click();
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    const badge = answer.getByText('Passages found — no model answer');
    await expect(badge).toBeVisible({ timeout: 60_000 });
    // The model's words were on the timeline while it wrote them, never in the answer slot.
    expect((await liveTexts()).some((t) => t.includes('ninety-nine years'))).toBe(true);
    for (const t of await slotTexts())
      expect(t.includes('ninety-nine years') && !t.includes('Why?'), `answer slot state: ${t}`).toBe(false);
    // "Why?" shows the reason and what the model wrote.
    const why = answer.locator('details.fallback');
    await expect(why.locator('.fallback-text')).toBeHidden();
    await why.locator(':scope > summary').click();
    await expect(why.locator('.fallback-text')).toHaveText(/ninety-nine years and is governed by lunar law/);
    await expect(answer.getByTestId('answer-slot').locator('.answer-text')).not.toContainText('ninety-nine');
    // The extractive answer's quotes are listed as its sources, and the timeline says how it was found.
    await expect(answer.getByRole('region', { name: 'Sources' }).getByRole('listitem').first()).toBeVisible();
    const timeline = answer.locator('details.timeline');
    await timeline.locator(':scope > summary').click();
    await expect(timeline.locator('.step-text').last()).toHaveText(
      /^Found the best passages for ‘.+’ — \d+ passages?$/,
    );
    await expect(timeline).toContainText('The model’s answer was replaced by the best passages');
    await screenshot(page, '04b-chat-fallback');
  });
});

test.describe('chat find passages', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('“Find passages” quotes the best passages without a model; a case with nothing to search answers with a notice', async ({
    app,
  }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    const question = chat.getByRole('textbox', { name: 'Question' });
    await question.fill('termination notice period');
    // A labelled button, used with the keyboard.
    const find = chat.getByRole('button', { name: 'Find passages' });
    await expect(find).toHaveAccessibleDescription(/without a model/);
    await find.focus();
    await page.keyboard.press('Enter');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer.getByText('Passages found — no model answer')).toBeVisible({ timeout: 60_000 });
    await expect(answer.locator('details.fallback')).toHaveCount(0);
    await expect(answer.locator('.turn-model')).toHaveText('Found without a model');
    const rows = answer.getByRole('region', { name: 'Sources' }).getByRole('listitem');
    expect(await rows.count()).toBeGreaterThan(0);
    await expect(rows.first().locator('.source-quote')).not.toBeEmpty();
    // Each passage says how far it answers; its exact words are a plain fact, never a green mark.
    await expect(rows.first().locator('.source-state')).toHaveText(/^(Likely answer|Related) · exact words$/);
    await expect(answer.locator('.chip').first()).toHaveClass(/chip-passage/);
    await expect(answer.locator('.chip-quoted')).toHaveCount(0);
    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId });
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessions[0]!.id });
    const reply = session.messages_list.at(-1)!;
    expect(reply.answer_kind).toBe('extractive');
    expect(reply.steps!.every((st) => st.action === 'find_passages')).toBe(true);

    // A case with no documents: a notice, no chips, no sources.
    const { id: empty } = await app.op<{ id: string }>('cases.create', { name: 'Empty matter' });
    expect(empty).toBeTruthy();
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Empty matter/ })
      .click();
    await chat.getByRole('textbox', { name: 'Question' }).fill('What is the notice period?');
    await chat.getByRole('button', { name: 'Ask' }).click();
    const notice = chat.getByRole('article', { name: 'Answer', exact: true }).last().getByRole('note');
    await expect(notice).toBeVisible({ timeout: 60_000 });
    await expect(notice).toHaveAttribute('data-kind', 'no_documents');
    await expect(
      chat.getByRole('article', { name: 'Answer', exact: true }).last().getByRole('region', { name: 'Sources' }),
    ).toHaveCount(0);
  });
});

test.describe('chat cancel', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: slowScript } });

  test('cancel a running turn with Esc: it stops and keeps the partial trace', async ({ app }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('textbox', { name: 'Question' }).fill('When can the agreement be terminated?');
    await chat.getByRole('button', { name: 'Ask' }).click();
    const live = chat.getByRole('article', { name: 'Answer in progress' });
    await expect(live).toBeVisible();
    // The timeline fills in while the turn runs: the finished first step, then the next thought streaming.
    const liveSteps = live.getByRole('list', { name: 'Agent steps' }).locator(':scope > li');
    await expect(liveSteps.first().locator('.step-text')).toHaveText('Listed the one document');
    const liveLine = live.getByTestId('live-line');
    await expect(liveLine.locator('.step-text')).toHaveText('Thinking…');
    await expect(liveLine).toContainText('Now I search.');
    // Nothing of it in the answer slot.
    await expect(live.getByTestId('answer-slot')).not.toContainText('Now I search');
    await expect(chat.getByRole('button', { name: /Cancel/ })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(live).toBeHidden({ timeout: 20_000 });
    await expect(chat.getByRole('button', { name: 'Ask' })).toBeVisible();
    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId });
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessions[0]!.id });
    const last = session.messages_list.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(last.status).toBe('cancelled');
    expect(last.steps!.map((st) => st.action)).toContain('findFiles');
    await expect(chat.getByText('This turn was cancelled')).toBeVisible();
  });
});

test.describe('chat citation in a DOCX', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: docxScript } });

  test('a chip citing a few words of a DOCX opens its formatted text with exactly those words marked', async ({
    app,
  }) => {
    const { page } = app;
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Discharge review' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-docx-')), 'docs');
    mkdirSync(dir);
    copyFileSync(path.join(corpusDir, CORPUS.docx), path.join(dir, 'decision.docx'));
    await app.op('ingest.start', { case_id: caseId, paths: [dir], wait: true });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Discharge review/ })
      .click();
    const chat = page.getByRole('region', { name: 'Chat' });
    await ask(chat, 'Did his command support him?');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('did not support him', { timeout: 60_000 });
    const chip = answer.locator('.chip[data-cite]').first();
    await expect(chip).toBeEnabled();
    await chip.click();

    const viewer = page.getByRole('region', { name: 'Source viewer' });
    const docxView = viewer.locator('[data-testid="passage"][data-view="docx"]');
    await expect(docxView).toBeVisible();
    // The document's structure as Word has it: its heading, paragraphs, the numbered issues.
    await expect(docxView.locator('h1')).toHaveCount(1);
    expect(await docxView.locator('p').count()).toBeGreaterThan(20);
    expect(await docxView.locator('ol > li').count()).toBeGreaterThan(2);
    // One mark, on the cited words, inside a list item, scrolled into view.
    const mark = docxView.locator('mark');
    await expect(mark).toHaveCount(1);
    await expect(mark).toHaveText('did not support him');
    await expect(mark).toBeInViewport();
    expect(await mark.evaluate((el) => el.closest('li') !== null)).toBe(true);
    const span = {
      start: Number(await docxView.getAttribute('data-start')),
      end: Number(await docxView.getAttribute('data-end')),
    };
    const { files } = await app.op<{ files: { id: string }[] }>('files.list', { case_id: caseId });
    const content = await app.op<{ text: string }>('files.read', { case_id: caseId, file_id: files[0]!.id });
    expect(content.text.slice(span.start, span.end)).toBe('did not support him');
    await screenshot(page, '05b-docx-citation');
  });
});

/**
 * Waits on the engine's claim-level check: each green citation carries `span`, the supporting words
 * of its passage (narrower than the passage). Without it the chip opens on the whole passage and
 * this test fails at its first assertion.
 */
test.describe('chat supporting words', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('a green chip opens the page with boxes only on the supporting words; “Show the whole passage” marks the whole cited passage, and back', async ({
    app,
  }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    await ask(chat, 'How long does the agreement run?');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId });
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessions[0]!.id });
    const cite: CheckedCitation = session.messages_list.at(-1)!.citations!.find((c) => c.status === 'verified')!;
    expect(cite.span, 'the citation carries its supporting words').toBeDefined();
    const span = cite.span!;
    expect(span.start).toBeGreaterThanOrEqual(cite.start!);
    expect(span.end).toBeLessThanOrEqual(cite.end!);
    expect(span.end - span.start, 'the supporting words are narrower than the passage').toBeLessThan(
      cite.end! - cite.start!,
    );
    // The sources list quotes exactly those words.
    const row = answer.getByRole('region', { name: 'Sources' }).getByRole('listitem').first();
    await expect(row.locator('.source-quote')).toHaveText(`“${span.text.replace(/\s+/g, ' ').trim()}”`);

    const boxesFor = async (range: { start: number; end: number }, pageNo: number) =>
      (
        await app.op<PageImage>('citations.page', {
          case_id: caseId,
          file_id: cite.file_id,
          version: cite.version,
          page: pageNo,
          scale: 1,
          start: range.start,
          end: range.end,
        })
      ).rects.length;
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    const boxes = viewer.getByTestId('cite-box');
    const scope = viewer.getByTestId('viewer-scope');
    // A row opens the viewer like the chip: on the supporting words.
    await row.getByRole('button', { name: /^Source 1: / }).click();
    await expect(scope).toHaveAttribute('data-scope', 'support');
    await expect(scope).toContainText(`Supporting words on page ${span.pages[0]}`);
    const onSpan = await boxesFor(span, span.pages[0]!);
    expect(onSpan).toBeGreaterThan(0);
    await expect(boxes).toHaveCount(onSpan);
    if (hasPoppler && span.pages.length === 1) {
      // The boxes cover exactly the supporting words, by poppler's own word boxes (points, y down; scale 1).
      const { rects } = await app.op<PageImage>('citations.page', {
        case_id: caseId,
        file_id: cite.file_id,
        version: cite.version,
        page: span.pages[0],
        scale: 1,
        start: span.start,
        end: span.end,
      });
      const covered = popplerWords(path.join(corpusDir, CORPUS.steelVault), span.pages[0]!).filter((w) => {
        const cx = (w.x0 + w.x1) / 2;
        const cy = (w.y0 + w.y1) / 2;
        return rects.some((r) => cx >= r.x && cx <= r.x + r.width && cy >= r.y && cy <= r.y + r.height);
      });
      const words = (t: string) =>
        t
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, ' ')
          .trim();
      expect(words(covered.map((w) => w.word).join(' '))).toBe(words(span.text));
    }
    await viewer.getByRole('button', { name: 'Close source viewer' }).click();

    await answer.locator('.chip[data-status="verified"]').click();
    await expect(scope).toHaveAttribute('data-scope', 'support');
    await expect(boxes).toHaveCount(onSpan);
    await screenshot(page, '05c-supporting-words');
    // One click shows the whole cited passage (more lines marked), one more goes back.
    await viewer.getByRole('button', { name: 'Show the whole passage' }).click();
    await expect(scope).toHaveAttribute('data-scope', 'whole');
    await expect(scope).toContainText('Cited passage on page');
    const onWhole = await boxesFor({ start: cite.start!, end: cite.end! }, cite.pages![0]!);
    expect(onWhole).toBeGreaterThan(onSpan);
    await expect(boxes).toHaveCount(onWhole);
    await viewer.getByRole('button', { name: 'Show only the supporting words' }).click();
    await expect(scope).toHaveAttribute('data-scope', 'support');
    await expect(boxes).toHaveCount(onSpan);
  });
});
