import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOOP_STOPPED } from '../../src/core/agent/conversation';
import { degenerateReason, isLooping } from '../../src/core/agent/degenerate';
import { Engine } from '../../src/core/engine';
import { RELEVANCE } from '../../src/core/retrieval/tuning';
import type { ChatAnswer } from '../../src/shared/contract/chat';
import type { EngineEvents } from '../../src/shared/events';
import { imageOnlyPdf } from '../fixtures/pdfs';
import { corpusDir } from '../helpers/home';
import { installTestModels, testModels } from '../helpers/models';
import { useIngestedCase, scriptModel, writeCaseFolder } from './helpers';

/** Never a garbage answer: what weak models write is caught, and the turn still ends with cited passages. */
describe('degenerate output', () => {
  const q = 'What notice is needed to terminate the agreement?';
  it('format tokens, loops, nothing, runaways and another language are named in plain words', () => {
    expect(degenerateReason('final_answer', q)).toMatch(/words of its instructions/);
    expect(degenerateReason('finally_a_nswer', q)).toMatch(/words of its instructions/);
    expect(degenerateReason('{"action": "final_answer", "action_input": {}}', q)).toMatch(/words of its instructions/);
    expect(degenerateReason('Action: retrieve', q)).toMatch(/words of its instructions/);
    expect(degenerateReason('', q)).toBe('the model gave no answer');
    expect(degenerateReason(' ... [cite:abc] ', q)).toBe('the model gave no answer');
    expect(degenerateReason('The term shall be five years. '.repeat(60), q)).toBe('the model repeated itself');
    expect(degenerateReason('the notice is is is the notice is is is the notice is is is', q)).toBe(
      'the model repeated itself',
    );
    const runaway = `Sixty days. ${Array.from({ length: 900 }, (_, i) => `clause${i}`).join(' ')}`;
    expect(degenerateReason(runaway, q, { answerChars: 1500 })).toMatch(/longer than asked/);
    expect(
      degenerateReason('通知期限は六十日であり、書面による事前通知が必要です。契約の解除には理由は不要です。', q),
    ).toMatch(/language/);
    expect(degenerateReason('The new', q)).toMatch(/too short/);
  });

  it('a real answer passes, short or long, with or without citations', () => {
    expect(
      degenerateReason("Either party may terminate on sixty (60) days' prior written notice [cite:c1].", q),
    ).toBeNull();
    expect(degenerateReason('No.', 'Is there a non-compete?')).toBeNull();
    expect(
      degenerateReason(
        'Notice: 60 days [cite:c1]. Cure period: 30 days [cite:c2]. Both run from written notice [cite:c3].',
        q,
      ),
    ).toBeNull();
  });

  it('a stream that starts to loop is seen as it grows', () => {
    expect(isLooping('The term is five years. The term is five years.')).toBe(false);
    expect(isLooping('The term is five years. The term is five years. The term is five years.')).toBe(true);
    expect(
      isLooping('{"thought": "x", "action": "final_answer", "action_input": {"answer": "Sixty days of notice'),
    ).toBe(false);
  });
});

