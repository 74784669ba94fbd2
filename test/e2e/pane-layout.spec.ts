/**
 * The case workspace's three panes as a reviewer arranges them: with the viewer open beside a long
 * chat (or search results), at 1400×900 and 900×700, every pane shown keeps its minimum width and
 * nothing scrolls sideways; the splitters move by keyboard and are remembered; the documents and
 * the chat fold to a rail and open again.
 */
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { CORPUS } from './corpus';
import { corpusDir, expect, screenshot, test, type AppFixture } from './fixtures';
import { overflowing } from './layout';

const MIN = { docs: 240, chat: 280, viewer: 360 };
const LONG_NAME = 'SteelVault Corporation affiliate agreement dated 24 December 2008 (exhibit 10.16).pdf';

/** A case whose documents sit in nested folders with long names (what made search hits cut). */
async function openCase(app: AppFixture): Promise<string> {
  const { id } = await app.op<{ id: string }>('cases.create', { name: 'Layout matter' });
  const root = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-layout-')), 'docs');
  const put = (rel: string, from: string) => {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    copyFileSync(path.join(corpusDir, from), path.join(root, rel));
  };
  put(`Contracts/Distribution and affiliate agreements/${LONG_NAME}`, CORPUS.steelVault);
  put('Contracts/Co-branding/Mphase Technologies co-branding agreement.pdf', CORPUS.mphase);
  await app.op('ingest.start', { case_id: id, paths: [root], wait: true });
  await app.page.reload();
  await app.page
    .getByRole('navigation', { name: 'Cases' })
    .getByRole('button', { name: /Layout matter/ })
    .click();
  return id;
}

/** The workspace's columns in order: each pane, rail or splitter with its width. */
async function columns(page: Page): Promise<{ kind: string; width: number }[]> {
  return page.locator('.workspace-body > *').evaluateAll((els) =>
    els
      .filter((el) => getComputedStyle(el).display !== 'none')
      .map((el) => ({
        kind: el.classList.contains('pane-splitter')
          ? 'splitter'
          : el.classList.contains('pane-rail')
            ? `rail:${el.classList.contains('pane-rail-docs') ? 'docs' : 'chat'}`
            : el.classList.contains('pane-docs')
              ? 'docs'
              : el.classList.contains('pane-viewer')
                ? 'viewer'
                : 'chat',
        width: el.getBoundingClientRect().width,
      })),
  );
}

/** What scrolls sideways: the page, a pane, or anything in a pane that could show a sideways scrollbar. */
async function sideways(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const root = document.scrollingElement!;
    if (root.scrollWidth > root.clientWidth) out.push(`the page (${root.scrollWidth} > ${root.clientWidth})`);
    for (const pane of Array.from(document.querySelectorAll<HTMLElement>('.workspace-body > .pane'))) {
      const name = pane.getAttribute('aria-label');
      if (pane.scrollWidth > pane.clientWidth + 1) out.push(`${name} (${pane.scrollWidth} > ${pane.clientWidth})`);
      for (const el of Array.from(pane.querySelectorAll<HTMLElement>('*'))) {
        const ox = getComputedStyle(el).overflowX;
        if ((ox === 'auto' || ox === 'scroll') && el.scrollWidth > el.clientWidth + 1)
          out.push(`${el.tagName.toLowerCase()}.${el.className} in ${name} (${el.scrollWidth} > ${el.clientWidth})`);
      }
    }
    return out;
  });
}

/** Serious and critical axe violations (the splitters, the rails and the pane buttons among them). */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

/** Every pane shown is at least as wide as its minimum; returns the columns for further checks. */
async function expectMinimums(page: Page, where: string) {
  const cols = await columns(page);
  for (const c of cols)
    if (c.kind in MIN)
      expect(c.width, `${c.kind} at ${where}: ${JSON.stringify(cols)}`).toBeGreaterThanOrEqual(
        MIN[c.kind as keyof typeof MIN] - 0.5,
      );
  expect(await sideways(page), `sideways scrolling at ${where}`).toEqual([]);
  expect(await overflowing(page), `out of the window at ${where}`).toEqual([]);
  return cols;
}

