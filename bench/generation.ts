/**
 * `npm run bench generation`: the viewer and the lists while a local model writes. On a case of two
 * CUAD development agreements, with the real embedding model and SmolLM2-135M, it times the engine
 * calls the app makes — a page open (citations.page and citations.words together, as the viewer
 * asks for them), a search (hybrid: keywords and the question's vector) and the documents list —
 * idle, then while the model writes long answers (one after another until the round is done), in
 * the same run: with generation in the model process (the app's path, `AgentService.resolve`) and,
 * for comparison, on the engine's own thread as it ran before; each with the default threads and
 * with every core; idle once more at the end. Medians, the ratio to idle, and the engine thread's
 * longest lag.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { streamText } from 'ai';
import { LlamaHost } from '../src/core/agent/llama-host';
import { LlamaLanguageModel, LlamaRuntime } from '../src/core/agent/llama-provider';
import { Engine } from '../src/core/engine';
import { installTestModels, testModels } from '../test/helpers/models';
import type { Metrics } from './run';

const CUAD_PDFS = path.resolve(import.meta.dirname, '..', '..', 'shared', 'corpus', 'cuad', 'full_contract_pdf');
const TWO_CONTRACTS = [
  'Part_I/Development/EmeraldHealthBioceuticalsInc_20200218_1-A_EX1A-6 MAT CTRCT_11987205_EX1A-6 MAT CTRCT_Development Agreement.pdf',
  'Part_I/Development/LegacyEducationAllianceInc_20200330_10-K_EX-10.18_12090678_EX-10.18_Development Agreement.pdf',
];
const ROUNDS = Number(process.env.CASEFILE_BENCH_GEN_ROUNDS) || 8;
const QUERIES = [
  'termination for convenience notice',
  'governing law of the agreement',
  'intellectual property ownership',
  'payment terms and invoices',
  'confidential information',
  'limitation of liability',
  'indemnification obligations',
  'term and renewal',
];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

interface Timings {
  page: number[];
  search: number[];
  list: number[];
}

/** One round of the calls the app makes: a page open (image and words), a search, the documents list. */
async function round(engine: Engine, caseId: string, files: { id: string; pages: number }[], i: number, t: Timings) {
  const file = files[i % files.length]!;
  const page = 1 + (i % file.pages);
  t.page.push(
    await timed(() =>
      Promise.all([
        engine.router.call('citations.page', { case_id: caseId, file_id: file.id, page, scale: 1.5 }),
        engine.router.call('citations.words', { case_id: caseId, file_id: file.id, page }),
      ]),
    ),
  );
  t.search.push(
    await timed(() => engine.router.call('search', { case_id: caseId, query: QUERIES[i % QUERIES.length]! })),
  );
  t.list.push(await timed(() => engine.router.call('files.list', { case_id: caseId })));
}

/** The loop's lag: the longest a timer waited past its time, sampled every 10 ms until stopped. */
function lagMeter(): { stop: () => number } {
  let last = performance.now();
  let worst = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last - 10);
    last = now;
  }, 10);
  return {
    stop: () => {
      clearInterval(timer);
      return worst;
    },
  };
}

/** Generations one after another (each a long answer) until `stop` is aborted; text parts streamed in all. */
async function keepWriting(model: LanguageModelV4, stop: AbortSignal, started: () => void): Promise<number> {
  let parts = 0;
  while (!stop.aborted) {
    const r = streamText({
      model,
      prompt: 'Write a long, detailed story about a lawyer who reads every page of a contract, clause by clause.',
      maxOutputTokens: 1500,
      maxRetries: 0,
      abortSignal: stop,
      onError: () => {},
    });
    try {
      for await (const _ of r.textStream) if (parts++ === 0) started();
    } catch {
      // stopped
    }
  }
  return parts;
}

interface Phase {
  timings: Timings;
  /** The engine thread's longest lag (ms) during the phase, model loading included. */
  lag: number;
  partsPerS: number;
}

type Round = (i: number, t: Timings) => Promise<void>;

/** `ROUNDS` rounds with nothing else running, or while `model` writes (timed from its first text part). */
async function phase(run: Round, from: number, model?: LanguageModelV4): Promise<Phase> {
  const timings: Timings = { page: [], search: [], list: [] };
  const lag = lagMeter();
  if (!model) {
    for (let i = 0; i < ROUNDS; i++) await run(from + i, timings);
    return { timings, lag: lag.stop(), partsPerS: 0 };
  }
  const stop = new AbortController();
  let writing!: () => void;
  const isWriting = new Promise<void>((resolve) => {
    writing = resolve;
  });
  const writer = keepWriting(model, stop.signal, writing);
  await isWriting;
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) await run(from + i, timings);
  const seconds = (performance.now() - t0) / 1000;
  stop.abort();
  const parts = await writer;
  return { timings, lag: lag.stop(), partsPerS: parts / seconds };
}

