import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { jsonSchema, Output, streamText, type ModelMessage } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SMALL_MODEL_TOOLS } from '../../src/core/agent/agent-tools';
import { LlamaLanguageModel, LlamaRuntime } from '../../src/core/agent/llama-provider';
import type { EngineEvents } from '../../src/shared/events';
import { stories260kGguf, tinyRandomGguf } from '../helpers/models';
import { ingestedCase, type IngestedCase } from './helpers';

/**
 * The real node-llama-cpp path with a tiny random-weight GGUF: its words are gibberish, so these
 * tests assert mechanics — loading through production code, grammar-constrained steps that always
 * parse, the step budget, streaming and cancellation — never content.
 */
const AGENT = {
  llama: { threads: 1, contextSize: 2048, idleUnloadMs: 0 },
  maxOutputTokens: 512,
  thoughtChars: 48,
  answerChars: 160,
  argChars: 32,
  passageChars: 160,
  observationChars: 900,
};

describe('LlamaLanguageModel – provider', () => {
  const runtime = new LlamaRuntime({ threads: 1, contextSize: 1024, idleUnloadMs: 0 });
  afterAll(async () => {
    await runtime.close();
  });

  it('streams tokens, honours max tokens and reports usage; the model is loaded once', async () => {
    const model = new LlamaLanguageModel(runtime, tinyRandomGguf);
    const deltas: string[] = [];
    const result = streamText({ model, prompt: 'Hello', maxOutputTokens: 12, maxRetries: 0 });
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe('length');
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(12);
    expect(usage.inputTokens).toBeGreaterThan(0);
    const first = await runtime.acquire(tinyRandomGguf);
    const again = streamText({
      model: new LlamaLanguageModel(runtime, tinyRandomGguf),
      prompt: 'Hi',
      maxOutputTokens: 4,
      maxRetries: 0,
    });
    await again.text;
    expect(await runtime.acquire(tinyRandomGguf)).toBe(first);
  });

  it('JSON-schema output – the grammar makes random weights produce valid JSON of the schema', async () => {
    const model = new LlamaLanguageModel(runtime, tinyRandomGguf);
    const schema = {
      type: 'object',
      properties: { action: { enum: ['findFiles', 'final_answer'] }, note: { type: 'string', maxLength: 20 } },
      required: ['action', 'note'],
    };
    const result = streamText({
      model,
      prompt: 'Pick an action.',
      maxOutputTokens: 120,
      maxRetries: 0,
      output: Output.object({ schema: jsonSchema(schema) }),
    });
    const text = await result.text;
    const value = JSON.parse(text) as { action: string; note: string };
    expect(['findFiles', 'final_answer']).toContain(value.action);
    expect(value.note.length).toBeLessThanOrEqual(20);
  });

  it('the cache – each call of a growing conversation evaluates only what was added, the answer-only step (another grammar) included', async () => {
    const model = new LlamaLanguageModel(runtime, tinyRandomGguf);
    const system = 'You answer questions about the documents of one legal case, citing each passage you use. '.repeat(
      8,
    );
    const any = {
      type: 'object',
      properties: { action: { enum: ['retrieve', 'final_answer'] }, note: { type: 'string', maxLength: 12 } },
      required: ['action', 'note'],
    };
    const answerOnly = {
      type: 'object',
      properties: { action: { const: 'final_answer' }, note: { type: 'string', maxLength: 12 } },
      required: ['action', 'note'],
    };
    const messages: ModelMessage[] = [{ role: 'user', content: 'Question: when does the lease end?' }];
    const evaluated: number[] = [];
    for (const [i, schema] of [any, any, answerOnly].entries()) {
      const r = streamText({
        model,
        system,
        messages,
        maxOutputTokens: 40,
        maxRetries: 0,
        temperature: 0,
        output: Output.object({ schema: jsonSchema(schema) }),
      });
      const text = await r.text;
      evaluated.push((await r.usage).inputTokens ?? 0);
      messages.push(
        { role: 'assistant', content: text },
        { role: 'user', content: `Observation ${i + 1}: ${'The term ends on the first of January 2030. '.repeat(3)}` },
      );
    }
    // The first call reads the whole prompt; each later one only the reply and the observation added since.
    expect(evaluated[0]).toBeGreaterThan(120);
    expect(evaluated[1]).toBeLessThan(evaluated[0]! / 2);
    expect(evaluated[2]).toBeLessThan(evaluated[0]! / 2);
  });

  it('stop sequences – generation ends at the first stop sequence', async () => {
    const model = new LlamaLanguageModel(runtime, stories260kGguf);
    const result = streamText({
      model,
      prompt: 'Once upon a time',
      maxOutputTokens: 200,
      maxRetries: 0,
      stopSequences: ['.'],
    });
    const text = await result.text;
    expect(await result.finishReason).toBe('stop');
    expect(text).not.toContain('.');
  });

  it('idle unload – a model unused for the configured time is unloaded, and loads again on the next call', async () => {
    // Long enough that the model is still loaded when the first call returns on a busy machine.
    const idle = new LlamaRuntime({ threads: 1, contextSize: 512, idleUnloadMs: 1000 });
    try {
      const model = new LlamaLanguageModel(idle, tinyRandomGguf);
      await streamText({ model, prompt: 'a', maxOutputTokens: 2, maxRetries: 0 }).text;
      expect(idle.isLoaded(tinyRandomGguf)).toBe(true);
      await vi.waitFor(() => expect(idle.isLoaded(tinyRandomGguf)).toBe(false), { timeout: 10_000, interval: 20 });
      expect(await streamText({ model, prompt: 'b', maxOutputTokens: 2, maxRetries: 0 }).text).toBeTypeOf('string');
    } finally {
      await idle.close();
    }
  });

  it('abort – an aborted call stops generating', async () => {
    const model = new LlamaLanguageModel(runtime, tinyRandomGguf);
    const controller = new AbortController();
    let chunks = 0;
    const result = streamText({
      model,
      prompt: 'Go on',
      maxOutputTokens: 2000,
      maxRetries: 0,
      abortSignal: controller.signal,
      onError: () => {},
    });
    for await (const _ of result.textStream) {
      if (++chunks === 3) controller.abort();
    }
    expect(chunks).toBeLessThan(20);
  });
});

