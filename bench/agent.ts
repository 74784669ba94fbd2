/**
 * Agent benchmarks:
 *  - agent.first_answer_ms_p95.*: answer first — from a question to its first cited answer on the
 *    94 CUAD contracts as one case, with no model, a slow scripted model and SmolLM2-135M (the
 *    turn is cancelled once the passages are out; the model's time does not count);
 *  - agent.turn.*: what a turn spends with SmolLM2-135M on a case of two development agreements —
 *    model calls, prompt tokens evaluated, tokens generated, model time, turn time, repeated calls;
 *  - agent.step_overhead_ms: the loop's own cost per step with the model's time taken out
 *    (prompt building, parsing, tool calls on a real ingested case, dedup, verification);
 *  - agent.llama_tokens_per_s_provider / _direct and agent.provider_speed_ratio: tokens/s of the
 *    tiny GGUF through the `ai` SDK provider (streamText → LlamaLanguageModel) vs node-llama-cpp's
 *    LlamaChat called directly, same model file, threads and prompt (ratio ≥ 0.95 means the
 *    provider costs under 5%).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { streamText } from 'ai';
import { agentToolsFor } from '../src/core/agent/agent-tools';
import { LlamaLanguageModel, LlamaRuntime } from '../src/core/agent/llama-provider';
import { runAgent } from '../src/core/agent/loop';
import { ModelScript, ScriptedLanguageModel } from '../src/core/agent/scripted';
import { CitationLedger } from '../src/core/domain/citation-ledger';
import { Engine } from '../src/core/engine';
import { openCaseTools } from '../src/core/tools/index';
import { caseDocumentSource } from '../src/core/tools/source';
import { writeCaseFolder } from '../test/agent/helpers';
import { installTestModels, testModels } from '../test/helpers/models';

type Metrics = Record<string, { value: number; unit: string; note: string }>;

const TINY = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'shared',
  'models',
  'llama-2-tiny-random',
  'llama-2-tiny-random.gguf',
);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const SCRIPT = ModelScript.parse({
  steps: [
    { thought: 'Inventory.', action: 'findFiles', action_input: {} },
    { thought: 'Search.', action: 'keyword_search', action_input: { query: 'terminate agreement written notice' } },
    { thought: 'Confirm wording.', action: 'grepCase', action_input: { pattern: 'sixty \\(60\\) days' } },
    { thought: 'Context.', action: 'retrieve', action_input: { query: 'material breach cure period' } },
    { final: 'Either party may terminate "upon sixty (60) days\' prior written notice" [cite:{{cite}}].' },
  ],
});

async function stepOverhead(): Promise<Metrics> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-agent-'));
  const engine = await Engine.open({ home: path.join(root, 'home') });
  try {
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Bench' });
    await engine.router.call('ingest.start', { case_id: caseId, paths: [writeCaseFolder(root)], wait: true });
    const docs = caseDocumentSource(await engine.openCases.open(caseId));
    const perStep: number[] = [];
    const toolPerStep: number[] = [];
    for (let i = 0; i < 12; i++) {
      const ledger = new CitationLedger();
      const tools = agentToolsFor(await openCaseTools(engine, caseId, { ledger }));
      const r = await runAgent({
        model: new ScriptedLanguageModel(SCRIPT),
        format: 'json',
        tools,
        question: 'What notice is needed to terminate the MSA?',
        citations: ledger,
        sourceText: async (f, v) => (await docs.readText(f, v))?.text ?? null,
      });
      if (i < 2) continue; // warm-up
      perStep.push((r.timing.total_ms - r.timing.model_ms) / r.steps.length);
      toolPerStep.push(r.timing.tool_ms / r.steps.length);
    }
    return {
      'agent.step_overhead_ms': {
        value: median(perStep),
        unit: 'ms',
        note: 'median per step, model time excluded (prompt, parsing, real tools on a 4-file case, dedup, verification); scripted model',
      },
      'agent.step_tool_ms': {
        value: median(toolPerStep),
        unit: 'ms',
        note: 'median tool time per step within the overhead above (LanceDB BM25, grep, inventory)',
      },
    };
  } finally {
    await engine.close();
    rmSync(root, { recursive: true, force: true });
  }
}

async function providerVsDirect(): Promise<Metrics> {
  const threads = 1;
  const maxTokens = 200;
  const prompt = 'Write a long story about a lawyer and a contract.';
  const { getLlama, LlamaChat } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: 'auto', build: 'never' });
  const model = await llama.loadModel({ modelPath: TINY });
  const context = await model.createContext({ contextSize: 1024, threads });
  const chat = new LlamaChat({ contextSequence: context.getSequence() });
  const direct = async (): Promise<number> => {
    let tokens = 0;
    const t0 = performance.now();
    await chat.generateResponse(
      [
        { type: 'user', text: prompt },
        { type: 'model', response: [] },
      ],
      { maxTokens, temperature: 0, onToken: (t) => (tokens += t.length), onTextChunk: () => {} },
    );
    return tokens / ((performance.now() - t0) / 1000);
  };
  const runtime = new LlamaRuntime({ threads, contextSize: 1024, idleUnloadMs: 0 });
  const provider = new LlamaLanguageModel(runtime, TINY);
  const viaProvider = async (): Promise<number> => {
    const t0 = performance.now();
    const { stream } = await provider.doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }],
      maxOutputTokens: maxTokens,
      temperature: 0,
    });
    let tokens = 0;
    for await (const part of stream) if (part.type === 'finish') tokens = part.usage.outputTokens.total ?? 0;
    return tokens / ((performance.now() - t0) / 1000);
  };
  const viaSdk = async (): Promise<number> => {
    const t0 = performance.now();
    const r = streamText({ model: provider, prompt, maxOutputTokens: maxTokens, temperature: 0, maxRetries: 0 });
    for await (const _ of r.textStream) {
      // consume as a caller would
    }
    const tokens = (await r.usage).outputTokens ?? 0;
    return tokens / ((performance.now() - t0) / 1000);
  };
  try {
    await direct();
    await viaProvider();
    await viaSdk();
    const d: number[] = [];
    const p: number[] = [];
    const s: number[] = [];
    for (let i = 0; i < 9; i++) {
      d.push(await direct());
      p.push(await viaProvider());
      s.push(await viaSdk());
    }
    const md = median(d);
    const mp = median(p);
    const ms = median(s);
    return {
      'agent.llama_tokens_per_s_direct': {
        value: md,
        unit: 'tokens/s',
        note: `tiny random GGUF, node-llama-cpp LlamaChat directly, ${threads} thread, ${maxTokens} tokens, median of 9`,
      },
      'agent.llama_tokens_per_s_provider': {
        value: mp,
        unit: 'tokens/s',
        note: 'same model, prompt and threads through the provider (LlamaLanguageModel.doStream, LanguageModelV4), median of 9',
      },
      'agent.provider_speed_ratio': {
        value: mp / md,
        unit: 'ratio',
        note: 'provider tokens/s ÷ direct tokens/s (≥ 0.95 = the provider costs under 5%)',
      },
      'agent.llama_tokens_per_s_streamtext': {
        value: ms,
        unit: 'tokens/s',
        note: 'the same through the whole ai SDK (streamText over the provider), as the loop calls it',
      },
      'agent.streamtext_speed_ratio': {
        value: ms / md,
        unit: 'ratio',
        note: 'streamText tokens/s ÷ direct (SDK stream plumbing included; per-token cost matters only for very fast tiny models)',
      },
    };
  } finally {
    chat.dispose();
    await context.dispose();
    await model.dispose();
    await runtime.close();
  }
}

const CUAD_PDFS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'cuad', 'full_contract_pdf');
const CLIENT_QUESTIONS = path.join(import.meta.dirname, 'data', 'cuad-client-questions.jsonl');

function p95(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]!;
}

/** A home with the test models installed and one case of `files`, searchable by meaning. */
async function caseOf(root: string, name: string, files: string[]): Promise<{ engine: Engine; caseId: string }> {
  const home = path.join(root, 'home');
  await installTestModels(home, { embedding: true, chat: true });
  const engine = await Engine.open({ home });
  const { id: caseId } = await engine.router.call('cases.create', { name });
  await engine.router.call('ingest.start', { case_id: caseId, paths: files, wait: true });
  return { engine, caseId };
}

