import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test, type AppFixture } from './fixtures';

/**
 * The home screen's question box: a question that names one case's facts opens that case and is
 * asked there; one that fits two cases shows a short choice with each case's summary line.
 */
const CASES: Record<string, Record<string, string>> = {
  'Miller v. Northside': {
    'incident-report.txt':
      'WAREHOUSE INCIDENT REPORT\nEmployee: John Miller\n\nOn March 14, 2023 John Miller slipped on hydraulic fluid leaking from a forklift and fell onto his right knee. John Miller was taken to the emergency department.\n',
    'er-record.txt':
      'MERCY GENERAL HOSPITAL — EMERGENCY DEPARTMENT RECORD\nPatient: John Miller\n\nOn March 14, 2023 John Miller was seen for right knee pain after a fall at work.\n',
  },
  'Garcia collision': {
    'police-report.txt':
      'TRAFFIC COLLISION REPORT\n\nOn August 2, 2022 a car driven by Maria Garcia was struck from behind by a delivery van driven by Kevin Brooks. Maria Garcia was taken to the emergency department.\n',
    'er-record.txt':
      "ST. LUKE'S HOSPITAL — EMERGENCY DEPARTMENT RECORD\nPatient: Maria Garcia\n\nOn August 2, 2022 Maria Garcia was seen after a rear-end collision: cervical strain.\n",
  },
};

async function twoCases(app: AppFixture): Promise<void> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-e2e-anycase-'));
  for (const [name, files] of Object.entries(CASES)) {
    const { id } = await app.op<{ id: string }>('cases.create', { name });
    const dir = path.join(root, id);
    mkdirSync(dir);
    for (const [file, text] of Object.entries(files)) writeFileSync(path.join(dir, file), text);
    await app.op('ingest.start', { case_id: id, paths: [dir], wait: true });
  }
  await app.page.reload();
}

test('a question on the home screen opens the case it means and is asked there, or offers the choice', async ({
  app,
}) => {
  const { page } = app;
  await twoCases(app);
  await expect(page.getByRole('heading', { name: 'Choose a case' })).toBeVisible();
  const box = page.getByRole('textbox', { name: /Casefile finds the case/ });
  await box.fill('What happened with the forklift?');
  await box.press('Enter');
  await expect(page.getByRole('heading', { level: 1, name: 'Miller v. Northside' })).toBeVisible();
  const chat = page.getByRole('region', { name: 'Chat' });
  const answer = chat.getByRole('article', { name: 'Answer', exact: true }).last();
  await expect(answer).toContainText('forklift', { timeout: 60_000 });

  await page.reload();
  await page.getByRole('textbox', { name: /Casefile finds the case/ }).fill('Who went to the emergency department?');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  const choice = page.getByRole('group', { name: 'Which case?' });
  await expect(choice).toContainText('Which case do you mean?');
  await expect(choice).toContainText('medical record');
  await choice.getByRole('button', { name: 'Garcia collision' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Garcia collision' })).toBeVisible();
  await expect(chat.getByRole('article', { name: 'Answer', exact: true }).last()).toContainText('Garcia', {
    timeout: 60_000,
  });
});