describe('case agent on node-llama-cpp (tiny random model)', () => {
  let c: IngestedCase;
  beforeAll(async () => {
    c = await ingestedCase({ agent: AGENT });
  });
  afterAll(async () => {
    await c?.engine.close();
    if (c) rmSync(c.root, { recursive: true, force: true });
  });

  it('every step parses under the grammar, the inventory comes first, and the loop ends within max steps', async () => {
    const tokens: EngineEvents['agent.token'][] = [];
    const off = c.engine.events.on('agent.token', (e) => tokens.push(e));
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice is needed to terminate the MSA?',
      model: tinyRandomGguf,
      max_steps: 2,
    });
    off();
    expect(r.status).toBe('done');
    expect(r.model).toBe('llama-2-tiny-random.gguf');
    // Random weights never write a supported answer: the passages found end the turn (find_passages).
    expect(r.answer_kind).toBe('extractive');
    expect(r.steps.at(-1)!.action).toBe('find_passages');
    const modelSteps = r.steps.slice(0, -1);
    expect(modelSteps.length).toBeGreaterThan(0);
    expect(modelSteps.length).toBeLessThanOrEqual(3);
    expect(modelSteps.filter((s) => s.kind === 'action').length).toBeLessThanOrEqual(2);
    expect(modelSteps.at(-1)!.kind).toBe('final');
    for (const s of modelSteps) {
      expect(s.repaired, JSON.stringify(s)).toBeFalsy();
      expect(s.policy ?? '').not.toMatch(/could not be parsed/);
      // A step the policy ran on its own, right after another, asked the model nothing.
      if (s.timing.model_ms > 0) expect(s.tokens.output).toBeGreaterThan(0);
      // A model this small gets the short catalogue of tools.
      if (s.kind === 'action') expect(SMALL_MODEL_TOOLS).toContain(s.action);
    }
    expect(r.steps[0]!.action).toBe('findFiles');
    expect(tokens.length).toBeGreaterThan(0);
    expect(tokens.every((t) => t.turn_id === r.turn_id && t.case_id === c.caseId)).toBe(true);
    // The passages shown are quoted exactly, so they verify.
    for (const cite of r.citations) expect(cite).toMatchObject({ status: 'verified', support: 'quoted' });
  });

  it('a broken model file – the turn fails with a reason the user can act on, and says so in agent.done', async () => {
    const junk = path.join(c.root, 'broken.gguf');
    writeFileSync(junk, 'GGUF but not really a model');
    const done: EngineEvents['agent.done'][] = [];
    const off = c.engine.events.on('agent.done', (e) => done.push(e));
    await expect(
      c.engine.router.call('chat.ask', { case_id: c.caseId, question: 'q?', model: junk }),
    ).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/broken\.gguf could not be loaded/),
      // What to do, in each shell's words: the app names its menu, never a command.
      remedy: { app: expect.stringMatching(/Settings › Models/), cli: expect.stringMatching(/casefile models import/) },
    });
    off();
    expect(done[0]!.result).toMatchObject({ status: 'failed', error: expect.stringMatching(/could not be loaded/) });
  });

  it('cancel – a running turn stops promptly and keeps its partial trace', async () => {
    const turnId = 'tcancelme01';
    let after = 0;
    let cancelled = false;
    const off = c.engine.events.on('agent.token', (e) => {
      if (e.turn_id !== turnId) return;
      if (cancelled) after++;
      else {
        cancelled = true;
        void c.engine.router.call('chat.cancel', { turn_id: turnId });
      }
    });
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'List every visit.',
      model: tinyRandomGguf,
      turn_id: turnId,
    });
    off();
    expect(r.status).toBe('cancelled');
    expect(r.steps.length).toBeLessThanOrEqual(1);
    expect(after).toBeLessThan(20);
    const session = await c.engine.router.call('chat.session', { case_id: c.caseId, session_id: r.session_id });
    expect(session.messages_list.at(-1)).toMatchObject({ role: 'assistant', status: 'cancelled' });
  });
});