export async function generationBench(): Promise<Metrics> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'casefile-bench-gen-'));
  const home = path.join(root, 'home');
  await installTestModels(home, { embedding: true, chat: true });
  const { smolLmGguf } = testModels();
  const engine = await Engine.open({ home });
  const all = os.availableParallelism();
  // The way generation ran before it had a process of its own, for the comparison: on this thread.
  const inProcess = new LlamaRuntime({});
  const inProcessAll = new LlamaRuntime({ threads: all });
  const processAll = new LlamaHost({ threads: all });
  try {
    const { id: caseId } = await engine.router.call('cases.create', { name: 'Two development agreements' });
    await engine.router.call('ingest.start', {
      case_id: caseId,
      paths: TWO_CONTRACTS.map((f) => path.join(CUAD_PDFS, f)),
      wait: true,
    });
    const listed = await engine.router.call('files.list', { case_id: caseId });
    const files = listed.files.map((f) => ({ id: f.id, pages: f.versions.at(-1)!.pages ?? 1 }));
    const run: Round = (i, t) => round(engine, caseId, files, i, t);
    await run(0, { page: [], search: [], list: [] }); // warm-up: workers started, case open
    // The app's path: the model a turn gets (its own process, below the app).
    const { model } = await (await engine.agentService()).resolve(smolLmGguf);
    const phases = {
      idle: await phase(run, 1),
      in_process: await phase(run, 1 + ROUNDS, new LlamaLanguageModel(inProcess, smolLmGguf)),
      process: await phase(run, 1 + 2 * ROUNDS, model),
      in_process_all_cores: await phase(run, 1 + 3 * ROUNDS, new LlamaLanguageModel(inProcessAll, smolLmGguf)),
      process_all_cores: await phase(run, 1 + 4 * ROUNDS, processAll.languageModel(smolLmGguf)),
    };
    // Idle again at the end, its rounds added to the first ones: on a shared machine the load
    // beside the bench drifts over the minutes of the run.
    const after = await phase(run, 1);
    for (const k of ['page', 'search', 'list'] as const) phases.idle.timings[k].push(...after.timings[k]);
    phases.idle.lag = Math.max(phases.idle.lag, after.lag);
    return metricsOf(phases, all);
  } finally {
    await Promise.all([inProcess.close(), inProcessAll.close(), processAll.close()]);
    await engine.close();
    rmSync(root, { recursive: true, force: true });
  }
}

const WHAT = {
  page: 'a page open: citations.page (scale 1.5) and citations.words together',
  search: 'a search (hybrid: BM25 and the query vector)',
  list: 'the documents list (files.list)',
} as const;

function metricsOf(phases: Record<string, Phase>, cores: number): Metrics {
  const out: Metrics = {};
  const how: Record<string, string> = {
    in_process: `SmolLM2-135M writing on the engine's thread (before: node-llama-cpp in the engine), ${Math.max(1, cores - 1)} thread(s)`,
    process: `SmolLM2-135M writing in the model process at low priority (the app's path), ${Math.max(1, cores - 1)} thread(s)`,
    in_process_all_cores: `SmolLM2-135M writing on the engine's thread with ${cores} threads (every core)`,
    process_all_cores: `SmolLM2-135M writing in the model process with ${cores} threads (every core), low priority`,
  };
  const idle = phases.idle!;
  for (const k of ['page', 'search', 'list'] as const) {
    const base = median(idle.timings[k]);
    out[`generation.${k}_ms.idle`] = {
      value: base,
      unit: 'ms',
      note: `median of ${2 * ROUNDS} (before and after the rest), ${WHAT[k]}, no model writing`,
    };
    for (const [name, p] of Object.entries(phases)) {
      if (name === 'idle') continue;
      const m = median(p.timings[k]);
      out[`generation.${k}_ms.${name}`] = {
        value: m,
        unit: 'ms',
        note: `median of ${ROUNDS}, ${WHAT[k]}, while ${how[name]}; worst ${Math.max(...p.timings[k]).toFixed(0)} ms`,
      };
      out[`generation.${k}_ratio.${name}`] = {
        value: m / base,
        unit: 'ratio',
        note: `${k}: while writing (${name}) ÷ idle`,
      };
    }
  }
  for (const [name, p] of Object.entries(phases)) {
    out[`generation.loop_lag_ms.${name}`] = {
      value: p.lag,
      unit: 'ms',
      note: `the engine thread's longest lag (a 10 ms timer late by this much) during the phase${name === 'idle' ? '' : ', model load included'}`,
    };
    if (name !== 'idle')
      out[`generation.text_parts_per_s.${name}`] = {
        value: p.partsPerS,
        unit: 'parts/s',
        note: `text parts streamed per second while the calls above ran (${name})`,
      };
  }
  return out;
}
