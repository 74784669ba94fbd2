import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator } from '@playwright/test';
import type { ChatSession } from '../../src/shared/contract/chat';
import { expect, test, type AppFixture } from './fixtures';

/**
 * "Ask about these": tick two documents, limit the question to them, and the agent's searches
 * (shown on the timeline) and the answer's sources come from those two only; remove the chip and
 * the next question searches the whole case again.
 */
const scripts = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-askabout-'));
const script = path.join(scripts, 'ask-about.json');
writeFileSync(
  script,
  JSON.stringify({
    steps: [
      { thought: 'First I list the files.', action: 'findFiles', action_input: {} },
      {
        thought: 'Search the confidentiality clauses.',
        action: 'retrieve',
        action_input: { query: 'Confidential Information kept secret years' },
      },
      { final: 'The confidentiality periods differ [cite:{{cite}}] [cite:{{cite:2}}].' },
    ],
  }),
);

const NDA = (parties: string, years: string) =>
  `NON-DISCLOSURE AGREEMENT\n\nThis Non-Disclosure Agreement is made between ${parties}.\n\n1. Confidential Information. Each party shall keep the Confidential Information secret for ${years} years after disclosure.\n\n2. Termination. Either party may end this Agreement by written notice.\n`;

async function caseWithNdas(app: AppFixture): Promise<string> {
  const { id } = await app.op<{ id: string }>('cases.create', { name: 'Three NDAs' });
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-askabout-')), 'ndas');
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'nda-acme.txt'), NDA('Acme Logistics LLC and Harbor Freight Partners', 'two (2)'));
  writeFileSync(
    path.join(dir, 'nda-brightline.txt'),
    NDA('Brightline Data Services Inc. and Summit Analytics Ltd.', 'seven (7)'),
  );
  writeFileSync(path.join(dir, 'nda-cobalt.txt'), NDA('Cobalt Mining Corp. and Delta Shipping SA', 'three (3)'));
  await app.op('ingest.start', { case_id: id, paths: [dir], wait: true });
  await app.page.reload();
  await app.page
    .getByRole('navigation', { name: 'Cases' })
    .getByRole('button', { name: /Three NDAs/ })
    .click();
  return id;
}

async function ask(chat: Locator, question: string): Promise<Locator> {
  const before = await chat.getByRole('article', { name: 'Answer', exact: true }).count();
  const box = chat.getByRole('textbox', { name: 'Question' });
  await box.fill(question);
  await box.press('Enter');
  const answers = chat.getByRole('article', { name: 'Answer', exact: true });
  await expect(answers).toHaveCount(before + 1, { timeout: 60_000 });
  const answer = answers.last();
  await expect(answer).toContainText('confidentiality periods differ', { timeout: 60_000 });
  return answer;
}

/** The timeline opened, with the search step's details: what the tool returned. */
async function searchResult(answer: Locator): Promise<Locator> {
  const timeline = answer.locator('details.timeline');
  await timeline.locator(':scope > summary').click();
  const search = timeline.getByRole('list', { name: 'Agent steps' }).locator(':scope > li').nth(1);
  await search.locator('details.step-details > summary').click();
  return search.locator('.step-observation');
}