/** Time from the question to the agent.passages event (then the turn is cancelled), or to the answer when there is no model. */
async function firstAnswerMs(engine: Engine, caseId: string, question: string, model: string | null): Promise<number> {
  const turnId = `tbench${Math.random().toString(36).slice(2, 12)}`;
  const off = engine.events.on('agent.passages', (e) => {
    if (e.turn_id === turnId) void engine.router.call('chat.cancel', { turn_id: turnId });
  });
  try {
    const r = await engine.router.call('chat.ask', {
      case_id: caseId,
      question,
      turn_id: turnId,
      ...(model ? { model } : { mode: 'extractive' as const }),
    });
    return r.timing.first_answer_ms ?? r.timing.total_ms;
  } finally {
    off();
  }
}

/**
 * Answer first on the 94-contract case. CASEFILE_BENCH_AGENT_HOME (and CASEFILE_BENCH_AGENT_CASE, a
 * case id; default its first case): a home that already holds them, to skip the ingest.
 */
async function firstAnswer(): Promise<Metrics> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-first-'));
  const given = process.env.CASEFILE_BENCH_AGENT_HOME;
  let engine: Engine;
  let caseId: string;
  if (given) {
    engine = await Engine.open({ home: given });
    caseId = process.env.CASEFILE_BENCH_AGENT_CASE ?? (await engine.router.call('cases.list', {})).cases[0]!.id;
  } else {
    const pdfs = readdirSync(CUAD_PDFS, { recursive: true, encoding: 'utf8' })
      .filter((f) => /\.pdf$/i.test(f))
      .map((f) => path.join(CUAD_PDFS, f));
    ({ engine, caseId } = await caseOf(root, 'Bench 94 contracts', pdfs));
  }
  const slow = path.join(root, 'slow.json');
  writeFileSync(
    slow,
    JSON.stringify({
      steps: [{ thought: 'Inventory.', action: 'findFiles', action_input: {} }, { final: 'A slow answer.' }],
      chunkChars: 2,
      delayMs: 200,
    }),
  );
  const questions = readFileSync(CLIENT_QUESTIONS, 'utf8')
    .trim()
    .split('\n')
    .slice(0, 20)
    .map((l) => (JSON.parse(l) as { question: string }).question);
  const { smolLmGguf } = testModels();
  const out: Metrics = {};
  try {
    for (const [label, model] of [
      ['none', null],
      ['scripted_slow', `scripted:${slow}`],
      ['smollm2', smolLmGguf],
    ] as const) {
      await firstAnswerMs(engine, caseId, questions[0]!, model); // warm-up: models and caches load
      const ms: number[] = [];
      for (const q of questions) ms.push(await firstAnswerMs(engine, caseId, q, model));
      out[`agent.first_answer_ms_p95.${label}`] = {
        value: p95(ms),
        unit: 'ms',
        note: `answer first: question to the first cited answer (the passages), ${questions.length} cuad-client questions, 94-contract case, model: ${label}; median ${median(ms).toFixed(0)} ms`,
      };
    }
  } finally {
    await engine.close();
    rmSync(root, { recursive: true, force: true });
  }
  return out;
}

