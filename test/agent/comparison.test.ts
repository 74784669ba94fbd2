/**
 * Comparison questions (issue 40): a question that names two documents is searched in each, and the
 * Find-passages answer is laid out per document, each part cited to its own document; a third
 * document of the case is not quoted. Real CUAD contracts, ingested by the real pipeline.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { comparedTopic } from '../../src/core/agent/extractive';
import { Engine } from '../../src/core/engine';
import { corpusDir } from '../helpers/home';
import { installTestModels } from '../helpers/models';

const CONTRACTS = [
  'ConformisInc_20191101_10-Q_EX-10.6_11861402_EX-10.6_Development Agreement.txt',
  'WaterNowInc_20191120_10-Q_EX-10.12_11900227_EX-10.12_Distributor Agreement.txt',
  'LifewayFoodsInc_20160316_10-K_EX-10.24_9489766_EX-10.24_Endorsement Agreement.txt',
];

describe('comparison questions', () => {
  let root = '';
  let engine: Engine;
  let caseId = '';
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'casefile-compare-'));
    const drop = path.join(root, 'contracts');
    mkdirSync(drop);
    for (const c of CONTRACTS) copyFileSync(path.join(corpusDir, 'cuad', 'full_contract_txt', c), path.join(drop, c));
    // With the embedding model, as a new user's install has one.
    await installTestModels(path.join(root, 'home'));
    engine = await Engine.open({ home: path.join(root, 'home') });
    caseId = (await engine.router.call('cases.create', { name: 'Three contracts' })).id;
    await engine.router.call('ingest.start', { case_id: caseId, paths: [drop], wait: true });
  });
  /** Find passages (the extractive answer) for a question in the case. */
  const ask = (question: string) => engine.router.call('chat.ask', { case_id: caseId, question, mode: 'extractive' });
  afterAll(async () => {
    await engine?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('“Compare the governing law of the Conformis and Water Now agreements”: a part per document, each quoting its own governing-law clause', async () => {
    const a = await ask('Compare the governing law of the Conformis and Water Now agreements.');
    expect(a.answer.split('\n')[0]).toBe(
      'These passages match your question best (found without a model), for each of the 2 documents the question names:',
    );
    const parts = a.answer.split(/\n\n/).slice(1);
    expect(parts).toHaveLength(2);
    const fileOf = new Map(a.citations.map((c) => [c.id, c.file_name]));
    for (const [part, name, law] of [
      [parts.find((p) => /conformis/i.test(p.split('\n')[0]!)), 'ConformisInc', /New York/i],
      [
        parts.find((p) => /water now/i.test(p.split('\n')[0]!)),
        'WaterNowInc',
        /governed by .*laws of the state of Texas/i,
      ],
    ] as const) {
      expect(part, `a part for ${name}`).toBeDefined();
      const cites = [...part!.matchAll(/\[cite:([a-z0-9]+)\]/g)].map((m) => m[1]!);
      expect(cites.length).toBeGreaterThan(0);
      // Every passage of a part is from its document, and the first names the law or courts it chooses.
      for (const id of cites) expect(fileOf.get(id)).toContain(name);
      expect(part!.split('\n')[1]).toMatch(law);
    }
    expect(a.citations.some((c) => c.file_name?.startsWith('LifewayFoods'))).toBe(false);
    for (const c of a.citations) expect(c.verified).toBe(true);
  });

  it('“Is consent needed to transfer …?”: the Lifeway part quotes its assignment clause, and no part says its contract is silent', async () => {
    const a = await ask('Is consent needed to transfer the Lifeway Foods and Water Now agreements?');
    expect(a.answer.split('\n')[0]).toMatch(/^These passages match your question best/);
    // Both contracts need consent to assign: a part saying one doesn't appear to say would be false.
    expect(a.answer).not.toMatch(/doesn't appear to say/);
    const parts = a.answer.split(/\n\n/).slice(1);
    expect(parts).toHaveLength(2);
    for (const part of parts) expect(part.split('\n')[1]).toMatch(/^- Related — p\. \d+: “.*\bassign.*\bconsent/i);
  });

  it("“Are we the only one allowed to sell …?”: a client's everyday words do not make a part say its contract is silent", async () => {
    const a = await ask('Are we the only one allowed to sell under the Water Now and Conformis agreements?');
    expect(a.answer).not.toMatch(/doesn't appear to say/);
    const parts = a.answer.split(/\n\n/).slice(1);
    expect(parts).toHaveLength(2);
    // Neither contract uses the word "allowed": an everyday word, not a topic they are silent on.
    for (const part of parts) expect(part.split('\n')[1]).toMatch(/^- Related — p\. \d+: “/);
  });

  it('a topic neither contract uses a word of ("earthquake insurance") is said to be absent from each, and why', async () => {
    const a = await ask('What do the Conformis and Water Now agreements say about earthquake insurance?');
    expect(a.answer.split('\n')[0]).toBe(
      "The documents don't appear to say, for each of the 2 documents the question names:",
    );
    const parts = a.answer.split(/\n\n/).slice(1);
    expect(parts).toHaveLength(2);
    for (const part of parts)
      expect(part.split('\n').at(-1)).toBe(
        "- This document doesn't appear to say: it never uses the word “earthquake”.",
      );
  });

  it('“Which agreements are governed by New York law?” in a small case: a part per document, each with its own law', async () => {
    const a = await ask('Which agreements are governed by New York law?');
    expect(a.answer.split('\n')[0]).toBe(
      'These passages match your question best (found without a model), for each of the 3 documents of the case:',
    );
    const parts = a.answer.split(/\n\n/).slice(1);
    expect(parts).toHaveLength(3);
    const fileOf = new Map(a.citations.map((c) => [c.id, c.file_name ?? '']));
    const law = (name: string) => {
      const part = parts.find((p) =>
        [...p.matchAll(/\[cite:([a-z0-9]+)\]/g)].some((m) => fileOf.get(m[1]!)?.startsWith(name)),
      );
      return part?.split('\n')[1] ?? '';
    };
    expect(law('ConformisInc')).toMatch(/laws of New York/i);
    expect(law('LifewayFoods')).toMatch(/laws of the State of Illinois/i);
    expect(law('WaterNowInc')).toMatch(/GOVERNED BY/);
  });

  it('a question that names one document is answered as before, not per document', async () => {
    const a = await ask('What law governs the Lifeway Foods agreement?');
    expect(a.answer.split('\n')[0]).toBe('These passages match your question best (found without a model):');
  });
});

describe('what a comparison asks about', () => {
  it('leaves the words that joined the names out once the names are gone', () => {
    // As routing hands it over: the documents' names already taken out of the question.
    expect(comparedTopic('Compare the governing law of the and agreements.')).toBe('the governing law.');
    expect(comparedTopic('Exclusivity in and in, compared.')).toBe('Exclusivity.');
    expect(comparedTopic('Audit and inspection rights, against.')).toBe('Audit and inspection rights.');
    expect(comparedTopic('Can they check our records under and under?')).toBe('Can they check our records?');
    expect(comparedTopic('Is the license under or under exclusive, and what does it cover?')).toBe(
      'Is the license exclusive, and what does it cover?',
    );
    // An "and" inside the topic stays.
    expect(comparedTopic('What caps on liability do and agree to?')).toBe('What caps on liability do and agree to?');
  });
});
