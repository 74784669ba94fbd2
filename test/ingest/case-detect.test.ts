/**
 * Which case a question asked outside any case means (`cases.detect`, `ask --any-case`): each
 * case's digest is made at ingest and follows its documents, the question is matched against the
 * digests alone, several fitting cases make a choice, and one case is chosen without asking.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '../../src/core/engine';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

const MILLER = {
  'incident-report.txt': `WAREHOUSE INCIDENT REPORT
Date of incident: March 14, 2023
Employee: John Miller

On March 14, 2023 John Miller slipped on hydraulic fluid leaking from a forklift and fell onto his right knee. The forklift hose had been reported on March 10, 2023. Supervisor Dana Reyes saw John Miller fall.`,
  'er-record.txt': `MERCY GENERAL HOSPITAL — EMERGENCY DEPARTMENT RECORD
Patient: John Miller
On March 14, 2023 John Miller was seen for right knee pain after a slip and fall at work. X-ray of the knee showed no fracture.`,
};
const GARCIA = {
  'police-report.txt': `CITY OF RIVERTON POLICE DEPARTMENT — TRAFFIC COLLISION REPORT
On August 2, 2022 a car driven by Maria Garcia was struck from behind by a delivery van driven by Kevin Brooks. Maria Garcia was taken to hospital with neck pain. Kevin Brooks was cited.`,
  'er-record.txt': `ST. LUKE'S HOSPITAL — EMERGENCY DEPARTMENT
Patient: Maria Garcia
On August 2, 2022 Maria Garcia was seen after a rear-end collision: cervical strain (whiplash).`,
};
const CONTRACT = {
  'supply.txt': `SUPPLY AGREEMENT

This Supply Agreement is entered into as of June 1, 2020 between Zounds Hearing, Inc. ("Zounds") and Acme Widgets Corporation ("Acme").

1. Supply. Acme shall supply hearing aid housings to Zounds.
2. Termination. Either party may terminate on ninety days' written notice.`,
};

const open: Engine[] = [];
afterEach(async () => {
  for (const e of open.splice(0)) await e.close();
});

async function engineAt(home: string) {
  const engine = await Engine.open({ home, ingest: { concurrency: 1, ocr: false } });
  open.push(engine);
  return engine;
}

/** A case named `name` with `files` ingested; returns its id and the folder they were written to. */
async function addCase(engine: Engine, name: string, files: Record<string, string>) {
  const { id } = await engine.router.call('cases.create', { name });
  const drop = path.join(engine.home, 'drops', id);
  mkdirSync(drop, { recursive: true });
  for (const [file, text] of Object.entries(files)) writeFileSync(path.join(drop, file), text);
  await engine.router.call('ingest.start', { case_id: id, paths: [drop], searchable: true });
  return { id, drop };
}

const digestOf = (engine: Engine, caseId: string) =>
  JSON.parse(readFileSync(path.join(engine.cases.caseDir(caseId), 'digest.json'), 'utf8')) as {
    documents: number;
    people: string[];
    parties: string[];
    subjects: string[];
    types: { type: string; count: number }[];
  };

