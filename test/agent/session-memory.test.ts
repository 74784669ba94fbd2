/**
 * What a chat has found already (issue 40): a follow-up in the same chat is answered from the
 * passages found earlier when it leans on the question before ("and how much notice?"), and says so
 * in its timeline; a follow-up about another kind of clause is searched again; a follow-up that
 * names no document is searched in the documents the earlier question was about; a document added
 * to the case makes the chat forget. Real CUAD contracts, ingested by the real pipeline, with the
 * embedding model; the model's part is the scripted model.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { familiesOf, isElliptical, planRecall, type RememberedTurn } from '../../src/core/agent/recall';
import { Engine } from '../../src/core/engine';
import type { ChatAnswer } from '../../src/shared/contract/chat';
import { collapseSteps, describePolicy } from '../../src/shared/steps';
import { corpusDir } from '../helpers/home';
import { installTestModels } from '../helpers/models';
import { scriptModel } from './helpers';

const SIBANNAC = 'SIBANNAC,INC_12_04_2017-EX-2.1-Strategic Alliance Agreement.txt';
const LIFEWAY = 'LifewayFoodsInc_20160316_10-K_EX-10.24_9489766_EX-10.24_Endorsement Agreement.txt';
const WATERNOW = 'WaterNowInc_20191120_10-Q_EX-10.12_11900227_EX-10.12_Distributor Agreement.txt';
// Any document added does it: a short one (1.3 kB) keeps the ingest short.
const JOINT_FILING = 'BLACKROCKMUNIHOLDINGSINVESTMENTQUALITYFUND_04_07_2020-EX-99.01-JOINT FILING AGREEMENT.txt';

const RENEWAL = 'Does the Bravatek–Sibannac strategic alliance renew after the first year?';
const NOTICE = 'And how much notice is needed to stop that?';

describe('the chat remembers what it found', () => {
  let root = '';
  let engine: Engine;
  let caseId = '';
  const drop = (name: string) => {
    const dir = path.join(root, `drop-${name.slice(0, 8)}`);
    mkdirSync(dir, { recursive: true });
    copyFileSync(path.join(corpusDir, 'cuad', 'full_contract_txt', name), path.join(dir, name));
    return dir;
  };
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'casefile-memory-'));
    await installTestModels(path.join(root, 'home'));
    engine = await Engine.open({ home: path.join(root, 'home') });
    caseId = (await engine.router.call('cases.create', { name: 'Three contracts' })).id;
    const paths = [SIBANNAC, LIFEWAY, WATERNOW].map(drop);
    await engine.router.call('ingest.start', { case_id: caseId, paths, wait: true });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Find passages in the chat `session` (a new chat when none). */
  const ask = (question: string, session?: string) =>
    engine.router.call('chat.ask', {
      case_id: caseId,
      question,
      mode: 'extractive',
      ...(session ? { session_id: session } : {}),
    });
  const filesOf = (r: ChatAnswer) => new Set(r.citations.map((c) => c.file_name));

  it('a follow-up that leans on the question before is answered from the passages found for it, and the timeline says so', async () => {
    const first = await ask(RENEWAL);
    expect(first.searches).toBe(1);
    expect(first.earlier).toBeUndefined();
    expect(first.answer).toMatch(/automatically renewed/);

    const next = await ask(NOTICE, first.session_id);
    expect(next.searches).toBe(0);
    expect(next.earlier).toMatchObject({ kind: 'reused', question: RENEWAL, files: [{ file_name: SIBANNAC }] });
    // The answer quotes the notice the alliance's term clause asks for, cited and verified.
    expect(next.answer).toMatch(/^These passages match your question best/);
    expect(next.answer).toMatch(/ninety \(90\) days/);
    expect([...filesOf(next)]).toEqual([SIBANNAC]);
    for (const c of next.citations) expect(c.verified).toBe(true);
    // The timeline: one line, no search, and why.
    const [line] = collapseSteps(next.steps);
    expect(line!.text).toBe(
      `Used ${next.earlier!.passages} passage${next.earlier!.passages === 1 ? '' : 's'} found earlier`,
    );
    expect(describePolicy(next.steps[0]!.policy)).toContain('found earlier in this chat, for “Does the Bravatek');
    expect(next.coverage.files_searched).toBe(0);
    // Kept with the chat: the saved turn says the same.
    const saved = await engine.router.call('chat.session', { case_id: caseId, session_id: first.session_id });
    expect(saved.messages_list.at(-1)).toMatchObject({ searches: 0, earlier: { kind: 'reused' } });
  });

  it('a follow-up about another kind of clause is searched again, in the document the chat was about', async () => {
    const first = await ask(RENEWAL);
    const next = await ask('What about the lead-finder fee?', first.session_id);
    expect(next.searches).toBe(1);
    expect(next.earlier).toMatchObject({ kind: 'kept_focus', files: [{ file_name: SIBANNAC }] });
    expect(next.steps[0]).toMatchObject({ action: 'find_passages', input: { documents: [SIBANNAC] } });
    expect(collapseSteps(next.steps)[0]!.text).toMatch(/in SIBANNAC/);
    expect(describePolicy(next.steps[0]!.policy)).toMatch(/another kind of clause/);
    expect(next.answer).toMatch(/^- Likely answer — .*Bravatek will receive a lead-finder fee/m);
  });

  it('a follow-up that names no document is searched in the one the earlier question named', async () => {
    const alone = await ask('Can it be assigned without consent?');
    // Asked first, in a chat of its own, the question is about every contract of the case.
    expect([...filesOf(alone)].some((f) => f !== LIFEWAY)).toBe(true);

    const first = await ask('What law governs the Lifeway Foods endorsement agreement?');
    const next = await ask('Can it be assigned without consent?', first.session_id);
    expect(next.earlier).toMatchObject({ kind: 'kept_focus', files: [{ file_name: LIFEWAY }] });
    expect([...filesOf(next)]).toEqual([LIFEWAY]);
    expect(next.answer).toMatch(/assign/i);
    expect(next.coverage.searched).toEqual([LIFEWAY]);
  });

  it('with a chat model: the model is shown the passages found earlier first, and may answer from them without a search', async () => {
    const first = await ask(RENEWAL);
    // The model's prompt lists the chat's earlier answer's cites first, then the passages found earlier.
    const shown = new Set(first.citations.map((c) => c.id)).size + 1;
    const next = await engine.router.call('chat.ask', {
      case_id: caseId,
      session_id: first.session_id,
      question: NOTICE,
      model: scriptModel(root, {
        condense: [NOTICE],
        steps: [
          { thought: 'Inventory.', action: 'findFiles', action_input: {} },
          { final: `Notice must be given "{{quote:${shown}}}" [cite:{{cite:${shown}}}].` },
        ],
      }),
    });
    expect(next.steps[0]).toMatchObject({ index: 1, action: 'earlier_passages', input: { question: RENEWAL } });
    expect(next.steps[0]!.observation).toMatch(/^Passages found earlier in this chat for “Does the Bravatek/);
    expect(collapseSteps(next.steps)[0]!.text).toMatch(/^Used \d+ passages? found earlier$/);
    // The model's own steps follow; the question is not searched for it before it may answer.
    expect(next.steps.map((s) => s.action)).not.toContain('retrieve');
    expect(next.searches).toBe(0);
    expect(next.earlier).toMatchObject({ kind: 'reused' });
    // Its answer cites a passage found earlier, verified: it is the turn's answer.
    expect(next).toMatchObject({ answer_kind: 'agent', grounded: true });
    expect(next.answer).toMatch(/ninety \(90\) days/);
    expect(next.coverage.note).toMatch(/Used \d+ passages? found earlier in this chat, in SIBANNAC/);
  });

  it('a document added to the case makes the chats forget what they found: the follow-up is searched', async () => {
    const first = await ask(RENEWAL);
    await engine.router.call('ingest.start', { case_id: caseId, paths: [drop(JOINT_FILING)], wait: true });
    const next = await ask(NOTICE, first.session_id);
    expect(next.earlier).toBeUndefined();
    expect(next.searches).toBe(1);
    expect(next.steps[0]!.action).toBe('find_passages');
  });
});