const TWO_CONTRACTS = [
  'Part_I/Development/EmeraldHealthBioceuticalsInc_20200218_1-A_EX1A-6 MAT CTRCT_11987205_EX1A-6 MAT CTRCT_Development Agreement.pdf',
  'Part_I/Development/LegacyEducationAllianceInc_20200330_10-K_EX-10.18_12090678_EX-10.18_Development Agreement.pdf',
];
const TURN_QUESTIONS = [
  'When does the development agreement with Emerald Health end?',
  'Which state law governs the Legacy Education agreement?',
  'Can either party assign the agreement without consent?',
  'What payment is due under the Emerald agreement?',
  'Who owns the intellectual property developed under the agreements?',
];

/** What a turn spends with SmolLM2-135M on two development agreements (the same five questions every run). */
async function turnSpending(): Promise<Metrics> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-turns-'));
  const { engine, caseId } = await caseOf(
    root,
    'Two development agreements',
    TWO_CONTRACTS.map((f) => path.join(CUAD_PDFS, f)),
  );
  const { smolLmGguf } = testModels();
  const runtime = (await engine.agentService()).runtime();
  const turns: {
    calls: number;
    evaluated: number;
    generated: number;
    modelS: number;
    totalS: number;
    repeats: number;
  }[] = [];
  try {
    for (const question of TURN_QUESTIONS) {
      const before = { ...runtime.usage };
      const r = await engine.router.call('chat.ask', { case_id: caseId, question, model: smolLmGguf });
      const keys = r.steps.filter((s) => s.kind === 'action').map((s) => `${s.action}${JSON.stringify(s.input)}`);
      turns.push({
        calls: r.steps.reduce((a, s) => a + (s.timing.model_ms > 0 ? (s.repaired ? 2 : 1) : 0), 0),
        evaluated: runtime.usage.input - before.input,
        generated: runtime.usage.output - before.output,
        modelS: r.steps.reduce((a, s) => a + s.timing.model_ms, 0) / 1000,
        totalS: r.timing.total_ms / 1000,
        repeats: keys.length - new Set(keys).size,
      });
    }
  } finally {
    await engine.close();
    rmSync(root, { recursive: true, force: true });
  }
  const note = `SmolLM2-135M, ${TURN_QUESTIONS.length} questions, two CUAD development agreements`;
  return {
    'agent.turn.model_calls_max': {
      value: Math.max(...turns.map((t) => t.calls)),
      unit: 'calls',
      note: `most model calls in one turn; ${note}`,
    },
    'agent.turn.model_calls_median': { value: median(turns.map((t) => t.calls)), unit: 'calls', note },
    'agent.turn.prompt_tokens_median': {
      value: median(turns.map((t) => t.evaluated)),
      unit: 'tokens',
      note: `prompt tokens evaluated per turn (what the cache did not hold); ${note}`,
    },
    'agent.turn.generated_tokens_median': { value: median(turns.map((t) => t.generated)), unit: 'tokens', note },
    'agent.turn.model_s_median': {
      value: median(turns.map((t) => t.modelS)),
      unit: 's',
      note: `model time per turn; ${note}`,
    },
    'agent.turn.total_s_max': {
      value: Math.max(...turns.map((t) => t.totalS)),
      unit: 's',
      note: `longest turn; ${note}`,
    },
    'agent.turn.repeated_calls': {
      value: turns.reduce((a, t) => a + t.repeats, 0),
      unit: 'calls',
      note: `tool calls run twice with the same input, all turns; ${note}`,
    },
  };
}

export async function agentBench(): Promise<Metrics> {
  return {
    ...(await stepOverhead()),
    ...(await providerVsDirect()),
    ...(await firstAnswer()),
    ...(await turnSpending()),
  };
}