test.describe('ask about these', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: script } });

  test('select two documents (kept across a reload), ask about them: the searches, the search box and the sources stay within them; remove the chip and the whole case is searched', async ({
    app,
  }) => {
    const { page } = app;
    const caseId = await caseWithNdas(app);
    const docs = page.getByRole('region', { name: 'Documents' });
    const chat = page.getByRole('region', { name: 'Chat' });

    // Tick one with the mouse, one with Space on its row (the tree's keyboard).
    await docs.getByRole('checkbox', { name: 'Select nda-acme.txt' }).check();
    const bar = docs.getByRole('toolbar', { name: 'Selected documents' });
    await expect(bar).toContainText('1 selected');
    const brightline = docs.getByRole('row', { name: /, nda-brightline\.txt, / });
    await brightline.focus();
    await page.keyboard.press('Space');
    await expect(brightline).toHaveAttribute('aria-selected', 'true');
    await expect(docs.getByRole('checkbox', { name: 'Select nda-brightline.txt' })).toBeChecked();
    await expect(bar).toContainText('2 selected');

    // The ticks outlive a reload (kept per case).
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Three NDAs/ })
      .click();
    await expect(bar).toContainText('2 selected');
    await expect(docs.getByRole('checkbox', { name: 'Select nda-acme.txt' })).toBeChecked();
    await expect(docs.getByRole('row', { name: /, nda-brightline\.txt, / })).toHaveAttribute('aria-selected', 'true');
    await expect(docs.getByRole('checkbox', { name: 'Select nda-cobalt.txt' })).not.toBeChecked();

    await bar.getByRole('button', { name: 'Ask about these' }).click();
    const chip = chat.getByTestId('limit-chip');
    await expect(chip).toContainText('Limited to 2 documents');
    // The ticks are cleared once the choice is made; the chip keeps it, across a reload too.
    await expect(bar).toBeHidden();
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Three NDAs/ })
      .click();
    await expect(chip).toContainText('Limited to 2 documents');

    // A search while the chip is shown is limited to the same documents, and says so.
    const searchBox = page.getByRole('searchbox', { name: 'Search this case' });
    await searchBox.fill('Confidential Information secret');
    await searchBox.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    await expect(results.getByTestId('search-limited')).toHaveText(
      /^Searched only the 2 documents you chose: nda-acme\.txt, nda-brightline\.txt\./,
    );
    const hits = results.locator('.result-file');
    await expect(hits.first()).toBeVisible({ timeout: 30_000 });
    expect(new Set(await hits.allTextContents())).toEqual(new Set(['nda-acme.txt', 'nda-brightline.txt']));
    // The whole case on request: the third NDA is found too.
    await results.getByRole('button', { name: 'Search the whole case' }).click();
    await expect(results.getByTestId('search-limited')).toBeHidden();
    await expect(hits.filter({ hasText: 'nda-cobalt.txt' }).first()).toBeVisible({ timeout: 30_000 });
    await results.getByRole('button', { name: 'Back to chat' }).click();

    const limited = await ask(chat, 'How long must confidential information be kept secret?');
    await expect(limited.getByTestId('timeline-limit')).toHaveText(
      'Limited to 2 documents you chose: nda-acme.txt, nda-brightline.txt.',
    );
    const found = await searchResult(limited);
    await expect(found).toContainText('nda-acme.txt');
    await expect(found).toContainText('nda-brightline.txt');
    await expect(found).not.toContainText('nda-cobalt.txt');
    const sources = limited.getByRole('region', { name: 'Sources' });
    // Sources are named by the documents' title (the same in all three): told apart by their quotes.
    await expect(sources.getByRole('listitem')).toHaveCount(2);
    await expect(sources).toContainText('two (2) years');
    await expect(sources).toContainText('seven (7) years');
    await expect(sources).not.toContainText('three (3) years');
    const sessionId = (await app.op<{ sessions: { id: string }[] }>('chat.sessions', { case_id: caseId })).sessions[0]!
      .id;
    const session = await app.op<ChatSession>('chat.session', { case_id: caseId, session_id: sessionId });
    const cited = session.messages_list.at(-1)!.citations!.map((c) => c.file_name);
    expect(cited.length).toBeGreaterThan(0);
    for (const name of cited) expect(['nda-acme.txt', 'nda-brightline.txt']).toContain(name);

    // Remove the chip: the next question searches every document (and after a reload the chip stays gone).
    await chip.getByRole('button', { name: 'Stop limiting questions to 2 documents' }).click();
    await expect(chip).toBeHidden();
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Three NDAs/ })
      .click();
    await expect(chat.getByRole('article', { name: 'Answer', exact: true })).toHaveCount(1);
    await expect(chip).toBeHidden();
    await chat.getByRole('button', { name: 'New chat' }).click();
    await expect(chat.getByRole('article', { name: 'Answer', exact: true })).toHaveCount(0);
    const whole = await ask(chat, 'How long must confidential information be kept secret?');
    await expect(whole.getByTestId('timeline-limit')).toHaveCount(0);
    await expect(await searchResult(whole)).toContainText('nda-cobalt.txt');
  });
});