describe('turns that end with the extractive answer', () => {
  const c = useIngestedCase();

  const FIND = { thought: 'Inventory.', action: 'findFiles', action_input: {} };
  const GREP = { thought: 'Find it.', action: 'grepCase', action_input: { pattern: 'convenience' } };
  const question = 'What notice is needed to terminate the MSA for convenience?';

  function expectExtractive(r: ChatAnswer, reason: RegExp): void {
    expect(r).toMatchObject({ status: 'done', answer_kind: 'extractive', grounded: true });
    expect(r.fallback!.reason).toMatch(reason);
    expect(r.answer).toMatch(
      /^The model could not answer this from the documents\. These passages match your question best:\n\n- /,
    );
    expect(r.answer).toMatch(
      /MASTER SERVICES AGREEMENT, p\. 1: “[^”]*sixty \(60\) days' prior written notice[^”]*” \[cite:/,
    );
    expect(r.citations.length).toBeGreaterThan(0);
    for (const cite of r.citations) expect(cite).toMatchObject({ verified: true, support: 'quoted' });
    expect(r.steps.at(-1)).toMatchObject({
      action: 'find_passages',
      policy: expect.stringMatching(/replaced by the best passages/),
    });
  }

  it('`final_answer` as the answer → the passages, quoted and verified; the model text is kept for the record', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, { steps: [FIND, GREP, { final: 'final_answer' }] }),
    });
    expectExtractive(r, /words of its instructions/);
    expect(r.fallback!.model_answer).toBe('final_answer');
    const session = await c.engine.router.call('chat.session', { case_id: c.caseId, session_id: r.session_id });
    expect(session.messages_list[1]).toMatchObject({
      answer_kind: 'extractive',
      fallback: { model_answer: 'final_answer' },
      content: r.answer,
    });
  });

  it('the passages of a fallback are the ones Find passages gives for the same question, in the same order', async () => {
    const fallback = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, { steps: [FIND, GREP, { final: '' }] }),
    });
    const found = await c.engine.router.call('chat.ask', { case_id: c.caseId, question, mode: 'extractive' });
    const passages = (r: ChatAnswer) => r.citations.map((x) => [x.file_name, x.start, x.end, x.relevance]);
    expect(passages(fallback)).toEqual(passages(found));
    expect(passages(found).length).toBeGreaterThan(0);
  });

  it('answer first: the passages go out before the model’s first step; when its answer fails they stay, the same words under a new first line', async () => {
    const order: string[] = [];
    let sent: EngineEvents['agent.passages'] | undefined;
    const offs = [
      c.engine.events.on('agent.passages', (e) => {
        order.push('passages');
        sent = e;
      }),
      c.engine.events.on('agent.step', (e) => order.push(`${e.phase}:${e.step.action}`)),
    ];
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, { steps: [FIND, GREP, { final: '' }] }),
    });
    offs.forEach((off) => off());
    expect(order[0]).toBe('passages');
    expect(sent).toMatchObject({ turn_id: r.turn_id, model: r.model });
    expect(sent!.answer).toMatch(
      /^These passages match your question best \(found without a model\):\n\n- Likely answer — MASTER SERVICES AGREEMENT/,
    );
    expect(sent!.citations.length).toBeGreaterThan(0);
    for (const cite of sent!.citations) expect(cite).toMatchObject({ verified: true, support: 'quoted' });
    expectExtractive(r, /no answer/);
    // Not searched again: the same passages and citations, only the first line says why they are the answer.
    expect(r.answer.split('\n').slice(1)).toEqual(sent!.answer.split('\n').slice(1));
    expect(r.citations.map((x) => [x.id, x.start, x.end])).toEqual(sent!.citations.map((x) => [x.id, x.start, x.end]));
    expect(r.timing.first_answer_ms).toBe(sent!.first_answer_ms);
    expect(r.timing.first_answer_ms!).toBeLessThanOrEqual(r.timing.total_ms);
  });

  it('a model that asks again for a call it already made is stopped there, and the passages stay', async () => {
    const SEARCH = { thought: 'Search.', action: 'retrieve', action_input: { query: 'terminate convenience notice' } };
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, { steps: [FIND, SEARCH, SEARCH, { final: 'never asked for' }] }),
    });
    expectExtractive(r, /asked again for a call it had already made/);
    expect(r.steps.map((s) => s.action)).toEqual(['findFiles', 'retrieve', 'retrieve', 'find_passages']);
    expect(r.fallback!.model_answer).toBe('');
  });

  it('an empty answer → the passages', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, { steps: [FIND, GREP, { final: '' }] }),
    });
    expectExtractive(r, /no answer/);
  });

  it('a loop → generation stops early, then the passages', async () => {
    const looping = {
      thought: 'Answer.',
      action: 'final_answer',
      action_input: { answer: 'The term shall be five years. '.repeat(60) },
    };
    const tokens: EngineEvents['agent.token'][] = [];
    const off = c.engine.events.on('agent.token', (e) => tokens.push(e));
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, { chunkChars: 6, steps: [FIND, GREP, looping] }),
    });
    off();
    expectExtractive(r, /repeated itself/);
    const final = r.steps.find((s) => s.kind === 'final')!;
    expect(final.policy).toBe(LOOP_STOPPED);
    // Stopped well before the 60 repetitions were written.
    const streamed = tokens
      .filter((t) => t.step === final.index)
      .map((t) => t.text)
      .join('');
    expect(streamed.length).toBeLessThan(400);
    expect(r.fallback!.model_answer.length).toBeLessThan(400);
  });

  it('an answer whose sentences no cited passage supports → the passages', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, {
        steps: [FIND, GREP, { final: 'Either party may terminate on ninety (90) days notice [cite:{{cite}}].' }],
      }),
    });
    expectExtractive(r, /no sentence of the model's answer is supported/);
  });

  it("a model answer that says the documents don't say is checked the other way: the passage that answers is shown", async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, {
        steps: [FIND, GREP, { final: "The documents don't say what notice is needed to end the MSA for convenience." }],
      }),
    });
    expect(r).toMatchObject({
      answer_kind: 'extractive',
      fallback: { model_answer: expect.stringMatching(/don't say/) },
    });
    expect(r.answer).toMatch(
      /^The model could not answer this from the documents\. These passages match your question best:\n\n- Likely answer — MASTER SERVICES AGREEMENT, p\. 1: “Either party may terminate this Agreement for convenience/,
    );
  });

  it('a supported answer is kept: the model’s words, green citations, the supporting words as the span', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      model: scriptModel(c.root, {
        steps: [
          FIND,
          GREP,
          {
            final:
              "Either party may terminate the MSA for convenience on 60 days' prior written notice [cite:{{cite}}].",
          },
        ],
      }),
    });
    expect(r).toMatchObject({ answer_kind: 'agent', grounded: true });
    expect(r.fallback).toBeUndefined();
    // The passages sent first were replaced by the model's verified answer.
    expect(r.answer).not.toMatch(/These passages match/);
    expect(r.citations[0]).toMatchObject({ support: 'supported', verified: true, title: 'MASTER SERVICES AGREEMENT' });
    expect(r.citations[0]!.span!.text).toBe(
      "Either party may terminate this Agreement for convenience upon sixty (60) days' prior written notice to the other party.",
    );
  });

  it('a sentence about another document of the case → not supported, the reason naming both documents', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'Did the Provider give proper notice?',
      model: scriptModel(c.root, {
        steps: [
          FIND,
          { thought: 'Find it.', action: 'grepCase', action_input: { pattern: 'proper notice' } },
          {
            final:
              "The client wants to know whether the Provider gave proper notice [cite:{{cite}}]. Brightline must give sixty days' notice [cite:{{cite}}].",
          },
        ],
      }),
    });
    // One sentence is supported, so the answer stands; the citation's verdict is amber with the reason.
    expect(r).toMatchObject({ answer_kind: 'agent', grounded: false });
    expect(r.citations).toHaveLength(1);
    expect(r.citations[0]).toMatchObject({
      support: 'not_supported',
      verified: false,
      sentence: "Brightline must give sixty days' notice.",
    });
    expect(r.citations[0]!.reason).toBe('the passage is from notes, not the MASTER SERVICES AGREEMENT');
  });

  it('Find passages (mode extractive) → no model call at all', async () => {
    const file = path.join(c.root, 'never-called.json');
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question,
      mode: 'extractive',
      model: `scripted:${file}`,
    });
    expect(r).toMatchObject({ answer_kind: 'extractive', model: 'none', grounded: true });
    expect(r.answer).toMatch(/^These passages match your question best \(found without a model\):/);
    expect(r.steps.map((s) => s.action)).toEqual(['find_passages']);
  });

  it('Find passages grades each passage: the termination clause is the likely answer, and nothing below the floor is listed', async () => {
    const r = await c.engine.router.call('chat.ask', { case_id: c.caseId, question, mode: 'extractive' });
    expect(r.answer).toMatch(
      /\n- Likely answer — MASTER SERVICES AGREEMENT, p\. 1: “Either party may terminate this Agreement for convenience upon sixty \(60\) days' prior written notice/,
    );
    expect(r.citations[0]).toMatchObject({ relevance: 'answer', support: 'quoted' });
    // A quote is always on the page; whether it answers is its relevance, and none shown is merely the closest.
    for (const cite of r.citations) expect(cite.relevance).toMatch(/^(answer|related)$/);
  });

  it('a fact no document gives: "the documents don\'t appear to say" first, then the closest passages, none graded as an answer', async () => {
    const tesla = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'Which Tesla vehicles does Brightline service under the MSA?',
      mode: 'extractive',
    });
    expect(tesla.answer).toMatch(
      /^The documents don't appear to say: no document mentions “Tesla”\. The closest passages, which do not answer the question:\n\n- /,
    );
    expect(tesla.citations.length).toBeGreaterThan(0);
    for (const cite of tesla.citations) expect(cite).toMatchObject({ relevance: 'closest', support: 'quoted' });
    // No name to miss: the passages themselves are too far from the question.
    const bitcoin = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'Can the Provider be paid in bitcoin?',
      mode: 'extractive',
    });
    expect(bitcoin.answer).toMatch(/^The documents don't appear to say\. The closest passages/);
    // In a large case a rarer word no document uses counts too (this case is small: the threshold lowered for it).
    const saved = RELEVANCE.rareWordsCase;
    RELEVANCE.rareWordsCase = 1;
    try {
      const large = await c.engine.router.call('chat.ask', {
        case_id: c.caseId,
        question: 'Can the Provider be paid in bitcoin?',
        mode: 'extractive',
      });
      expect(large.answer).toMatch(/^The documents don't appear to say: no document mentions “bitcoin”\./);
      const answered = await c.engine.router.call('chat.ask', { case_id: c.caseId, question, mode: 'extractive' });
      expect(answered.answer).toMatch(/^These passages match your question best/);
    } finally {
      RELEVANCE.rareWordsCase = saved;
    }
    // The same question's parts that are in the case are answered as before.
    const fees = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'Within how many days must the Client pay invoices?',
      mode: 'extractive',
    });
    expect(fees.answer).toMatch(/^These passages match your question best/);
    expect(fees.answer).toMatch(/forty-five \(45\) days of receipt/);
  });
  it('a question naming no model, when the only chat model is too small to answer: the passages at once, the model never loaded', async () => {
    const { smolLmGguf } = testModels();
    // Last in this block: the case's engine keeps the model from here on.
    await c.engine.router.call('models.import', { path: smolLmGguf, id: 'smollm2-135m-instruct', mode: 'link' });
    const { models } = await c.engine.router.call('models.list', {});
    expect(models.find((m) => m.kind === 'chat')).toMatchObject({
      id: 'smollm2-135m-instruct',
      too_small: true,
      is_default: true,
    });
    const r = await c.engine.router.call('chat.ask', { case_id: c.caseId, question });
    expect(r).toMatchObject({ answer_kind: 'extractive', model: 'none', grounded: true });
    expect(r.answer).toMatch(
      /^The installed chat model is too small to write answers worth waiting for, so here are the passages that match your question best:\n\n- Likely answer — MASTER SERVICES AGREEMENT/,
    );
    expect(r.steps.map((s) => s.action)).toEqual(['find_passages']);
    expect((await c.engine.agentService()).runtime().isLoaded(smolLmGguf)).toBe(false);
  });
});

