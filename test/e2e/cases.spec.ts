import { expect, screenshot, test } from './fixtures';

test.describe('cases', () => {
  test('create, rename, search and delete a case', async ({ app }) => {
    const { page } = app;
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();

    // Create: an empty name is refused with the reason in a sentence, then a unicode name with a slash works.
    await page.getByRole('button', { name: 'New case' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'New case' });
    await dialog.getByLabel('Case name').fill('   ');
    await dialog.getByRole('button', { name: 'Create case' }).click();
    await expect(dialog.getByRole('alert')).toHaveText('Give the case a name.');
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
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Theme check/ })
      .click();
    const bg = () =>
      page.locator('body').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).backgroundColor);
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
    // Measured once the case view has loaded (its documents pane says it is empty), and both sizes of
    // each element in one synchronous step: the very same elements at 150 % and at 100 %, so nothing
    // that renders in between (a list arriving, a transient message) can change what is compared.
    await expect(page.getByRole('region', { name: 'Documents' }).getByText('Drop a case folder here')).toBeVisible();
    const pairs = await page.evaluate(() => {
      type El = { tagName: string; className: unknown; id: string; parentElement: El | null; children: ArrayLike<El> };
      const g = globalThis as unknown as {
        document: { querySelectorAll(s: string): ArrayLike<El>; documentElement: { style: { fontSize: string } } };
        getComputedStyle(el: El): { fontSize: string };
      };
      const els = Array.from(g.document.querySelectorAll('body *'));
      // A readable key per element for the failure message: its path of tag.class:nth-child.
      const key = (el: El): string => {
        const parts: string[] = [];
        for (let e: El | null = el; e && e.tagName !== 'BODY'; e = e.parentElement) {
          const cls =
            typeof e.className === 'string' && e.className ? `.${e.className.trim().split(/\s+/).join('.')}` : '';
          const nth = e.parentElement ? Array.from(e.parentElement.children).indexOf(e) + 1 : 1;
          parts.unshift(`${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${cls}:${nth}`);
        }
        return parts.join(' > ');
      };
      const root = g.document.documentElement.style;
      root.fontSize = '150%';
      const large = els.map((el) => parseFloat(g.getComputedStyle(el).fontSize));
      root.fontSize = '100%';
      const normal = els.map((el) => parseFloat(g.getComputedStyle(el).fontSize));
      return els.map((el, i) => ({ key: key(el), normal: normal[i]!, large: large[i]! }));
    });
    expect(pairs.length).toBeGreaterThan(20);
    const fixed = pairs.filter((p) => Math.abs(p.large / p.normal - 1.5) >= 0.05);
    expect(fixed, 'elements whose text did not scale with the root font size').toEqual([]);
  });

  test('a case created elsewhere appears live (event stream)', async ({ app }) => {
    const { page } = app;
    await expect(page.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();
    await app.op('cases.create', { name: 'Created from the CLI' });
    await expect(
      page.getByRole('navigation', { name: 'Cases' }).getByRole('button', { name: /Created from the CLI/ }),
    ).toBeVisible();
  });
});
