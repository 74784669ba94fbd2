import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChatSession } from '../../src/shared/contract/chat';
import type { PageImage } from '../../src/shared/contract/viewer';
import { CORPUS } from './corpus';
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
    { thought: 'Search for the term and renewal clause.', action: 'retrieve', action_input: { query: 'term one year renew automatically termination' } },
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

/** An answer that streams slowly, with one plain citation and one whose quote is not in its passage. */
const streamScript = writeScript('stream.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    { thought: 'Search for the term.', action: 'retrieve', action_input: { query: 'term one year renew automatically termination' } },
    {
      final:
        'The agreement sets out its term and how it renews, in the clause the search found [cite:{{cite}}]. ' +
        'It also says "the moon is made of green cheese" [cite:{{cite:2}}]. ' +
        'Nothing else in the results bears on the question.',
    },
  ],
  chunkChars: 3,
  delayMs: 25,
});

/** grepCase finds an exact phrase in a DOCX; the answer cites that match (a span of a few words). */
const docxScript = writeScript('docx.json', {
  steps: [
    { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
    { thought: 'Find the exact wording in the decision.', action: 'grepCase', action_input: { pattern: 'did not support him' } },
    { final: 'The Applicant says his command did not support him [cite:{{cite}}].' },
  ],
  chunkChars: 16,
  delayMs: 2,
});

async function caseWithContract(app: AppFixture): Promise<string> {
  const { id } = await app.op<{ id: string }>('cases.create', { name: 'Equidata affiliate' });
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-chat-')), 'docs');
  mkdirSync(dir);
  copyFileSync(path.join(corpusDir, CORPUS.steelVault), path.join(dir, 'affiliate-agreement.pdf'));
  await app.op('ingest.start', { caseId: id, paths: [dir], wait: true });
  await app.page.reload();
  await app.page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Equidata affiliate/ }).click();
  return id;
}

