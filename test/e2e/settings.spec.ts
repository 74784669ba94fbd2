import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS } from './corpus';
import { corpusDir, expect, repoRoot, screenshot, test } from './fixtures';
import { recordTexts } from './record';

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
    await settings.getByRole('button', { name: 'Import', exact: true }).click();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).toBeVisible();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).not.toContainText(
      /at \S+\.(ts|js):\d+/,
    );
    // The app names its own buttons: no CLI command above the Import button, nor in the error.
    await expect(settings.getByRole('region', { name: 'Models' })).not.toContainText(/\bcasefile [a-z]+/);

    // A real GGUF imported from disk shows up in the models table.
    const gguf = path.join(corpusDir, '..', 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf');
    // The toast lasts a few seconds: recorded when shown, checked once the import is listed.
    const statusTexts = await recordTexts(page, '[role="status"]');
    await settings.getByLabel('Model path').fill(gguf);
    await settings.getByRole('button', { name: 'Import', exact: true }).click();
    const row = settings.getByRole('region', { name: 'Models' }).getByRole('row', { name: /llama-2-tiny-random/ });
    await expect(row).toContainText('chat', { timeout: 60_000 });
    await expect(row).toContainText('4096');
    await expect.poll(statusTexts).toContainEqual(expect.stringContaining('Imported llama-2-tiny-random.'));

    // A download that cannot reach its server says so plainly.
    await settings.getByLabel('Model to download').fill('http://127.0.0.1:9/model.gguf');
    await settings.getByRole('button', { name: 'Download' }).click();
    await expect(settings.getByRole('region', { name: 'Models' }).getByRole('alert')).toBeVisible();
    await expect(settings.getByRole('button', { name: 'Download' })).toBeEnabled();

    await settings.getByLabel('Searches per question (1–5)').fill('3');
    await page.reload();
    await page.getByRole('button', { name: 'Settings' }).click();
    await expect(page.getByLabel('Searches per question (1–5)')).toHaveValue('3');
  });

  test('models a lawyer can manage: a file chosen and uploaded, the recommended list with memory needs, a default chat model set', async ({
    app,
  }) => {
    const { page } = app;
    await page.getByRole('button', { name: 'Settings' }).click();
    const models = page.getByRole('region', { name: 'Models' });

    // The path box is a wide, left-aligned field, not a tiny centred one.
    const box = models.getByLabel('Model path');
    const [boxWidth, cardWidth] = await Promise.all([
      box.evaluate((el) => el.getBoundingClientRect().width),
      models.evaluate((el) => el.getBoundingClientRect().width),
    ]);
    expect(boxWidth).toBeGreaterThan(cardWidth * 0.6);
    await expect(box).toHaveCSS('text-align', 'left');

    // The recommended models, each with what it does, its size and the memory it needs.
    const recommended = models.getByRole('table', { name: 'Recommended models' });
    const qwen = recommended.getByRole('row', { name: /qwen2\.5-1\.5b-instruct/ });
    await expect(qwen).toContainText('Answers questions');
    await expect(qwen).toContainText('4 GB of memory');
    await expect(qwen).toContainText('about 1.1 GB');
    await expect(recommended.getByRole('row', { name: /all-MiniLM-L6-v2/ })).toContainText('1 GB of memory');

    // "Choose a model file…" (serve mode: an upload of the chosen file) imports it.
    const installed = models.getByRole('table', { name: 'Installed models' });
    const chooser = page.waitForEvent('filechooser');
    await models.getByRole('button', { name: 'Choose a model file (.gguf)…' }).click();
    await (await chooser).setFiles(path.join(corpusDir, '..', 'models', 'stories260K', 'stories260K.gguf'));
    await expect(installed.getByRole('row', { name: /stories260K/ })).toContainText('Answers questions', {
      timeout: 60_000,
    });
    // The only chat model is the default, and the help says what that means.
    await expect(installed.getByRole('row', { name: /stories260K/ })).toContainText('default');
    await expect(models.getByTestId('default-chat-help')).toContainText(
      'Questions are answered by the default chat model, stories260K',
    );

    // A second chat model, made the default from its row: the help, the badge and the engine agree.
    await models
      .getByLabel('Model path')
      .fill(path.join(corpusDir, '..', 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf'));
    await models.getByRole('button', { name: 'Import', exact: true }).click();
    const tiny = installed.getByRole('row', { name: /llama-2-tiny-random/ });
    await expect(tiny).toBeVisible({ timeout: 60_000 });
    await tiny.getByRole('button', { name: 'Make llama-2-tiny-random the default' }).click();
    await expect(models.getByTestId('default-chat-help')).toContainText('default chat model, llama-2-tiny-random');
    await expect(tiny.getByRole('button', { name: /Make .* the default/ })).toHaveCount(0);
    await expect(
      installed.getByRole('row', { name: /stories260K/ }).getByRole('button', { name: 'Make stories260K the default' }),
    ).toBeVisible();
    await expect(recommended.getByRole('row', { name: /qwen2\.5-1\.5b-instruct/ })).toContainText('No');
    const list = await app.op<{ default_chat_model: string | null }>('models.list', {});
    expect(list.default_chat_model).toBe('llama-2-tiny-random');

    // The chat's model picker says which model its "Default" is, and follows a new default.
    await app.op('cases.create', { name: 'Harbor lease' });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Harbor lease/ })
      .click();
    const picker = page.getByRole('region', { name: 'Chat' }).getByRole('combobox', { name: 'Chat model' });
    await expect(picker.locator('option[value=""]')).toHaveText('Default — llama-2-tiny-random (set in Settings)');
    await app.op('models.setDefault', { model_id: 'stories260K' });
    await expect(picker.locator('option[value=""]')).toHaveText('Default — stories260K (set in Settings)');
  });

  test('a model folder chosen in the browser is uploaded, checked by loading it, and turns search by meaning on', async ({
    app,
  }) => {
    const { page } = app;
    await page.getByRole('button', { name: 'Settings' }).click();
    const models = page.getByRole('region', { name: 'Models' });
    await expect(models).toContainText('Semantic search is off');
    const chooser = page.waitForEvent('filechooser');
    await models.getByRole('button', { name: 'Choose a model folder…' }).click();
    await (await chooser).setFiles(path.join(repoRoot, 'test', '.models', 'all-MiniLM-L6-v2'));
    const row = models.getByRole('table', { name: 'Installed models' }).getByRole('row', { name: /all-MiniLM-L6-v2/ });
    await expect(row).toContainText('Finds passages by meaning', { timeout: 120_000 });
    await expect(models).toContainText('Semantic search is on.');
    await expect(
      models.getByRole('table', { name: 'Recommended models' }).getByRole('row', { name: /all-MiniLM-L6-v2/ }),
    ).toContainText('Yes');
  });

  test('first run: the empty window says what to do — drop a case folder, import a model (with the recommended ones)', async ({
    app,
  }) => {
    const { page } = app;
    const start = page.getByRole('region', { name: 'Getting started' });
    await expect(start.getByRole('heading', { name: 'Welcome to Casefile' })).toBeVisible();
    await expect(start).toContainText('Drop a case folder here');
    await expect(start).not.toContainText(/\bcasefile [a-z]+/);
    await expect(start).toContainText(/It reads PDF, Word .*emails .*spreadsheets .*ZIP archives and images\./);
    await expect(start.getByRole('button', { name: /New case/ })).toBeVisible();
    const modelStep = start.getByRole('region', { name: '2. Import a model to get written answers' });
    const recommended = modelStep.getByRole('list', { name: 'Recommended models' });
    await expect(recommended.getByRole('listitem').filter({ hasText: 'qwen2.5-1.5b-instruct' })).toContainText(
      'answers questions, about 1.1 GB, needs 4 GB of memory',
    );
    await screenshot(page, '50-first-run');

    // Whether search works by meaning, in words (these tests run without the built-in model).
    await expect(modelStep.getByTestId('first-run-search')).toHaveText(
      /^Search finds passages by their words only: .+\.$/,
    );
    await expect(modelStep.getByTestId('first-run-search')).not.toContainText('index.');

    // Importing a chat model from here: a toy model is named too small to answer, and the import stays offered.
    const chooser = page.waitForEvent('filechooser');
    await modelStep.getByRole('button', { name: 'Choose a model file (.gguf)…' }).click();
    await (await chooser).setFiles(path.join(corpusDir, '..', 'models', 'stories260K', 'stories260K.gguf'));
    await expect(modelStep).toContainText(
      'stories260K is too small to write answers worth waiting for, so questions get the passages that match',
      { timeout: 60_000 },
    );
    await expect(modelStep).not.toContainText('Ready:');
    await expect(modelStep.getByRole('button', { name: 'Choose a model file (.gguf)…' })).toBeVisible();

    // With a case, the window asks to choose one instead.
    await app.op('cases.create', { name: 'Smith v Jones' });
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Choose a case' })).toBeVisible();
  });

  test('each search setting is explained in a sentence with its effect, without jargon', async ({ app }) => {
    const { page } = app;
    await page.getByRole('button', { name: 'Settings' }).click();
    const retrieval = page.getByRole('region', { name: 'Retrieval' });
    await expect(retrieval.getByLabel('How the search box searches')).toHaveAccessibleDescription(
      /Exact words only is best for names, numbers and Bates numbers/,
    );
    await expect(retrieval.getByLabel('Passages per search')).toHaveAccessibleDescription(
      /More passages: fuller answers/,
    );
    await expect(retrieval.getByLabel('Minimum match')).toHaveAccessibleDescription(
      /hides passages that match less well/,
    );
    await expect(retrieval.getByLabel('Second check of the best passages')).toHaveAccessibleDescription(
      /reranker model read the best N passages again/,
    );
    await expect(retrieval.getByLabel('Searches per question (1–5)')).toHaveAccessibleDescription(
      /answers take longer/,
    );
    await expect(retrieval).not.toContainText(/top k|top N|threshold/i);
    await screenshot(page, '51-settings');
  });

  test('the top k set in Settings is what the case search returns', async ({ app }) => {
    const { page } = app;
    const { id: caseId } = await app.op<{ id: string }>('cases.create', { name: 'Golf endorsement' });
    const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-topk-')), 'docs');
    mkdirSync(dir);
    copyFileSync(path.join(corpusDir, CORPUS.txt), path.join(dir, 'endorsement.txt'));
    await app.op('ingest.start', { case_id: caseId, paths: [dir], wait: true });
    await page.reload();
    await page
      .getByRole('navigation', { name: 'Cases' })
      .getByRole('button', { name: /Golf endorsement/ })
      .click();
    // No chat model installed: the picker's "Default" says what an answer is then.
    await expect(
      page
        .getByRole('region', { name: 'Chat' })
        .getByRole('combobox', { name: 'Chat model' })
        .locator('option[value=""]'),
    ).toHaveText('Default: none installed — answers list the passages found');

    const setTopK = async (k: number) => {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByLabel('Passages per search').fill(String(k));
      await page.getByRole('button', { name: 'Settings' }).click();
    };
    const search = async () => {
      const box = page.getByRole('searchbox', { name: 'Search this case' });
      await box.fill('agreement');
      await box.press('Enter');
      return page.getByRole('region', { name: 'Search results' }).getByRole('listitem');
    };
    await setTopK(2);
    await expect(await search()).toHaveCount(2);
    await setTopK(5);
    await expect(await search()).toHaveCount(5);

    // A score threshold nothing reaches: no results, said in words.
    const setField = async (label: string, value: string) => {
      await page.getByRole('button', { name: 'Settings' }).click();
      await page.getByLabel(label).fill(value);
      await page.getByRole('button', { name: 'Settings' }).click();
    };
    await setField('Minimum match', '1000000');
    await expect(await search()).toHaveCount(0);
    const results = page.getByRole('region', { name: 'Search results' });
    await expect(results).toContainText('Nothing in this case matches.');
    await setField('Minimum match', '');
    await expect(await search()).toHaveCount(5);

    // Reranking asked for with no reranker model installed: the results say it did not happen, and why.
    await setField('Second check of the best passages', '5');
    await expect(await search()).toHaveCount(5);
    const note = results.getByRole('note').filter({ hasText: 'The second check of the best passages did not run' });
    await expect(note).toContainText('no reranker model is installed');
    await expect(note).toContainText('clear “Second check of the best passages”');
  });
});