describe('the policy of the chat memory', () => {
  const sibannac = { file_id: 'f1', file_name: SIBANNAC, title: '' };
  const turn = (question: string, o: Partial<RememberedTurn> = {}): RememberedTurn => ({
    question,
    families: familiesOf(question),
    elliptical: false,
    focus: [sibannac],
    passages: [{ file_id: 'f1', hash: 'h1' } as RememberedTurn['passages'][number]],
    ...o,
  });

  it('families of clause and elliptical follow-ups are told in code', () => {
    expect(familiesOf('Can either side end it without cause, on how much notice?')).toEqual(['how it ends']);
    expect(familiesOf('What about the royalties?')).toEqual(['money']);
    expect(familiesOf('Does it renew on its own?')).toEqual(['how it ends']);
    expect(isElliptical('and how much notice does it need?')).toBe(true);
    expect(isElliptical('What about the lead-finder fee?')).toBe(true);
    expect(
      isElliptical('Which party pays for the shipping of products delivered to the distributor in the territory?'),
    ).toBe(false);
  });

  it('reuses only for an elliptical follow-up within the families spoken of, about the one document of the chat', () => {
    const earlier = [turn(RENEWAL)];
    expect(planRecall({ question: NOTICE, earlier, named: null })).toMatchObject({ kind: 'reuse' });
    expect(planRecall({ question: 'What about the fee?', earlier, named: null })).toMatchObject({
      kind: 'focus',
      why: 'another family',
    });
    const other = { file_id: 'f2', file_name: LIFEWAY, title: '' };
    expect(planRecall({ question: NOTICE, earlier, named: [other] })).toEqual({ kind: 'search' });
    expect(planRecall({ question: 'Which contracts have a non-compete?', earlier, named: null })).toEqual({
      kind: 'search',
    });
    expect(planRecall({ question: 'Can either side end it early?', earlier, named: null })).toMatchObject({
      kind: 'reuse',
    });
    expect(planRecall({ question: NOTICE, earlier: [turn(RENEWAL, { focus: [] })], named: null })).toEqual({
      kind: 'search',
    });
    // A follow-up with nothing of its own to search is searched with the question it leans on.
    expect(planRecall({ question: NOTICE, earlier, named: null })).toMatchObject({
      kind: 'reuse',
      searchQuery: `${NOTICE} ${RENEWAL}`,
    });
  });
});