test.describe('chat', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('ask: live timeline, verified and invented chips, chip opens the page with boxes on the cited words', async ({ app }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('textbox', { name: 'Question' }).fill('How long does the agreement run?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');

    const answer = chat.getByRole('article', { name: 'Answer' }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    // The timeline: findFiles first, then retrieve with its result count and label, then the answer.
    const timeline = answer.locator('details.timeline');
    await timeline.locator(':scope > summary').click();
    const steps = timeline.getByRole('list', { name: 'Agent steps' }).locator(':scope > li');
    await expect(steps).toHaveCount(3);
    await expect(steps.nth(0)).toContainText('findFiles');
    await expect(steps.nth(1)).toContainText('retrieve');
    await expect(steps.nth(1)).toContainText(/\d+ results?/);
    // The observation's quality label and every step's own timing.
    await expect(steps.nth(1)).toContainText(/best: (strong|good|partial|weak|none|marginal|noise)/);
    await expect(steps.nth(1)).toContainText('Search for the term and renewal clause.');
    // Settings untouched: the search ran with the model's own arguments only.
    await expect(steps.nth(1)).not.toContainText('from Settings');
    await expect(steps.nth(2)).toContainText('Final answer');
    for (let i = 0; i < 3; i++) await expect(steps.nth(i).locator('.step-time')).toHaveText(/^\d+ ms$/);
    // The answer says which model produced it (the scripted test model here).
    await expect(answer.locator('.turn-model')).toHaveText('Answered by scripted:answer.json');

    // Chips: the real citation is verified, the made-up id is flagged as invented — and they look different.
    const verified = answer.locator('.chip[data-status="verified"]');
    const invented = answer.locator('.chip[data-status="invented"]');
    await expect(verified).toHaveCount(1);
    await expect(invented).toHaveCount(1);
    await expect(verified).toHaveText('✓1');
    await expect(invented).toHaveText('!2');
    const look = async (l: typeof verified) => l.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        return `${style.backgroundColor} ${style.borderStyle}`;
      });
    expect(await look(verified)).not.toBe(await look(invented));
    await expect(invented).toBeDisabled();
    await screenshot(page, '04-chat-timeline');

    // Click the verified chip: the page image opens with boxes exactly where the geometry API puts them.
    await verified.click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    const img = viewer.getByRole('img', { name: /affiliate-agreement\.pdf/ });
    await expect(img).toBeVisible();
    const boxes = viewer.getByTestId('cite-box');
    await expect(boxes.first()).toBeVisible();

    const session = await app.op<ChatSession>('chat.session', {
      caseId,
      sessionId: (await app.op<{ sessions: { id: string }[] }>('chat.sessions', { caseId })).sessions[0]!.id,
    });
    const cite = session.messages_list.at(-1)!.citations!.find((c) => c.status === 'verified')!;
    const pageNo = Number(/Page (\d+) of/.exec((await viewer.getByText(/Page \d+ of \d+/).textContent()) ?? '')![1]);
    expect(cite.pages).toContain(pageNo);
    const oracle = await app.op<PageImage>('citations.page', {
      caseId,
      fileId: cite.file_id,
      version: cite.version,
      page: pageNo,
      scale: 1,
      start: cite.start,
      end: cite.end,
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
    const zoomed = (await img.boundingBox())!;
    const first = (await boxes.first().boundingBox())!;
    expect(Math.abs((first.x - zoomed.x) / zoomed.width - oracle.rects[0]!.x / oracle.width)).toBeLessThan(0.003);
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
    await expect(viewer.getByRole('img', { name: new RegExp(`^Page ${other} of .*affiliate-agreement\\.pdf$`) })).toBeVisible();
    await viewer.getByRole('button', { name: back }).click();
    await expect(viewer.getByText(`Page ${pageNo} of ${pageCount}`)).toBeVisible();
    await expect(boxes).toHaveCount(oracle.rects.length);
    // "Open in system viewer" is the desktop app's; a browser has no system viewer to hand a file to.
    await expect(viewer.getByRole('button', { name: 'Open in system viewer' })).toHaveCount(test.info().project.name === 'electron' ? 1 : 0);

    // Export: a Markdown file with the question and the answer.
    const download = page.waitForEvent('download');
    await chat.getByRole('button', { name: 'Export' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.md$/);
    const markdown = readFileSync(await file.path(), 'utf8');
    expect(markdown).toContain('How long does the agreement run?');
    expect(markdown).toContain('renews automatically');

    // The conversation can be deleted; the case's documents stay.
    await chat.getByRole('button', { name: 'Delete chat' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete conversation' });
    await expect(confirm).toContainText('How long does the agreement run?');
    await confirm.getByRole('button', { name: 'Delete conversation' }).click();
    await expect(chat.getByRole('article')).toHaveCount(0);
    expect((await app.op<{ sessions: unknown[] }>('chat.sessions', { caseId })).sessions).toEqual([]);
  });
});

test.describe('chat retrieval settings', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('the top k set in Settings bounds the agent’s searches, and the timeline shows it came from Settings', async ({ app }) => {
    const { page } = app;
    const caseId = await caseWithContract(app);
    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await expect(settings.getByTestId('retrieval-scope')).toContainText('to the agent’s searches too');
    await settings.getByLabel('Results per search (top k)').fill('2');
    await page.getByRole('button', { name: 'Settings' }).click();

    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('textbox', { name: 'Question' }).fill('How long does the agreement run?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');
    const answer = chat.getByRole('article', { name: 'Answer' }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    const timeline = answer.locator('details.timeline');
    await timeline.locator(':scope > summary').click();
    const retrieve = timeline.getByRole('list', { name: 'Agent steps' }).locator(':scope > li').nth(1);
    await expect(retrieve).toContainText('retrieve');
    await expect(retrieve).toContainText('2 results');
    await expect(retrieve.locator('.step-input')).toContainText('"top_k":2');
    await expect(retrieve.locator('.step-input')).toContainText('(from Settings: top_k)');

    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { caseId });
    const session = await app.op<ChatSession>('chat.session', { caseId, sessionId: sessions[0]!.id });
    const step = session.messages_list.find((m) => m.role === 'assistant')!.steps!.find((st) => st.action === 'retrieve')!;
    expect(step.input).toMatchObject({ top_k: 2 });
    expect(step.summary!.count).toBe(2);
  });
});

test.describe('chat model per turn', () => {
  // A real GGUF (a tiny random-weight llama) as the second model; short generations keep it quick.
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript, CASEFILE_AGENT_MAX_TOKENS: '48' } });

  test('the picker chooses the model of the next turn, and the step setting bounds that turn', async ({ app }) => {
    const { page } = app;
    await app.op('models.import', { path: path.join(corpusDir, '..', 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf') });
    const caseId = await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    const question = chat.getByRole('textbox', { name: 'Question' });
    const picker = chat.getByRole('combobox', { name: 'Chat model' });
    await expect(picker.locator('option', { hasText: 'llama-2-tiny-random' })).toHaveCount(1);

    // Turn 1: the default model (the scripted one, as configured for tests), five steps allowed.
    await question.fill('How long does the agreement run?');
    await question.press('Enter');
    const answers = chat.getByRole('article', { name: 'Answer' });
    await expect(answers).toHaveCount(1, { timeout: 60_000 });
    await expect(answers.nth(0).locator('.turn-model')).toHaveText('Answered by scripted:answer.json');

    // Turn 2: one step per question (Settings), and the GGUF model picked for this turn.
    await page.getByRole('button', { name: 'Settings' }).click();
    await page.getByLabel('Agent steps per question (1–5)').fill('1');
    await page.getByRole('button', { name: 'Settings' }).click();
    await chat.getByRole('combobox', { name: 'Chat model' }).selectOption('llama-2-tiny-random');
    await question.fill('Who are the parties?');
    await question.press('Enter');
    await expect(answers).toHaveCount(2, { timeout: 90_000 });
    await expect(answers.nth(1).locator('.turn-model')).toHaveText('Answered by llama-2-tiny-random');
    // The first turn keeps its own model.
    await expect(answers.nth(0).locator('.turn-model')).toHaveText('Answered by scripted:answer.json');

    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { caseId });
    const session = await app.op<ChatSession>('chat.session', { caseId, sessionId: sessions[0]!.id });
    const replies = session.messages_list.filter((m) => m.role === 'assistant');
    expect(replies.map((m) => m.model)).toEqual(['scripted:answer.json', 'llama-2-tiny-random']);
    // At most one tool step in the second turn: the budget the setting asked for.
    expect(replies[1]!.steps!.filter((st) => st.kind !== 'final').length).toBeLessThanOrEqual(1);

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

  test('the answer appears while it is written; a quote not in its passage gets a not-verified chip that says why', async ({ app }) => {
    const { page } = app;
    await caseWithContract(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    // Every state of the answer in progress is recorded, and checked once the turn is over.
    const liveTexts = await recordTexts(page, 'article[aria-label="Answer in progress"]');
    await chat.getByRole('textbox', { name: 'Question' }).fill('What is the term?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');

    const answer = chat.getByRole('article', { name: 'Answer' }).last();
    await expect(answer).toContainText('Nothing else in the results bears on the question.', { timeout: 60_000 });
    await expect(chat.getByRole('article', { name: 'Answer in progress' })).toBeHidden();
    // Part of the answer was on screen while the turn was still running (the rest not yet).
    const partial = (await liveTexts()).filter((t) => t.includes('The agreement sets out') && !t.includes('Nothing else in the results'));
    expect(partial.length, 'a state of the answer in progress with its start but not its end').toBeGreaterThan(0);
    const verified = answer.locator('.chip[data-status="verified"]');
    const unverified = answer.locator('.chip[data-status="not_verified"]');
    await expect(verified).toHaveText('✓1');
    await expect(unverified).toHaveText('?2');
    await expect(unverified).toHaveAttribute('title', /quote not found: "the moon is made of green cheese"/);
    const look = async (l: typeof verified) =>
      l.evaluate((el) => {
        const style = el.ownerDocument.defaultView!.getComputedStyle(el);
        return `${style.backgroundColor} ${style.borderStyle}`;
      });
    expect(await look(verified)).not.toBe(await look(unverified));
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
    await expect(liveSteps.first()).toContainText('findFiles');
    await expect(liveSteps.first()).toContainText('1 result');
    await expect(live.getByText('Thinking')).toBeVisible();
    await expect(live.getByText(/Thinking\s+Now I search\./)).toBeVisible();
    await expect(chat.getByRole('button', { name: /Cancel/ })).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(live).toBeHidden({ timeout: 20_000 });
    await expect(chat.getByRole('button', { name: 'Ask' })).toBeVisible();
    const { sessions } = await app.op<{ sessions: { id: string }[] }>('chat.sessions', { caseId });
    const session = await app.op<ChatSession>('chat.session', { caseId, sessionId: sessions[0]!.id });
    const last = session.messages_list.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(last.status).toBe('cancelled');
    expect(last.steps!.map((st) => st.action)).toContain('findFiles');
    await expect(chat.getByText('This turn was cancelled')).toBeVisible();
  });
});

test.describe('chat citation in a DOCX', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: docxScript } });

  test('a chip citing a few words of a DOCX opens its formatted text with exactly those words marked', async ({ app }) => {
    const { page } = app;
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Discharge review' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-docx-')), 'docs');
    mkdirSync(dir);
    copyFileSync(path.join(corpusDir, CORPUS.docx), path.join(dir, 'decision.docx'));
    await app.op('ingest.start', { caseId, paths: [dir], wait: true });
    await page.reload();
    await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Discharge review/ }).click();
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('textbox', { name: 'Question' }).fill('Did his command support him?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');
    const answer = chat.getByRole('article', { name: 'Answer' }).last();
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
    const span = { start: Number(await docxView.getAttribute('data-start')), end: Number(await docxView.getAttribute('data-end')) };
    const { files } = await app.op<{ files: { id: string }[] }>('files.list', { caseId });
    const content = await app.op<{ text: string }>('files.read', { caseId, fileId: files[0]!.id });
    expect(content.text.slice(span.start, span.end)).toBe('did not support him');
    await screenshot(page, '05b-docx-citation');
  });
});
