import { expect, test } from './fixtures';

test.describe('settings', () => {
  test('shows the data folder, version, model state; retrieval settings persist', async ({ app }) => {
    const { page } = app;
    await page.getByRole('button', { name: 'Settings' }).click();
    const settings = page.getByRole('region', { name: 'Settings' });
    await expect(settings.getByTestId('data-folder')).toHaveText(app.home);
    const info = await app.op<{ version: string }>('app.info', {});
    await expect(settings.getByTestId('app-version')).toHaveText(info.version);
    await expect(settings.getByRole('region', { name: 'Models' })).toContainText(/Semantic search is (on|off)/);

    // A bad import path gets a plain error, not a crash.
    await settings.getByLabel('Model path').fill('/nowhere/model.gguf');
    await settings.getByRole('button', { name: 'Import' }).click();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).toBeVisible();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).not.toContainText(/at \S+\.(ts|js):\d+/);

    // A download that cannot reach its server says so plainly.
    await settings.getByLabel('Model to download').fill('http://127.0.0.1:9/model.gguf');
    await settings.getByRole('button', { name: 'Download' }).click();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).toBeVisible();
    await expect(settings.getByRole('button', { name: 'Download' })).toBeEnabled();

    await settings.getByLabel('Agent steps per question (1–5)').fill('3');
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByLabel('Agent steps per question (1–5)')).toHaveValue('3');
  });
});