describe('case digests and cases.detect', () => {
  it('a case’s digest is made at ingest and follows its documents as they are added and removed', async () => {
    const engine = await engineAt(tempHome());
    const { id, drop } = await addCase(engine, 'Miller', { 'incident-report.txt': MILLER['incident-report.txt'] });
    let digest = digestOf(engine, id);
    expect(digest.documents).toBe(1);
    expect(digest.people).toContain('John Miller');
    expect(digest.subjects).toContain('forklift');

    writeFileSync(path.join(drop, 'supply.txt'), CONTRACT['supply.txt']);
    await engine.router.call('ingest.start', { case_id: id, paths: [path.join(drop, 'supply.txt')] });
    digest = digestOf(engine, id);
    expect(digest.documents).toBe(2);
    expect(digest.parties).toContain('Zounds Hearing, Inc.');

    const { files } = await engine.router.call('files.list', { case_id: id });
    const supply = files.find((f) => f.name.endsWith('supply.txt'))!;
    await engine.router.call('files.remove', { case_id: id, file_id: supply.id });
    digest = digestOf(engine, id);
    expect(digest.documents).toBe(1);
    expect(digest.parties).not.toContain('Zounds Hearing, Inc.');
  });

  it('finds the case a question means by its people, parties and subjects, and says which', async () => {
    const engine = await engineAt(tempHome());
    const miller = await addCase(engine, 'Miller v. Northside', MILLER);
    const garcia = await addCase(engine, 'Garcia collision', GARCIA);
    const zounds = await addCase(engine, 'Supply dispute', CONTRACT);
    const detect = (question: string) => engine.router.call('cases.detect', { question });

    for (const [question, expected] of [
      ['When did John last see a doctor about his knee?', miller.id],
      ['the case with the forklift', miller.id],
      ["Who hit Maria's car from behind?", garcia.id],
      ['What does the Zounds contract say about notice?', zounds.id],
    ] as const) {
      const found = await detect(question);
      expect(found, question).toMatchObject({ chosen: expected, ambiguous: false });
      expect(found.candidates[0]!.line).toMatch(/\d (medical record|police report|contract|other document)/);
    }
    // A rename is seen at once: the name is read from the case, not the digest.
    await engine.router.call('cases.rename', { case_id: zounds.id, name: 'Hearing aid housings (Acme)' });
    expect((await detect('the hearing aid housings matter')).chosen).toBe(zounds.id);
  });

  it('asks which case when two fit about equally, or when nothing names one; with one case it never asks', async () => {
    const engine = await engineAt(tempHome());
    const miller = await addCase(engine, 'Miller v. Northside', MILLER);
    const first = await engine.router.call('cases.detect', { question: 'What is the weather on Mars?' });
    expect(first).toMatchObject({ chosen: miller.id, ambiguous: false, reason: 'Only one case.' });

    const garcia = await addCase(engine, 'Garcia collision', GARCIA);
    await addCase(engine, 'Supply dispute', CONTRACT);
    const both = await engine.router.call('cases.detect', { question: 'Who went to the emergency department?' });
    expect(both.ambiguous).toBe(true);
    expect(both.chosen).toBeNull();
    expect(both.candidates.map((c) => c.case_id).sort()).toEqual([miller.id, garcia.id].sort());
    const none = await engine.router.call('cases.detect', { question: 'What is the weather on Mars?' });
    expect(none).toMatchObject({ chosen: null, ambiguous: true });
    expect(none.candidates).toHaveLength(3);
  });

  it('searches the digests only: a word in a document’s text that is not in its digest selects no case', async () => {
    const engine = await engineAt(tempHome());
    // Many words used three times each push a word used once out of the digest's subjects.
    const syllables = ['ka', 'lo', 'mi', 'ru', 'te', 'vo', 'ba', 'ne', 'pi', 'su', 'do', 'fe'];
    const filler = syllables
      .flatMap((a) => syllables.map((b) => `${a}${b}${a}n`))
      .map((w) => `${w} ${w} ${w}.`)
      .join(' ');
    const secret = await addCase(engine, 'Secret', {
      'memo.txt': `MEMO\n\n${filler}\n\nThe zephyrine shipment arrived late.`,
    });
    const other = await addCase(engine, 'Other', GARCIA);
    expect(readFileSync(path.join(engine.cases.caseDir(secret.id), 'digest.json'), 'utf8')).not.toContain('zephyrine');
    const found = await engine.router.call('cases.detect', { question: 'Where is the zephyrine shipment?' });
    expect(found.chosen).toBeNull();
    expect(found.candidates.flatMap((c) => c.matched)).not.toContain('zephyrine');

    // And what the digest says is what is searched: the same word in the other case's digest selects it.
    const file = path.join(engine.cases.caseDir(other.id), 'digest.json');
    const digest = JSON.parse(readFileSync(file, 'utf8')) as { subjects: string[] };
    writeFileSync(file, JSON.stringify({ ...digest, subjects: [...digest.subjects, 'zephyrine'] }));
    expect((await engine.router.call('cases.detect', { question: 'Where is the zephyrine shipment?' })).chosen).toBe(
      other.id,
    );
  });

  it('casefile ask --any-case answers in the case it found, or lists the cases and exits 3', async () => {
    const home = tempHome();
    const engine = await engineAt(home);
    await addCase(engine, 'Miller v. Northside', MILLER);
    await addCase(engine, 'Garcia collision', GARCIA);
    await engine.close();
    open.splice(0);

    const found = await runCasefile(home, ['ask', '--any-case', '--extractive', 'What happened with the forklift?']);
    expect(found.code).toBe(0);
    expect(found.stdout).toMatch(/^Case: Miller v\. Northside — its summary names forklift/m);
    expect(found.stdout).toContain('forklift');

    const asked = await runCasefile(home, [
      'ask',
      '--any-case',
      '--extractive',
      'Who went to the emergency department?',
    ]);
    expect(asked.code).toBe(3);
    expect(asked.stdout).toContain('Which case do you mean?');
    expect(asked.stdout).toMatch(/1\. (Miller v\. Northside|Garcia collision) — \d medical records?/);
    expect(asked.stdout).toContain('Ask again naming the case: casefile ask "');

    const json = await runCasefile(home, ['ask', '--any-case', '--json', 'Who went to the emergency department?']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stdout)).toMatchObject({ ambiguous: true, candidates: [{}, {}] });
  });
});
