/**
 * Accessibility of the main screens, checked with axe (the standard engine, @axe-core/playwright):
 * no serious or critical violation on the welcome screen (first run, and with cases but none open),
 * the documents, the chronology, a chat with an answer, the viewer open on a citation, and Settings, in the light and the dark theme. The document table
 * (a treegrid) is one Tab stop, walked by rows with the arrow keys. Each screen is saved under test-results/screens/.
 */
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { CORPUS } from './corpus';
import { overflowing } from './layout';
import { corpusDir, expect, screenshot, test, type AppFixture } from './fixtures';

const scripts = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-a11y-'));
const answerScript = path.join(scripts, 'answer.json');
writeFileSync(
  answerScript,
  JSON.stringify({
    steps: [
      { thought: 'First I list the files of the case.', action: 'findFiles', action_input: {} },
      {
        thought: 'Search for the term and renewal clause.',
        action: 'retrieve',
        action_input: { query: 'term one year renew automatically termination' },
      },
      { final: 'The agreement runs for one year and renews automatically [cite:{{cite}}].' },
    ],
    chunkChars: 24,
    delayMs: 1,
  }),
);

/** The axe rules whose outcome depends on colours: all that a theme switch can change. */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Serious and critical axe violations on the page as it is now, as readable lines: of every rule,
 * or of `rules` only.
 */
async function seriousViolations(page: Page, rules?: string[]): Promise<string[]> {
  const axe = new AxeBuilder({ page });
  const { violations } = await (rules ? axe.withRules(rules) : axe).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) =>
      v.nodes.map(
        (n) => `${v.id} (${v.impact}): ${n.target.join(' ')} — ${n.failureSummary?.replace(/\s+/g, ' ') ?? ''}`,
      ),
    );
}

/** A case of two folders: the Steel Vault contract and an empty file (failed, with a reason). */
async function caseWithDocuments(app: AppFixture): Promise<string> {
  const { id } = await app.op<{ id: string }>('cases.create', { name: 'Equidata affiliate' });
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-a11y-docs-')), 'docs');
  mkdirSync(path.join(dir, 'contracts'), { recursive: true });
  mkdirSync(path.join(dir, 'broken'), { recursive: true });
  copyFileSync(path.join(corpusDir, CORPUS.steelVault), path.join(dir, 'contracts', 'affiliate-agreement.pdf'));
  writeFileSync(path.join(dir, 'broken', 'empty.pdf'), '');
  await app.op('ingest.start', { case_id: id, paths: [dir], wait: true });
  await app.page.reload();
  return id;
}

