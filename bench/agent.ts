/**
 * Agent benchmarks:
 *  - agent.step_overhead_ms: the loop's own cost per step with the model's time taken out
 *    (prompt building, parsing, tool calls on a real ingested case, dedup, verification);
 *  - agent.llama_tokens_per_s_provider / _direct and agent.provider_speed_ratio: tokens/s of the
 *    tiny GGUF through the `ai` SDK provider (streamText → LlamaLanguageModel) vs node-llama-cpp's
 *    LlamaChat called directly, same model file, threads and prompt (ratio ≥ 0.95 means the
 *    provider costs under 5%).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { streamText } from 'ai';
import { agentToolsFor } from '../src/core/agent/agent-tools';
import { LlamaLanguageModel, LlamaRuntime } from '../src/core/agent/llama-provider';
import { runAgent } from '../src/core/agent/loop';
import { ModelScript, ScriptedLanguageModel } from '../src/core/agent/scripted';
import { CitationLedger } from '../src/core/citations/ledger';
import { Engine } from '../src/core/engine';
import { openCaseTools } from '../src/core/tools/index';
import { caseDocumentSource } from '../src/core/tools/source';
import { writeCaseFolder } from '../test/agent/helpers';

type Metrics = Record<string, { value: number; unit: string; note: string }>;

const TINY = path.resolve(import.meta.dirname, '..', '..', 'shared', 'models', 'llama-2-tiny-random', 'llama-2-tiny-random.gguf');

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
    await engine.router.call('ingest.start', { caseId, paths: [writeCaseFolder(root)], wait: true });
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
      'agent.step_overhead_ms': { value: median(perStep), unit: 'ms', note: 'median per step, model time excluded (prompt, parsing, real tools on a 4-file case, dedup, verification); scripted model' },
      'agent.step_tool_ms': { value: median(toolPerStep), unit: 'ms', note: 'median tool time per step within the overhead above (LanceDB BM25, grep, inventory)' },
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
    await chat.generateResponse([{ type: 'user', text: prompt }, { type: 'model', response: [] }], { maxTokens, temperature: 0, onToken: (t) => (tokens += t.length), onTextChunk: () => {} });
    return tokens / ((performance.now() - t0) / 1000);
  };
  const runtime = new LlamaRuntime({ threads, contextSize: 1024, idleUnloadMs: 0 });
  const provider = new LlamaLanguageModel(runtime, TINY);
  const viaProvider = async (): Promise<number> => {
    const t0 = performance.now();
    const { stream } = await provider.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: prompt }] }], maxOutputTokens: maxTokens, temperature: 0 });
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
      'agent.llama_tokens_per_s_direct': { value: md, unit: 'tokens/s', note: `tiny random GGUF, node-llama-cpp LlamaChat directly, ${threads} thread, ${maxTokens} tokens, median of 9` },
      'agent.llama_tokens_per_s_provider': { value: mp, unit: 'tokens/s', note: 'same model, prompt and threads through the provider (LlamaLanguageModel.doStream, LanguageModelV4), median of 9' },
      'agent.provider_speed_ratio': { value: mp / md, unit: 'ratio', note: 'provider tokens/s ÷ direct tokens/s (≥ 0.95 = the provider costs under 5%)' },
      'agent.llama_tokens_per_s_streamtext': { value: ms, unit: 'tokens/s', note: 'the same through the whole ai SDK (streamText over the provider), as the loop calls it' },
      'agent.streamtext_speed_ratio': { value: ms / md, unit: 'ratio', note: 'streamText tokens/s ÷ direct (SDK stream plumbing included; per-token cost matters only for very fast tiny models)' },
    };
  } finally {
    chat.dispose();
    await context.dispose();
    await model.dispose();
    await runtime.close();
  }
}

export async function agentBench(): Promise<Metrics> {
  return { ...(await stepOverhead()), ...(await providerVsDirect()) };
}
