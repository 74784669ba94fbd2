import { expect, screenshot, test } from './fixtures';

test.describe('cases', () => {
  test('create, rename, search and delete a case', async ({ app }) => {
    const { page } = app;
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();

    // Create: an empty name is refused with the field's reason, then a unicode name with a slash works.
    await page.getByRole('button', { name: 'New case' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New case' });
    await dialog.getByLabel('Case name').fill('   ');
    await dialog.getByRole('button', { name: 'Create case' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('name must not be empty');
    await dialog.getByLabel('Case name').fill('Smith v. Jones / 2024 ⚖️');
    await dialog.getByRole('button', { name: 'Create case' }).click();
    await expect(dialog).toBeHidden();
    const sidebar = page.getByRole('navigation', { name: 'Cases' });
    await expect(sidebar.getByRole('button', { name: /Smith v\. Jones \/ 2024 ⚖️/ })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: 'Smith v. Jones / 2024 ⚖️' })).toBeVisible();

    // Keyboard: Ctrl+N opens the same dialog.
    await page.keyboard.press('Control+n');
    const second = page.getByRole('dialog', { name: 'New case' });
    await second.getByLabel('Case name').fill('Acme Corp. merger');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { level: 1, name: 'Acme Corp. merger' })).toBeVisible();
    await screenshot(page, '01-case-list');

    // The engine really has both.
    const listed = await app.op<{ cases: { name: string }[] }>('cases.list', {});
    expect(listed.cases.map((c) => c.name).sort()).toEqual(['Acme Corp. merger', 'Smith v. Jones / 2024 ⚖️']);

    // Search: Ctrl+K focuses the box, typing filters the list.
    await page.keyboard.press('Control+k');
    await expect(sidebar.getByRole('searchbox', { name: 'Search cases' })).toBeFocused();
    await page.keyboard.type('acme');
    await expect(sidebar.getByRole('button', { name: /Acme Corp/ })).toBeVisible();
    await expect(sidebar.getByRole('button', { name: /Smith v\. Jones/ })).toHaveCount(0);
    await page.keyboard.press('Escape');
    await expect(sidebar.getByRole('button', { name: /Smith v\. Jones/ })).toBeVisible();

    // Rename.
    await sidebar.getByRole('button', { name: /Smith v\. Jones/ }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    const rename = page.getByRole('dialog', { name: 'Rename case' });
    await expect(rename.getByLabel('Case name')).toHaveValue('Smith v. Jones / 2024 ⚖️');
    await rename.getByLabel('Case name').fill('Smith v. Jones (settled)');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Smith v. Jones (settled)' })).toBeVisible();
    await expect(sidebar.getByRole('button', { name: /Smith v\. Jones \(settled\)/ })).toBeVisible();

    // Delete: the confirmation names the case and its file count; keeping it changes nothing.
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete case' });
    await expect(confirm).toContainText('“Smith v. Jones (settled)” and its 0 files');
    await confirm.getByRole('button', { name: 'Keep it' }).click();
    await expect(confirm).toBeHidden();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('dialog', { name: 'Delete case' }).getByRole('button', { name: 'Delete case' }).click();
    await expect(sidebar.getByRole('button', { name: /Smith v\. Jones/ })).toHaveCount(0);
    await expect(sidebar.getByRole('button', { name: /Acme Corp/ })).toBeVisible();
    const after = await app.op<{ cases: { name: string }[] }>('cases.list', {});
    expect(after.cases.map((c) => c.name)).toEqual(['Acme Corp. merger']);
  });

  test('theme follows the OS (light and dark); text follows the browser font size', async ({ app }) => {
    const { page } = app;
    await app.op('cases.create', { name: 'Theme check' });
    await page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Theme check/ }).click();
    const bg = () => page.locator('body').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor);
    await page.emulateMedia({ colorScheme: 'light' });
    const light = await bg();
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await bg();
    expect(light).not.toBe(dark);
    await screenshot(page, '07-dark-theme');
    await page.emulateMedia({ colorScheme: 'light' });
    // Sizes are in rem: a larger root font makes the case title larger.
    const h1 = page.getByRole('heading', { level: 1, name: 'Theme check' });
    const before = await h1.evaluate((el) => el.getBoundingClientRect().height);
    await page.locator('html').evaluate((el) => {
      el.style.fontSize = '150%';
    });
    const after = await h1.evaluate((el) => el.getBoundingClientRect().height);
    expect(after).toBeGreaterThan(before * 1.3);
    // Every piece of text on the screen follows, not only the title: nothing is sized in fixed pixels.
    const sizes = () =>
      page.evaluate(() => {
        const doc = (globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<object> } }).document;
        const win = globalThis as unknown as { getComputedStyle(el: object): { fontSize: string } };
        return Array.from(doc.querySelectorAll('body *')).map((el) => parseFloat(win.getComputedStyle(el).fontSize));
      });
    const large = await sizes();
    await page.locator('html').evaluate((el) => {
      el.style.fontSize = '100%';
    });
    const normal = await sizes();
    expect(normal.length).toBeGreaterThan(20);
    expect(large.length).toBe(normal.length);
    normal.forEach((px, i) => expect(large[i]! / px, `element ${i}`).toBeCloseTo(1.5, 1));
  });

  test('a case created elsewhere appears live (event stream)', async ({ app }) => {
    const { page } = app;
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();
    await app.op('cases.create', { name: 'Created from the CLI' });
    await expect(page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Created from the CLI/ })).toBeVisible();
  });
});
