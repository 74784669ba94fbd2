import { execFileSync } from 'node:child_process';
import AxeBuilder from '@axe-core/playwright';
import { cliEntry, expect, repoRoot, screenshot, startServe, stopServe, test } from './fixtures';

/** Run `casefile --home HOME ...args` to set the firm server up, with `input` on stdin (a password). */
function casefile(home: string, args: string[], input = ''): string {
  return execFileSync(process.execPath, [cliEntry, '--home', home, ...args], {
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

  test('an administrator adds a reviewer and makes them a member of a case in the page; the reviewer sees that case only', async ({
    shell,
    home,
    chromiumOnce,
  }) => {
    test.skip(shell !== 'serve', 'A firm server is served to a browser; the desktop app has no accounts.');
    casefile(home, ['firm', 'user', 'add', 'dana', '--admin'], 'an administrator password\n');
    casefile(home, ['cases', 'create', 'Smith v Jones']);
    casefile(home, ['cases', 'create', 'Acme merger']);

    const server = await startServe(home, {}, ['--firm']);
    const browser = await chromiumOnce();
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    const signInAs = async (user: string, password: string) => {
      const form = page.getByRole('form', { name: 'Sign in to Casefile' });
      await form.getByLabel('User name').fill(user);
      await form.getByLabel('Password').fill(password);
      await form.getByRole('button', { name: 'Sign in' }).click();
    };
    try {
      await page.goto(server.url);
      await signInAs('dana', 'an administrator password');
      const cases = page.getByRole('navigation', { name: 'Cases' });
      await cases.getByRole('button', { name: /Acme merger/ }).click();
      await cases.getByRole('button', { name: 'Settings' }).click();
      const people = page.getByRole('region', { name: 'People' });
      await expect(people.getByRole('table', { name: 'Accounts' }).getByRole('row', { name: /dana/ })).toContainText(
        'Administrator',
      );

      // The form says what is wrong in words: passwords that differ, then the server's own reason.
      const add = people.getByRole('form', { name: 'Add an account' });
      await add.getByLabel('User name').fill('rex');
      await add.getByLabel('Password (at least 10 characters)').fill('a reviewer password');
      await add.getByLabel('Password again').fill('a reviewer passwort');
      await add.getByRole('button', { name: 'Add account' }).click();
      await expect(add.getByRole('alert')).toHaveText('The two passwords differ. Type the same password twice.');
      await add.getByLabel('Password (at least 10 characters)').fill('short');
      await add.getByLabel('Password again').fill('short');
      await add.getByRole('button', { name: 'Add account' }).click();
      await expect(add.getByRole('alert')).toContainText('A password has at least 10 characters.');
      await add.getByLabel('Password (at least 10 characters)').fill('a reviewer password');
      await add.getByLabel('Password again').fill('a reviewer password');
      await add.getByRole('button', { name: 'Add account' }).click();
      await expect(add.getByRole('status')).toHaveText('Added the account rex.');
      const rexRow = people.getByRole('table', { name: 'Accounts' }).getByRole('row', { name: /rex/ });
      await expect(rexRow).toContainText('Reviewer');
      await expect(rexRow).toContainText('None yet');

      // Membership of the open case.
      const members = people.getByRole('group', { name: 'Who may see “Acme merger”' });
      await members.getByLabel('Reviewer to add').selectOption('rex');
      await members.getByRole('button', { name: 'Add to case' }).click();
      await expect(members.getByRole('list', { name: 'Members' })).toHaveText(/rex/);
      await expect(rexRow).toContainText('Acme merger');

      // The People part passes axe (no serious or critical violations).
      const { violations } = await new AxeBuilder({ page })
        .include('section[aria-labelledby="people-heading"]')
        .analyze();
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
      await screenshot(page, 'firm-people');

      // The audit trail downloads as CSV.
      const saved = page.waitForEvent('download');
      await people.getByRole('button', { name: 'Download audit trail (CSV)' }).click();
      const file = await saved;
      expect(file.suggestedFilename()).toMatch(/\.csv$/);
      await expect(people.getByRole('status').last()).toContainText('to your downloads');

      await cases.getByRole('button', { name: 'Sign out' }).click();
      await signInAs('rex', 'a reviewer password');
      await expect(cases.getByRole('button', { name: /Acme merger/ })).toBeVisible();
      await expect(cases.getByRole('button', { name: /Smith v Jones/ })).toHaveCount(0);
      await cases.getByRole('button', { name: 'Settings' }).click();
      await expect(page.getByRole('heading', { name: 'Settings', exact: true })).toBeVisible();
      await expect(page.getByRole('region', { name: 'People' })).toHaveCount(0);
      await expect(page.getByRole('button', { name: 'Download audit trail (CSV)' })).toHaveCount(0);
      expect(errors, 'browser page errors').toEqual([]);
    } finally {
      await context.close();
      await stopServe(server);
    }
  });
});