describe('a case with nothing searchable', () => {
  let root: string;
  let engine: Engine;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'casefile-empty-'));
    engine = await Engine.open({ home: path.join(root, 'home') });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('is answered at once, without the model: what is there and why it cannot be searched', async () => {
    const dir = path.join(root, 'folder');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'scan-1.pdf'), await imageOnlyPdf());
    writeFileSync(path.join(dir, 'scan-2.pdf'), await imageOnlyPdf());
    copyFileSync(
      path.join(corpusDir, 'derived-odd-pdfs/ADIANUTRITION-RESELLER_user-password_lawyer123_aes256.pdf'),
      path.join(dir, 'locked.pdf'),
    );
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Scans only' });
    // OCR turned off for the case: its scans stay "need OCR".
    await engine.router.call('cases.setOcr', { case_id: caseId, enabled: false });
    await engine.router.call('ingest.start', { case_id: caseId, paths: [dir], wait: true });
    const script = path.join(root, 'script.json');
    writeFileSync(script, JSON.stringify({ steps: [{ final: 'no' }] }));
    const steps: unknown[] = [];
    const off = engine.events.on('agent.step', (e) => steps.push(e));
    const r = await engine.router.call('chat.ask', {
      case_id: caseId,
      question: 'Is there a non-compete?',
      model: `scripted:${script}`,
    });
    off();
    expect(r).toMatchObject({ status: 'done', answer_kind: 'no_documents', grounded: false, steps: [], citations: [] });
    expect(r.answer).toBe(
      'This case has no searchable documents yet: 2 need OCR (scanned, no text layer), 1 is password protected. 3 files in all; the documents list says what to do for each.',
    );
    expect(steps).toEqual([]);

    const { id: empty } = await engine.router.call('cases.create', { name: 'Nothing yet' });
    const none = await engine.router.call('chat.ask', {
      case_id: empty,
      question: 'Is there a non-compete?',
      model: `scripted:${script}`,
    });
    expect(none.answer).toBe('This case has no documents yet. Add a folder or files to it, then ask again.');
  });
});