test.describe('pane layout', () => {
  test('beside the viewer and a long chat, at 1400×900 and 900×700, every pane keeps its minimum and nothing scrolls sideways', async ({
    app,
  }) => {
    test.slow(); // two real PDFs ingested and four turns answered
    const { page } = app;
    await openCase(app);
    const chat = page.getByRole('region', { name: 'Chat' });
    const question = chat.getByRole('textbox', { name: 'Question' });
    const answers = chat.getByRole('article', { name: 'Answer', exact: true });
    const asked = [
      'termination notice period',
      'late charge on the unpaid past-due amount',
      'governing law and jurisdiction of the agreement',
      'co-branded web site revenue share',
    ];
    for (const [i, q] of asked.entries()) {
      await question.fill(q);
      await chat.getByRole('button', { name: 'Find passages' }).click();
      await expect(answers).toHaveCount(i + 1, { timeout: 60_000 });
      await expect(answers.nth(i).getByText('Passages found — no model answer')).toBeVisible({ timeout: 60_000 });
    }
    await answers.last().locator('.chip').first().click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer.locator('img.page-image')).toBeVisible();
    const docs = page.getByRole('region', { name: 'Documents' });

    // 1400×900: all three side by side, each at least its minimum.
    const wide = await expectMinimums(page, '1400×900 with chat');
    expect(wide.map((c) => c.kind)).toEqual(['docs', 'splitter', 'chat', 'splitter', 'viewer']);
    expect(await seriousViolations(page), 'axe at 1400×900').toEqual([]);
    await screenshot(page, 'layout-1400-chat-viewer');

    // 900×700: no room for three; the documents fold to a rail that says so and opens them again.
    await page.setViewportSize({ width: 900, height: 700 });
    await expect(docs).toBeHidden();
    const showDocs = page.getByRole('button', { name: 'Show documents' });
    await expect(showDocs).toBeVisible();
    await expect(chat).toBeVisible();
    await expectMinimums(page, '900×700 with chat');
    expect(await seriousViolations(page), 'axe at 900×700 with a folded pane').toEqual([]);
    await screenshot(page, 'layout-900-chat-viewer');
    await showDocs.click();
    await expect(docs).toBeVisible();
    await expect(chat).toBeHidden();
    const showChat = page.getByRole('button', { name: 'Show chat' });
    await expect(showChat).toBeVisible();
    await expectMinimums(page, '900×700 with the documents');
    await showChat.click();
    await expect(chat).toBeVisible();
    await expect(docs).toBeHidden();

    // Search results beside the viewer: the hits' names wrap, whole, never cut or scrolled.
    const box = page.getByRole('searchbox', { name: 'Search this case' });
    await box.fill('affiliate agreement term renewal');
    await box.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    const hitName = results.locator('.result-file').first();
    await expect(hitName).toBeVisible();
    await expectMinimums(page, '900×700 with search results');
    for (const size of [
      { width: 900, height: 700 },
      { width: 1400, height: 900 },
    ]) {
      await page.setViewportSize(size);
      await expect(viewer).toBeVisible();
      await expectMinimums(page, `${size.width}×${size.height} with search results`);
      const names = await results
        .locator('.result-file')
        .evaluateAll((els) => els.map((el) => ({ text: el.textContent, cut: el.scrollWidth > el.clientWidth + 1 })));
      expect(names.filter((n) => n.cut)).toEqual([]);
    }
    await expect(results.locator('.result-file', { hasText: LONG_NAME }).first()).toBeVisible();
    await screenshot(page, 'layout-1400-search-viewer');
  });

  test('a splitter moved by keyboard resizes the panes and is kept after a reload; the documents and the chat fold and open again', async ({
    app,
  }) => {
    const { page } = app;
    await openCase(app);
    const docs = page.getByRole('region', { name: 'Documents' });
    const chat = page.getByRole('region', { name: 'Chat' });
    const splitter = page.getByRole('separator', { name: 'Resize the documents pane' });
    await expect(splitter).toHaveAttribute('aria-orientation', 'vertical');
    await expect(splitter).toHaveAttribute('aria-valuemin', String(MIN.docs));
    const width = async () => (await docs.boundingBox())!.width;
    const before = await width();
    expect(Number(await splitter.getAttribute('aria-valuenow'))).toBeCloseTo(before, 0);

    await splitter.focus();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(width).toBeLessThan(before - 20);
    const chatWide = (await chat.boundingBox())!.width;
    await page.keyboard.press('End');
    await expect.poll(async () => (await chat.boundingBox())!.width).toBeCloseTo(MIN.chat, 0);
    expect(Number(await splitter.getAttribute('aria-valuenow'))).toBe(
      Number(await splitter.getAttribute('aria-valuemax')),
    );
    await page.keyboard.press('Home');
    await expect.poll(width).toBeCloseTo(MIN.docs, 0);
    expect((await chat.boundingBox())!.width).toBeGreaterThan(chatWide);
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(width).toBeCloseTo(MIN.docs + 64, 0);
    const chosen = await width();

    // Kept after a reload.
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Layout matter/ })
      .click();
    await expect(docs).toBeVisible();
    await expect.poll(width).toBeCloseTo(chosen, 0);

    // The viewer's splitter: ← widens the viewer.
    await docs.getByRole('button', { name: LONG_NAME, exact: false }).first().click();
    const viewer = page.getByRole('region', { name: 'Source viewer' });
    await expect(viewer).toBeVisible();
    const viewerSplitter = page.getByRole('separator', { name: 'Resize the source viewer' });
    const viewerWidth = async () => (await viewer.boundingBox())!.width;
    const opened = await viewerWidth();
    await viewerSplitter.focus();
    await page.keyboard.press('Shift+ArrowLeft');
    await expect.poll(viewerWidth).toBeGreaterThan(opened + 50);
    const grown = await viewerWidth();
    await expectMinimums(page, 'after moving the viewer’s splitter');

    // Fold the documents with the header's button, from the keyboard; it stays folded after a reload.
    const toggleDocs = page.getByRole('group', { name: 'Panes shown' }).getByRole('button', { name: 'Documents' });
    await expect(toggleDocs).toHaveAttribute('aria-pressed', 'true');
    await toggleDocs.focus();
    await page.keyboard.press('Enter');
    await expect(docs).toBeHidden();
    await expect(toggleDocs).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByRole('separator', { name: 'Resize the documents pane' })).toHaveCount(0);
    await expectMinimums(page, 'documents folded');
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Layout matter/ })
      .click();
    await expect(chat).toBeVisible();
    await expect(docs).toBeHidden();
    // Folded, the case's documents are still known: a search hit opens in the viewer.
    const box = page.getByRole('searchbox', { name: 'Search this case' });
    await box.fill('late charge on the unpaid past-due amount');
    await box.press('Enter');
    const results = page.getByRole('region', { name: 'Search results' });
    await results.getByRole('listitem').first().getByRole('button').first().click();
    await expect(viewer.locator('img.page-image')).toBeVisible();
    await viewer.getByRole('button', { name: 'Close source viewer' }).click();
    await results.getByRole('button', { name: 'Back to chat' }).click();
    await expect(chat).toBeVisible();
    // The rail opens them again, from the keyboard.
    const showDocs = page.getByRole('button', { name: 'Show documents' });
    await showDocs.focus();
    await page.keyboard.press('Enter');
    await expect(docs).toBeVisible();
    await expect.poll(width).toBeCloseTo(chosen, 0);

    // The chat folds too; the documents then take the room. The last pane open cannot be folded.
    const toggleChat = page.getByRole('group', { name: 'Panes shown' }).getByRole('button', { name: 'Chat' });
    await toggleChat.click();
    await expect(chat).toBeHidden();
    await expect(page.getByRole('button', { name: 'Show chat' })).toBeVisible();
    expect(await width()).toBeGreaterThan(chosen + 200);
    await expect(toggleDocs).toBeDisabled();
    await page.getByRole('button', { name: 'Show chat' }).click();
    await expect(chat).toBeVisible();
    await expect(toggleDocs).toBeEnabled();

    // The viewer's width was kept too.
    await docs.getByRole('button', { name: LONG_NAME, exact: false }).first().click();
    await expect(viewer).toBeVisible();
    await expect.poll(viewerWidth).toBeCloseTo(grown, 0);
  });
});
