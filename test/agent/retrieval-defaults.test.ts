import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentStep } from '../../src/shared/contract/chat';
import type { EngineEvents } from '../../src/shared/events';
import { ingestedCase, scriptModel, type IngestedCase } from './helpers';

/**
 * A turn's retrieval defaults (Settings → top k, threshold, reranking) reach the agent's search
 * tools through the real `chat.ask`, with the scripted model as the only boundary.
 */
let c: IngestedCase;
beforeAll(async () => {
  c = await ingestedCase();
  // Twelve short letters that all mention the notice, so a search has more than eight passages to give.
  const dir = path.join(c.root, 'letters');
  mkdirSync(dir, { recursive: true });
  for (let i = 1; i <= 12; i++) {
    writeFileSync(
      path.join(dir, `letter-${i}.txt`),
      `Letter ${i}\n\nDear counsel, this letter number ${i} concerns the termination notice under the agreement and the notice period.\n`,
    );
  }
  await c.engine.router.call('ingest.start', { case_id: c.caseId, paths: [dir], wait: true });
}, 120_000);
afterAll(async () => {
  await c?.engine.close();
  if (c) rmSync(c.root, { recursive: true, force: true });
});

const FIND = { thought: 'Inventory.', action: 'findFiles', action_input: {} };
const search = (action: string, input: Record<string, unknown>) => ({
  thought: `Search with ${action}.`,
  action,
  action_input: { query: 'termination notice', ...input },
});
const stepsOf = (steps: AgentStep[], action: string) => steps.filter((s) => s.kind === 'action' && s.action === action);

describe('chat.ask retrieval defaults', () => {
  it('top_k 3 from the turn – retrieve returns at most 3 passages and the trace shows top_k 3; the model’s own top_k wins', async () => {
    const live: EngineEvents['agent.step'][] = [];
    const off = c.engine.events.on('agent.step', (e) => live.push(e));
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice do the letters mention?',
      retrieval: { top_k: 3 },
      model: scriptModel(c.root, {
        steps: [
          FIND,
          search('retrieve', {}),
          search('retrieve', { top_k: 5, file_name_contains: 'letter' }),
          { final: 'The termination notice [cite:{{cite}}].' },
        ],
      }),
    });
    off();
    expect(r.status).toBe('done');
    const [byDefault, explicit] = stepsOf(r.steps, 'retrieve');
    expect(byDefault!.input).toMatchObject({ query: 'termination notice', top_k: 3 });
    expect(byDefault!.defaults).toEqual(['top_k']);
    expect(byDefault!.summary!.count).toBe(3);
    expect(byDefault!.observation).toMatch(/^3 passages/);

    expect(explicit!.input).toMatchObject({ top_k: 5 });
    expect(explicit!.defaults).toBeUndefined();
    expect(explicit!.summary!.count).toBe(5);

    // The live timeline (the step as it starts) shows the same arguments, and so does the saved session.
    const started = live.filter((e) => e.turn_id === r.turn_id && e.phase === 'action' && e.step.action === 'retrieve');
    expect(started.map((e) => e.step.input.top_k)).toEqual([3, 5]);
    const saved = await c.engine.router.call('chat.session', { case_id: c.caseId, session_id: r.session_id });
    const savedSteps = saved.messages_list.find((m) => m.role === 'assistant')!.steps!;
    expect(stepsOf(savedSteps, 'retrieve').map((s) => s.input.top_k)).toEqual([3, 5]);
  });

  it('no retrieval settings – the agent keeps its own default of 8 passages, and the trace shows only the model’s arguments', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice do the letters mention?',
      model: scriptModel(c.root, {
        steps: [FIND, search('retrieve', {}), { final: 'The termination notice [cite:{{cite}}].' }],
      }),
    });
    const [step] = stepsOf(r.steps, 'retrieve');
    expect(step!.input).toEqual({ query: 'termination notice' });
    expect(step!.defaults).toBeUndefined();
    expect(step!.summary!.count).toBe(8);
  });

  it('threshold and reranking – the threshold applies to the tool of its mode only; rerank_top_n goes to retrieve only', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice do the letters mention?',
      retrieval: { top_k: 4, score_threshold: 1e6, score_threshold_mode: 'keyword', rerank_top_n: 10 },
      model: scriptModel(c.root, {
        steps: [
          FIND,
          search('keyword_search', {}),
          search('retrieve', {}),
          search('keyword_search', { score_threshold: 0 }),
          { final: 'The termination notice [cite:{{cite}}].' },
        ],
      }),
    });
    const [thresholded, overridden] = stepsOf(r.steps, 'keyword_search');
    const [hybrid] = stepsOf(r.steps, 'retrieve');
    // BM25 scores are far below a million: the keyword search keeps nothing, and says so.
    expect(thresholded!.error).toBeUndefined();
    expect(thresholded!.input).toEqual({ query: 'termination notice', top_k: 4, score_threshold: 1e6 });
    expect(thresholded!.defaults).toEqual(['top_k', 'score_threshold']);
    expect(thresholded!.summary!.count).toBe(0);
    // The hybrid search is not held to a keyword-scale threshold; it is asked to rerank (none installed here).
    expect(hybrid!.input).toEqual({ query: 'termination notice', top_k: 4, rerank_top_n: 10 });
    expect(hybrid!.summary!.count).toBe(4);
    // The model's own threshold wins over the turn's.
    expect(overridden!.input).toMatchObject({ score_threshold: 0, top_k: 4 });
    expect(overridden!.defaults).toEqual(['top_k']);
    expect(overridden!.summary!.count).toBe(4);
  });

  it('input – bad retrieval values are refused with the field named in plain words', async () => {
    const ask = (retrieval: unknown) =>
      c.engine.router.call('chat.ask', { case_id: c.caseId, question: 'q', retrieval } as never);
    await expect(ask({ top_k: 0 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/retrieval\.top_k: Passages per search must be a whole number from 1 to 100\./),
    });
    await expect(ask({ top_k: 101 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/retrieval\.top_k: Passages per search must be a whole number from 1 to 100\./),
    });
    await expect(ask({ top_k: 2.5 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/retrieval\.top_k: Passages per search must be a whole number/),
    });
    await expect(ask({ top_k: '3' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/retrieval\.top_k: Passages per search must be a whole number/),
    });
    await expect(ask({ score_threshold: 'high' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/retrieval\.score_threshold: The minimum match must be a number, such as 0\.5\./),
    });
    await expect(ask({ score_threshold_mode: 'fuzzy' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/hybrid, keyword or vector/),
    });
    await expect(ask({ rerank_top_n: 0 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(
        /retrieval\.rerank_top_n: The second check takes a whole number of passages from 1 to 200\./,
      ),
    });
    await expect(ask({ topK: 3 })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/retrieval.*topK/),
    });
  });
});