describe('verification with the case’s embedding model (all-MiniLM-L6-v2, real)', () => {
  let root: string;
  let engine: Engine;
  let caseId: string;
  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'casefile-verify-'));
    const home = path.join(root, 'home');
    await installTestModels(home);
    engine = await Engine.open({ home });
    caseId = (await engine.router.call('cases.create', { name: 'Rivera v. Acme' })).id;
    await engine.router.call('ingest.start', { case_id: caseId, paths: [writeCaseFolder(root)], wait: true });
  });
  afterAll(async () => {
    await engine?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const ask = (final: string) =>
    engine.router.call('chat.ask', {
      case_id: caseId,
      question: 'What notice is needed to terminate the MSA for convenience?',
      model: scriptModel(root, {
        steps: [
          { thought: 'Inventory.', action: 'findFiles', action_input: {} },
          { thought: 'Search.', action: 'grepCase', action_input: { pattern: 'convenience' } },
          { final },
        ],
      }),
    });

  it('a paraphrase is supported; the same words about another clause, a changed number or another party are not', async () => {
    const ok = await ask(
      "Either side can end the MSA without cause by giving the other party sixty days' written notice in advance [cite:{{cite}}].",
    );
    expect(ok.citations[0]).toMatchObject({ support: 'supported', verified: true });
    expect(ok.answer_kind).toBe('agent');

    const number = await ask(
      "Either side can end the MSA without cause by giving the other party ninety days' written notice in advance [cite:{{cite}}].",
    );
    expect(number.fallback!.model_answer).toMatch(/ninety days/);
    const checked = await engine.router.call('chat.session', { case_id: caseId, session_id: number.session_id });
    expect(checked.messages_list[1]!.answer_kind).toBe('extractive');

    const other = await ask(
      'The Provider must keep all Confidential Information secret for five years after termination [cite:{{cite}}].',
    );
    expect(other.answer_kind).toBe('extractive');
    expect(other.fallback!.reason).toMatch(/no sentence of the model's answer is supported/);
  });
});