test.describe('accessibility (light and dark)', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('no serious or critical axe violations on the main screens, light and dark', async ({ app }) => {
    test.slow(); // a real PDF ingested and a scripted answer checked
    const { page } = app;
    // Each screen is checked as it is in the light theme, then in the dark one, and saved in each.
    // The theme is the OS's, pure CSS: switching it changes colours only, so in the dark theme only
    // the rules that read colours run again.
    const inBothThemes = async (screen: string, shot?: string, check?: () => Promise<void>) => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        await check?.();
        const rules = scheme === 'dark' ? COLOUR_RULES : undefined;
        expect(await seriousViolations(page, rules), `${screen}, ${scheme}`).toEqual([]);
        if (shot) await screenshot(page, `a11y-${shot}-${scheme}`);
      }
      await page.emulateMedia({ colorScheme: 'light' });
    };

    // An empty case list: what to do is said at the top of the sidebar, where the eye starts.
    const sidebar = page.getByRole('navigation', { name: 'Cases' });
    await expect(sidebar.getByText('No cases yet. Create one to start.')).toBeVisible();
    // The welcome screen, first run (no case yet), once its model step has listed the recommended models.
    const welcome = page.getByRole('region', { name: 'Getting started' });
    await expect(welcome.getByRole('list', { name: 'Recommended models' }).getByRole('listitem').first()).toBeVisible();
    await expect(welcome.getByTestId('first-run-search')).toBeVisible();
    await inBothThemes('first run', undefined, async () => {
      const empty = await sidebar.getByText('No cases yet').boundingBox();
      const settingsButton = await sidebar.getByRole('button', { name: 'Settings' }).boundingBox();
      expect(empty!.y).toBeLessThan(settingsButton!.y / 3);
    });

    await caseWithDocuments(app);
    await expect(sidebar.getByRole('button', { name: /Equidata affiliate/ })).toBeVisible();
    // The welcome screen again, with cases but none open.
    await expect(page.getByRole('heading', { name: 'Choose a case' })).toBeVisible();
    await inBothThemes('case list', 'case-list');

    // Documents: the heading is its name alone; the status is text; "Why?" says the reason.
    await sidebar.getByRole('button', { name: /Equidata affiliate/ }).click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await expect(docs.getByRole('heading', { level: 2 })).toHaveText(/^Documents\s*2$/);
    const brokenRow = docs.locator('[data-file="broken/empty.pdf"]');
    await expect(brokenRow.locator('[data-status]').first()).toHaveText('Failed');
    await expect(brokenRow.getByRole('button', { name: /Failed/ })).toHaveCount(0);
    await brokenRow.getByRole('button', { name: 'Why?' }).click();
    await expect(brokenRow.getByRole('note')).toHaveText('empty file');
    await expect(docs.locator('[data-file="contracts/affiliate-agreement.pdf"] [data-status]').first()).toHaveAttribute(
      'data-status',
      'indexed',
    );
    await expect(
      docs.locator('[data-file="contracts/affiliate-agreement.pdf"]').getByRole('button', { name: 'Why?' }),
    ).toHaveCount(0);
    await inBothThemes('documents', 'documents');

    // The chronology open (the contract's dated events), then back to the chat.
    await page.getByRole('button', { name: 'Chronology', exact: true }).click();
    const chronology = page.getByRole('region', { name: 'Chronology' });
    await expect(chronology.getByRole('status')).toContainText(/dated events? · /);
    await expect(chronology.getByRole('table').getByRole('rowheader').first()).toBeVisible();
    await inBothThemes('chronology', 'chronology');
    await chronology.getByRole('button', { name: 'Back to chat' }).click();
    await expect(chronology).toHaveCount(0);

    // Chat with an answer.
    const chat = page.getByRole('region', { name: 'Chat' });
    await chat.getByRole('textbox', { name: 'Question' }).fill('How long does the agreement run?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    const chip = answer.locator('.chip[data-status="verified"]');
    await expect(chip).toHaveCount(1);
    await inBothThemes('chat with an answer', 'chat');

    // The viewer open on the citation.
    await chip.click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByTestId('cite-box').first()).toBeVisible();
    await inBothThemes('viewer', 'viewer');

    // Settings.
    await sidebar.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByRole('region', { name: 'Settings' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Settings' }).getByRole('region', { name: 'Models' })).toContainText(
      /Semantic search is (on|off)/,
    );
    await inBothThemes('settings', 'settings');
  });
});

test.describe('keyboard', () => {
  test('the document table (treegrid) is one Tab stop; arrow keys move by rows, Right/Left open and close folders, Space ticks, Enter opens a document', async ({
    app,
  }) => {
    test.slow(); // a real PDF ingested
    const { page } = app;
    await caseWithDocuments(app);
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Equidata affiliate/ })
      .click();
    const docs = page.getByRole('region', { name: 'Documents' });
    const tree = docs.getByRole('treegrid', { name: 'Documents of this case' });
    await expect(tree.getByRole('row', { name: /affiliate-agreement\.pdf, Indexed/ })).toBeVisible();

    // From the name filter, three Tabs ("Filters", the sort menu) land on the table's first row, the table's one Tab stop.
    await docs.getByRole('searchbox', { name: 'Filter by name' }).focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('Tab');
    const broken = tree.getByRole('row', { name: 'broken (1)' });
    await expect(broken).toBeFocused();
    expect(await tree.locator('[role="row"][tabindex="0"]').count()).toBe(1);

    // Down through the tree: broken → its file → contracts → its file.
    await page.keyboard.press('ArrowDown');
    await expect(tree.getByRole('row', { name: /^empty\.pdf, Failed$/ })).toBeFocused();
    await page.keyboard.press('ArrowDown');
    const contracts = tree.getByRole('row', { name: 'contracts (1)' });
    await expect(contracts).toBeFocused();
    await expect(contracts).toHaveAttribute('aria-expanded', 'true');
    // Left closes the folder (its file is gone from the tree), Right opens it again, Right again enters it.
    await page.keyboard.press('ArrowLeft');
    await expect(contracts).toHaveAttribute('aria-expanded', 'false');
    await expect(tree.getByRole('row', { name: /affiliate-agreement\.pdf/ })).toHaveCount(0);
    await page.keyboard.press('ArrowRight');
    await expect(contracts).toHaveAttribute('aria-expanded', 'true');
    await page.keyboard.press('ArrowRight');
    const contract = tree.getByRole('row', { name: /affiliate-agreement\.pdf, Indexed/ });
    await expect(contract).toBeFocused();
    // Left from a file goes to its folder; Up goes back; Home and End jump.
    await page.keyboard.press('ArrowLeft');
    await expect(contracts).toBeFocused();
    await page.keyboard.press('Home');
    await expect(broken).toBeFocused();
    await page.keyboard.press('End');
    await expect(contract).toBeFocused();
    // Still one Tab stop among the rows: the one last moved to.
    expect(await tree.locator('[role="row"][tabindex="0"]').count()).toBe(1);
    await expect(contract).toHaveAttribute('tabindex', '0');

    // The rows are a tree: levels, and the folder's row owns the expanded state.
    await expect(contract).toHaveAttribute('aria-level', '2');
    await expect(contracts).toHaveAttribute('aria-level', '1');
    // Space ticks the document (for "Ask about these") and again unticks it; the row says so.
    await page.keyboard.press('Space');
    await expect(contract).toHaveAttribute('aria-selected', 'true');
    await expect(docs.getByRole('toolbar', { name: 'Selected documents' })).toContainText('1 selected');
    await page.keyboard.press('Space');
    await expect(contract).toHaveAttribute('aria-selected', 'false');
    await expect(docs.getByRole('toolbar', { name: 'Selected documents' })).toBeHidden();
    // Enter opens the document in the viewer.
    await page.keyboard.press('Enter');
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.getByRole('img', { name: /Page 1 of contracts\/affiliate-agreement\.pdf/ })).toBeVisible();
  });
});

