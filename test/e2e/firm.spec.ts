import { execFileSync } from 'node:child_process';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, repoRoot, screenshot, startServe, stopServe, test } from './fixtures';

/** Run `casefile --home HOME ...args` to set the firm server up, with `input` on stdin (a password). */
function casefile(home: string, args: string[], input = ''): string {
  return execFileSync(process.execPath, [path.join(repoRoot, 'bin', 'casefile.mjs'), '--home', home, ...args], {
    cwd: repoRoot,
    input,
    encoding: 'utf8',
  });
}

test.describe('firm server', () => {
  test('a reviewer signs in, sees only the case they are a member of, signs out; a removed account is signed out', async ({
    shell,
    home,
    chromiumOnce,
  }) => {
    test.skip(shell !== 'serve', 'A firm server is served to a browser; the desktop app has no accounts.');
    casefile(home, ['firm', 'user', 'add', 'dana', '--admin'], 'an administrator password\n');
    casefile(home, ['firm', 'user', 'add', 'rex'], 'a reviewer password\n');
    casefile(home, ['cases', 'create', 'Smith v Jones']);
    casefile(home, ['cases', 'create', 'Acme merger']);
    casefile(home, ['firm', 'members', 'add', 'Acme merger', 'rex']);

    const server = await startServe(home, {}, ['--firm']);
    const browser = await chromiumOnce();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    try {
      await page.goto(server.url);
      const form = page.getByRole('form', { name: 'Sign in to Casefile' });
      await expect(form).toBeVisible();
      await form.getByLabel('User name').fill('rex');
      await form.getByLabel('Password').fill('not the password');
      await form.getByRole('button', { name: 'Sign in' }).click();
      await expect(form.getByRole('alert')).toHaveText('The user name or password is wrong.');
      // The form, with its refusal showing, passes axe (no serious or critical violations).
      const { violations } = await new AxeBuilder({ page }).analyze();
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
      await screenshot(page, 'firm-sign-in');
      await form.getByLabel('Password').fill('a reviewer password');
      await form.getByRole('button', { name: 'Sign in' }).click();

      const cases = page.getByRole('navigation', { name: 'Cases' });
      await expect(cases.getByRole('button', { name: /Acme merger/ })).toBeVisible();
      await expect(cases.getByText('Signed in as rex')).toBeVisible();
      await expect(cases.getByRole('button', { name: /Smith v Jones/ })).toHaveCount(0);
      await expect(page.getByRole('button', { name: /New case/ })).toHaveCount(0);
      await expect(page.getByText('Pick a case on the left.')).toBeVisible();
      await screenshot(page, 'firm-reviewer');

      await cases.getByRole('button', { name: 'Sign out' }).click();
      await expect(page.getByRole('form', { name: 'Sign in to Casefile' })).toBeVisible();
      await expect(page.getByRole('navigation', { name: 'Cases' })).toHaveCount(0);

      // Signed in again, the account is removed: the next thing asked brings the form back, saying why.
      const again = page.getByRole('form', { name: 'Sign in to Casefile' });
      await again.getByLabel('User name').fill('rex');
      await again.getByLabel('Password').fill('a reviewer password');
      await again.getByRole('button', { name: 'Sign in' }).click();
      await cases.getByRole('button', { name: /Acme merger/ }).waitFor();
      casefile(home, ['firm', 'user', 'remove', 'rex']);
      await cases.getByRole('button', { name: /Acme merger/ }).click();
      await expect(again.getByRole('alert')).toHaveText('Your session has ended. Sign in again.');
      expect(errors, 'browser page errors').toEqual([]);
    } finally {
      await context.close();
      await stopServe(server);
    }
  });
});