test.describe('layout', () => {
  test.use({ engineEnv: { CASEFILE_SCRIPTED_MODEL: answerScript } });

  test('at 900×700 nothing sticks out or is cut off: case list, documents, chat with an answer, viewer, settings', async ({
    app,
  }) => {
    test.slow(); // a real PDF ingested and a scripted answer checked
    const { page } = app;
    await page.setViewportSize({ width: 900, height: 700 });
    const sidebar = page.getByRole('navigation', { name: 'Cases' });
    await expect(sidebar.getByText('No cases yet')).toBeVisible();
    expect(await overflowing(page), 'first run').toEqual([]);

    await caseWithDocuments(app);
    await sidebar.getByRole('button', { name: /Equidata affiliate/ }).click();
    const docs = page.getByRole('region', { name: 'Documents' });
    await expect(docs.locator('[data-file="contracts/affiliate-agreement.pdf"] [data-status]').first()).toHaveAttribute(
      'data-status',
      'indexed',
    );
    const chat = page.getByRole('region', { name: 'Chat' });
    // The controls the issue found clipped are whole and in view.
    for (const control of [
      docs.getByRole('button', { name: 'Add folder…' }),
      chat.getByRole('button', { name: 'Ask', exact: true }),
      chat.getByRole('combobox', { name: 'Chat session' }),
    ]) {
      await expect(control).toBeInViewport({ ratio: 1 });
    }
    // The chat-session menu is wide enough to say what it holds.
    expect((await chat.getByRole('combobox', { name: 'Chat session' }).boundingBox())!.width).toBeGreaterThanOrEqual(
      140,
    );
    expect(await overflowing(page), 'documents').toEqual([]);
    await screenshot(page, 'layout-900-documents');

    await chat.getByRole('textbox', { name: 'Question' }).fill('How long does the agreement run?');
    await chat.getByRole('textbox', { name: 'Question' }).press('Enter');
    const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
    await expect(answer).toContainText('renews automatically', { timeout: 60_000 });
    await expect(chat.getByRole('button', { name: 'Ask', exact: true })).toBeInViewport({ ratio: 1 });
    expect(await overflowing(page), 'chat with an answer').toEqual([]);
    await screenshot(page, 'layout-900-chat');

    await answer.locator('.chip[data-status="verified"]').click();
    await expect(page.getByRole('region', { name: 'Source viewer' }).getByTestId('cite-box').first()).toBeVisible();
    expect(await overflowing(page), 'viewer').toEqual([]);
    await screenshot(page, 'layout-900-viewer');

    await sidebar.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByRole('region', { name: 'Settings' })).toBeVisible();
    expect(await overflowing(page), 'settings').toEqual([]);
    await screenshot(page, 'layout-900-settings');
  });
});
