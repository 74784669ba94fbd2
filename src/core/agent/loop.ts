/**
 * The ReAct loop: Thought → Action (+ JSON input) → Observation, until a Final Answer or the
 * step budget. Written against the `ai` SDK's language-model interface, so a local GGUF, an
 * OpenAI-compatible endpoint and the scripted test model all run the same code. The policy
 * lives here, in code, not only in the prompt.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { jsonSchema, Output, streamText, tool, type ModelMessage, type ToolSet } from 'ai';
import { z } from 'zod';
import type { AgentStep, CheckedCitation, Coverage } from '../../shared/contract/chat';
import { verifyCitations, type CitationLookup, type SourceText } from '../citations/verify';
import {
  FINAL,
  formatPassage,
  isExhaustiveQuestion,
  parseJsonStep,
  parseTextStep,
  partialJsonString,
  partialTextStep,
  renderStep,
  repairMessage,
  stepSchema,
  systemPrompt,
  trimText,
  type ParsedStep,
  type StepFormat,
} from './prompt';
import type { AgentTool, CoverageDelta, PassageItem, ToolOutcome } from './types';

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

export type AgentTokenChannel = 'thought' | 'answer';

export interface AgentHooks {
  /** A step was decided (phase `action`, before the tool runs) or completed (phase `observation`). */
  onStep?: (step: AgentStep, phase: 'action' | 'observation' | 'final') => void;
  /** Streamed text of the current step. */
  onToken?: (step: number, channel: AgentTokenChannel, text: string) => void;
}

export interface RunAgentOptions extends AgentHooks {
  model: LanguageModelV4;
  /**
   * `json`: one JSON object per step, constrained by a schema (local models); `tools`: the model's
   * native tool calling (endpoints), falling back to `text` when the endpoint refuses tools;
   * `text`: text ReAct with one repair retry.
   */
  format: StepFormat;
  tools: AgentTool[];
  /** The standalone question. */
  question: string;
  /** Earlier clean user/assistant messages of the session. */
  history?: HistoryMessage[];
  /** A note on sources earlier turns used (cite ids and one-line summaries), for follow-ups. */
  priorRefs?: string;
  maxSteps?: number;
  /** Output tokens per step. */
  maxOutputTokens?: number;
  /** Characters of passage text shown per result, and of an observation in total. */
  passageChars?: number;
  observationChars?: number;
  /** Bounds of the constrained JSON step (local models). */
  thoughtChars?: number;
  answerChars?: number;
  argChars?: number;
  signal?: AbortSignal;
  citations: CitationLookup;
  sourceText: SourceText;
  temperature?: number;
}

export interface AgentRunResult {
  answer: string;
  citations: CheckedCitation[];
  grounded: boolean;
  steps: AgentStep[];
  coverage: Coverage;
  cancelled: boolean;
  /** Every passage the turn showed the model (for the session's chunk references). */
  seen: PassageItem[];
  timing: { total_ms: number; model_ms: number; tool_ms: number };
  tokens: { input: number; output: number };
}

class CancelledError extends Error {
  constructor() {
    super('Cancelled.');
    this.name = 'AbortError';
  }
}

interface ModelReply {
  text: string;
  /** Native tool calls (format `tools`). */
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  inputTokens: number;
  outputTokens: number;
  ms: number;
}

/** Passages with these labels are judged useless: later searches in the turn exclude them. */
const REJECT_LABELS = new Set(['none', 'noise']);

/** The closing step of a turn. */
function finalStep(index: number, thought: string, answer: string, policy: string | undefined, reply: ModelReply): AgentStep {
  return {
    index,
    kind: 'final',
    thought,
    action: FINAL,
    input: { answer },
    observation: '',
    ...(policy ? { policy } : {}),
    timing: { model_ms: reply.ms, tool_ms: 0 },
    tokens: { input: reply.inputTokens, output: reply.outputTokens },
  };
}

function stableKey(action: string, input: Record<string, unknown>): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, sort(x)]));
    return typeof v === 'string' ? v.trim() : v;
  };
  return `${action}\u0000${JSON.stringify(sort(input))}`;
}

/** Run one turn of the agent. Never throws for tool errors or bad model output; a cancel returns the partial trace. */
export async function runAgent(opts: RunAgentOptions): Promise<AgentRunResult> {
  const started = performance.now();
  const maxSteps = Math.min(5, Math.max(1, opts.maxSteps ?? 5));
  const tools = new Map(opts.tools.map((t) => [t.name, t]));
  const exhaustive = isExhaustiveQuestion(opts.question);
  let format: StepFormat = opts.format;
  const passageChars = opts.passageChars ?? 500;
  const observationChars = opts.observationChars ?? 3000;
  const signal = opts.signal ?? new AbortController().signal;
  const bounds = { thoughtChars: opts.thoughtChars ?? 400, answerChars: opts.answerChars ?? 1500 };
  let system = systemPrompt(opts.tools, format, { maxSteps, exhaustive, ...bounds });
  const nativeTools: ToolSet = Object.fromEntries(
    opts.tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(z.toJSONSchema(t.inputSchema, { io: 'input', unrepresentable: 'any' }) as never) })]),
  );
  /** The model's own tool call id of the step in progress (format `tools`). */
  let pendingCallId: string | undefined;

  const messages: ModelMessage[] = [];
  for (const m of opts.history ?? []) messages.push({ role: m.role, content: m.content });
  messages.push({
    role: 'user',
    content: `Question: ${opts.question}${opts.priorRefs ? `\n\nSources used earlier in this conversation (re-open them with getAdjacentChunks or readFile if needed):\n${opts.priorRefs}` : ''}`,
  });

  const steps: AgentStep[] = [];
  const earlier = new Map<string, { step: number; observation: string; outcome?: ToolOutcome }>();
  const shown = new Map<string, { cite: string; step: number; item: PassageItem }>();
  const rejected = new Set<string>();
  const seen: PassageItem[] = [];
  const cov = {
    total: null as number | null,
    listed: new Set<string>(),
    searched: new Set<string>(),
    read: new Set<string>(),
    unsearchable: new Map<string, { file_name: string; status: string; reason?: string }>(),
    wholeCase: false,
  };
  let toolSteps = 0;
  let inventoryTaken = false;
  let nudgedExhaustive = false;
  let budgetExhausted = false;
  let cancelled = false;
  let answer = '';
  let modelMs = 0;
  let toolMs = 0;
  let tokensIn = 0;
  let tokensOut = 0;

  const callModel = async (index: number, finalOnly: boolean, extra: ModelMessage[] = []): Promise<ModelReply> => {
    const t0 = performance.now();
    let text = '';
    let sentThought = 0;
    let sentAnswer = 0;
    const emitPartial = () => {
      const p =
        format === 'json'
          ? { thought: partialJsonString(text, 'thought'), answer: partialJsonString(text, 'answer') }
          : partialTextStep(text);
      if (p.thought !== undefined && p.thought.length > sentThought) {
        opts.onToken?.(index, 'thought', p.thought.slice(sentThought));
        sentThought = p.thought.length;
      }
      if (p.answer !== undefined && p.answer.length > sentAnswer) {
        opts.onToken?.(index, 'answer', p.answer.slice(sentAnswer));
        sentAnswer = p.answer.length;
      }
    };
    const callFormat = format;
    // A tool whose constrained call takes no arguments can only repeat itself once called: leave it out of the grammar.
    const offered = opts.tools.filter((t) => !(t.grammarProperties && Object.keys(t.grammarProperties).length === 0 && earlier.has(stableKey(t.name, {}))));
    const schema = callFormat === 'json' ? stepSchema(offered, { finalOnly, thoughtChars: opts.thoughtChars, answerChars: opts.answerChars, argChars: opts.argChars }) : undefined;
    const result = streamText({
      model: opts.model,
      system,
      messages: [...messages, ...extra],
      maxRetries: 0,
      // Errors arrive as stream parts and are handled below; the SDK's default logging would print aborts.
      onError: () => {},
      abortSignal: signal,
      temperature: opts.temperature ?? 0,
      ...(opts.maxOutputTokens ? { maxOutputTokens: opts.maxOutputTokens } : {}),
      ...(callFormat === 'text' ? { stopSequences: ['\nObservation:', 'Observation:'] } : {}),
      ...(schema ? { output: Output.object({ schema: jsonSchema(schema) }) } : {}),
      ...(callFormat === 'tools' ? { tools: nativeTools, toolChoice: finalOnly ? ('none' as const) : ('auto' as const) } : {}),
    });
    const toolCalls: ModelReply['toolCalls'] = [];
    let inTok = 0;
    let outTok = 0;
    let failure: unknown;
    for await (const part of result.fullStream) {
      if (part.type === 'text-delta') {
        text += part.text;
        if (callFormat === 'tools') opts.onToken?.(index, 'answer', part.text);
        else emitPartial();
      } else if (part.type === 'tool-call') {
        toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      } else if (part.type === 'finish') {
        inTok = part.totalUsage.inputTokens ?? 0;
        outTok = part.totalUsage.outputTokens ?? 0;
      } else if (part.type === 'error') failure = part.error;
      else if (part.type === 'abort') failure = new CancelledError();
    }
    const ms = performance.now() - t0;
    modelMs += ms;
    tokensIn += inTok;
    tokensOut += outTok;
    if (signal.aborted) throw new CancelledError();
    if (failure) throw failure;
    return { text, toolCalls, inputTokens: inTok, outputTokens: outTok, ms };
  };

  /** A native reply as a step: the first tool call, or (no call) the text as the final answer. */
  const parseNative = (reply: ModelReply): ParsedStep => {
    const call = reply.toolCalls[0];
    if (call) {
      pendingCallId = call.toolCallId;
      const input = typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {};
      return { thought: reply.text.trim(), action: call.toolName, input };
    }
    if (!reply.text.trim()) throw new Error('the reply was empty');
    return { thought: '', action: FINAL, input: { answer: reply.text.trim() } };
  };

  /** First call of a turn on an endpoint that refuses tools: continue the turn as text ReAct. */
  const refusesTools = (err: unknown): boolean => {
    if (format !== 'tools' || signal.aborted) return false;
    const e = err as { statusCode?: number; message?: string };
    return (e.statusCode !== undefined && [400, 404, 422, 500, 501].includes(e.statusCode)) || /tool|function/i.test(e.message ?? '');
  };

  const callWithFallback = async (index: number, finalOnly: boolean, extra: ModelMessage[] = []): Promise<ModelReply> => {
    try {
      return await callModel(index, finalOnly, extra);
    } catch (err) {
      if (!refusesTools(err) || steps.length > 0) throw err;
      format = 'text';
      system = systemPrompt(opts.tools, format, { maxSteps, exhaustive, ...bounds });
      return callModel(index, finalOnly, extra);
    }
  };

  /** Write a completed step back into the conversation in the form the backend expects. */
  const record = (action: ParsedStep, observation: string) => {
    if (format === 'tools' && action.action === FINAL) {
      // An answer sent back by policy: plain messages (final_answer is not a tool the server knows).
      pendingCallId = undefined;
      messages.push({ role: 'assistant', content: String(action.input.answer ?? '') || '(answer)' }, { role: 'user', content: observation });
      return;
    }
    if (format === 'tools') {
      const toolCallId = pendingCallId ?? `call_${steps.length + 1}`;
      pendingCallId = undefined;
      messages.push(
        { role: 'assistant', content: [...(action.thought ? [{ type: 'text' as const, text: action.thought }] : []), { type: 'tool-call' as const, toolCallId, toolName: action.action, input: action.input }] },
        { role: 'tool', content: [{ type: 'tool-result' as const, toolCallId, toolName: action.action, output: { type: 'text' as const, value: observation } }] },
      );
      return;
    }
    messages.push({ role: 'assistant', content: renderStep(action, format) }, { role: 'user', content: `Observation: ${observation}` });
  };

  /** Ask the model for a step; one repair retry when the reply does not parse. */
  const nextStep = async (index: number, finalOnly: boolean): Promise<{ step: ParsedStep | null; raw: string; reply: ModelReply; repaired: boolean }> => {
    const first = await callWithFallback(index, finalOnly);
    const parse = (r: ModelReply) => (format === 'tools' ? parseNative(r) : format === 'json' ? parseJsonStep(r.text) : parseTextStep(r.text));
    try {
      return { step: parse(first), raw: first.text, reply: first, repaired: false };
    } catch (err) {
      const reason = (err as Error).message;
      const second = await callModel(index, finalOnly, [
        { role: 'assistant', content: first.text || '(empty reply)' },
        { role: 'user', content: repairMessage(reason, format) },
      ]);
      const reply = { text: second.text, toolCalls: second.toolCalls, inputTokens: first.inputTokens + second.inputTokens, outputTokens: first.outputTokens + second.outputTokens, ms: first.ms + second.ms };
      try {
        return { step: parse(second), raw: second.text, reply, repaired: true };
      } catch {
        return { step: null, raw: second.text || first.text, reply, repaired: true };
      }
    }
  };

  const addCoverage = (d: CoverageDelta | undefined) => {
    if (!d) return;
    if (d.total !== undefined) cov.total = d.total;
    for (const n of d.listed ?? []) cov.listed.add(n);
    for (const n of d.searched ?? []) cov.searched.add(n);
    for (const n of d.read ?? []) cov.read.add(n);
    for (const u of d.unsearchable ?? []) cov.unsearchable.set(u.file_name, u);
    if (d.wholeCase) cov.wholeCase = true;
  };

  /** Format a tool's outcome: passages de-duplicated by hash, earlier-seen ones referenced, rejected ones dropped. */
  const observe = (index: number, outcome: ToolOutcome): string => {
    const lines: string[] = [];
    if (outcome.text) lines.push(outcome.text);
    if (outcome.items?.length) {
      const best = new Map<string, PassageItem>();
      for (const it of outcome.items) {
        const key = it.hash ?? it.cite;
        const prev = best.get(key);
        if (!prev || (it.score ?? 0) > (prev.score ?? 0)) best.set(key, it);
      }
      let droppedRejected = 0;
      const fresh: PassageItem[] = [];
      const again: string[] = [];
      for (const [key, it] of best) {
        if (it.hash && rejected.has(it.hash)) {
          droppedRejected++;
          continue;
        }
        const prior = shown.get(key);
        if (prior) {
          again.push(`[cite:${prior.cite}] (already shown in step ${prior.step})`);
          continue;
        }
        fresh.push(it);
      }
      let budget = observationChars - lines.join('\n').length;
      let omitted = 0;
      for (const it of fresh) {
        const line = formatPassage(it, passageChars);
        if (budget - line.length < 0 && lines.length > 1) {
          omitted++;
          continue;
        }
        budget -= line.length + 1;
        lines.push(line);
        shown.set(it.hash ?? it.cite, { cite: it.cite, step: index, item: it });
        seen.push(it);
        if (it.hash && it.label && REJECT_LABELS.has(it.label)) rejected.add(it.hash);
      }
      if (again.length) lines.push(`Seen before: ${again.join(', ')}`);
      if (droppedRejected) lines.push(`${droppedRejected} passage(s) judged useless in earlier steps were left out.`);
      if (omitted) lines.push(`${omitted} more passage(s) not shown (observation length limit).`);
      if (!fresh.length && !again.length) lines.push('No new passages. Try a different query or another tool.');
    }
    return lines.join('\n') || 'No results.';
  };

  /** The arguments a tool runs with: the model's, plus the turn's defaults for those it left out (named in `defaults`). */
  const effective = (parsed: ParsedStep): { input: Record<string, unknown>; defaults?: string[] } => {
    const given = parsed.input;
    const filled = Object.entries(tools.get(parsed.action)?.defaults ?? {}).filter(([k, v]) => v !== undefined && !Object.hasOwn(given, k));
    return filled.length ? { input: { ...given, ...Object.fromEntries(filled) }, defaults: filled.map(([k]) => k) } : { input: given };
  };

  const runTool = async (index: number, parsed: ParsedStep, policy?: string): Promise<AgentStep> => {
    const tool = tools.get(parsed.action)!;
    const { input, defaults } = effective(parsed);
    const step: AgentStep = {
      index,
      kind: 'action',
      thought: parsed.thought,
      action: parsed.action,
      input,
      ...(defaults ? { defaults } : {}),
      observation: '',
      timing: { model_ms: 0, tool_ms: 0 },
      tokens: { input: 0, output: 0 },
      ...(policy ? { policy } : {}),
    };
    const key = stableKey(parsed.action, input);
    const prior = earlier.get(key);
    if (prior) {
      step.policy = [policy, `repeated call: answered from step ${prior.step} without running the tool again`].filter(Boolean).join('; ');
      step.observation = `You already made this exact call in step ${prior.step}; do not repeat it. Call a different tool or answer. Its result was:\n${prior.observation}`;
      if (prior.outcome) step.summary = { tool: parsed.action, count: prior.outcome.count, ...(prior.outcome.best_label ? { best_label: prior.outcome.best_label } : {}) };
      return step;
    }
    const valid = tool.inputSchema.safeParse(input);
    if (!valid.success) {
      const fields = valid.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
      step.error = true;
      step.observation = `Error: invalid arguments for ${tool.name} — ${fields}. Fix the arguments and try again.`;
      step.summary = { tool: tool.name, count: 0 };
      earlier.set(key, { step: index, observation: step.observation });
      return step;
    }
    const t0 = performance.now();
    try {
      const outcome = await tool.run(valid.data as Record<string, unknown>, { signal, rejected });
      step.observation = observe(index, outcome);
      step.summary = { tool: tool.name, count: outcome.count, ...(outcome.best_label ? { best_label: outcome.best_label } : {}) };
      addCoverage(outcome.coverage);
      earlier.set(key, { step: index, observation: step.observation, outcome });
    } catch (err) {
      if (signal.aborted) throw new CancelledError();
      step.error = true;
      step.observation = `Error from ${tool.name}: ${(err as Error).message} Correct the call and try again.`;
      step.summary = { tool: tool.name, count: 0 };
      earlier.set(key, { step: index, observation: step.observation });
    } finally {
      step.timing.tool_ms = performance.now() - t0;
      toolMs += step.timing.tool_ms;
    }
    return step;
  };

  try {
    for (let index = 1; ; index++) {
      const forced = toolSteps >= maxSteps;
      const { step: parsed, raw, reply, repaired } = await nextStep(index, forced);
      const mark = (s: AgentStep): AgentStep => (repaired ? Object.assign(s, { repaired: true }) : s);
      let policy: string | undefined;
      let action: ParsedStep;

      if (!parsed) {
        // Even the repaired reply did not parse (e.g. cut at the token limit): keep what can be read as the answer, never crash.
        const partial = format === 'json' ? partialJsonString(raw, 'answer') : undefined;
        action = { thought: (format === 'json' ? partialJsonString(raw, 'thought') : undefined) ?? '', action: FINAL, input: { answer: (partial ?? raw).trim() } };
        policy = partial !== undefined ? 'the reply was cut off; the part of the answer that was written is kept' : 'the reply could not be parsed after one repair; its text is taken as the answer';
      } else action = parsed;

      if (action.action === FINAL) {
        const wantsInventory = !inventoryTaken && tools.has('findFiles') && !forced;
        const wantsGrep = exhaustive && !cov.wholeCase && tools.has('grepCase') && !forced && !nudgedExhaustive;
        if (wantsInventory) {
          policy = 'findFiles first: the inventory is taken before answering';
          action = { thought: action.thought, action: 'findFiles', input: {} };
        } else if (wantsGrep) {
          nudgedExhaustive = true;
          const step: AgentStep = {
            index,
            kind: 'action',
            thought: action.thought,
            action: FINAL,
            input: action.input,
            observation:
              'This question asks for every occurrence. Before answering, search the whole case with grepCase (a regular expression for the thing asked about), then answer.',
            policy: 'exhaustive question: grepCase required before answering',
            timing: { model_ms: reply.ms, tool_ms: 0 },
            tokens: { input: reply.inputTokens, output: reply.outputTokens },
          };
          toolSteps++;
          steps.push(mark(step));
          opts.onStep?.(step, 'observation');
          record(action, step.observation);
          continue;
        } else {
          answer = String(action.input.answer ?? '').trim();
          if (forced) budgetExhausted = true;
          const step = finalStep(
            index,
            action.thought,
            answer,
            policy || (forced ? `step budget of ${maxSteps} reached: answer forced from what was found` : undefined),
            reply,
          );
          steps.push(mark(step));
          opts.onStep?.(step, 'final');
          break;
        }
      }

      if (forced) {
        // The model asked for a tool when it had to answer (unconstrained backends): answer honestly.
        budgetExhausted = true;
        answer = 'The step budget ran out before an answer was found in the documents.';
        const step = finalStep(
          index,
          action.thought,
          answer,
          `step budget of ${maxSteps} reached and the model asked for ${action.action}; no answer was produced`,
          reply,
        );
        steps.push(mark(step));
        opts.onStep?.(step, 'final');
        break;
      }

      let step: AgentStep;
      if (!tools.has(action.action)) {
        step = {
          index,
          kind: 'action',
          thought: action.thought,
          action: action.action,
          input: action.input,
          observation: `Error: there is no tool named "${action.action}". Available tools: ${[...tools.keys()].join(', ')}, or ${FINAL}.`,
          error: true,
          summary: { tool: action.action, count: 0 },
          timing: { model_ms: 0, tool_ms: 0 },
          tokens: { input: 0, output: 0 },
        };
      } else {
        if (!inventoryTaken && action.action !== 'findFiles' && tools.has('findFiles')) {
          policy = `findFiles first: ran findFiles instead of ${action.action}`;
          const requested = action;
          action = { thought: action.thought, action: 'findFiles', input: {} };
          opts.onStep?.({ index, kind: 'action', thought: action.thought, action: action.action, input: action.input, observation: '', policy, timing: { model_ms: reply.ms, tool_ms: 0 }, tokens: { input: reply.inputTokens, output: reply.outputTokens } }, 'action');
          step = await runTool(index, action, policy);
          step.observation = `(Policy: the case inventory comes first; your call ${requested.action}(${JSON.stringify(requested.input)}) was not run — repeat it if you still need it.)\n${step.observation}`;
        } else {
          opts.onStep?.({ index, kind: 'action', thought: action.thought, action: action.action, ...effective(action), observation: '', ...(policy ? { policy } : {}), timing: { model_ms: reply.ms, tool_ms: 0 }, tokens: { input: reply.inputTokens, output: reply.outputTokens } }, 'action');
          step = await runTool(index, action, policy);
        }
        if (action.action === 'findFiles') inventoryTaken = true;
      }
      step.timing.model_ms = reply.ms;
      step.tokens = { input: reply.inputTokens, output: reply.outputTokens };
      toolSteps++;
      steps.push(mark(step));
      opts.onStep?.(step, 'observation');
      record(action, step.observation);
    }
  } catch (err) {
    if (!(err instanceof CancelledError) && !signal.aborted) throw err;
    cancelled = true;
  }

  const verification = answer ? await verifyCitations(answer, opts.citations, opts.sourceText) : { citations: [], grounded: false };
  const coverage = buildCoverage(cov, exhaustive, budgetExhausted, cancelled);
  return {
    answer,
    citations: verification.citations,
    grounded: verification.grounded,
    steps,
    coverage,
    cancelled,
    seen,
    timing: { total_ms: performance.now() - started, model_ms: modelMs, tool_ms: toolMs },
    tokens: { input: tokensIn, output: tokensOut },
  };
}

function buildCoverage(
  cov: {
    total: number | null;
    listed: Set<string>;
    searched: Set<string>;
    read: Set<string>;
    unsearchable: Map<string, { file_name: string; status: string; reason?: string }>;
    wholeCase: boolean;
  },
  exhaustive: boolean,
  budgetExhausted: boolean,
  cancelled: boolean,
): Coverage {
  const unsearchable = [...cov.unsearchable.values()];
  const searchedCount = cov.wholeCase && cov.total !== null ? Math.max(cov.searched.size, cov.total - unsearchable.length) : cov.searched.size;
  const parts: string[] = [];
  if (cov.total === null) parts.push('The case inventory was not taken in this turn.');
  else
    parts.push(
      `Looked at ${cov.total} file${cov.total === 1 ? '' : 's'} in the case: ${cov.listed.size} listed, ${searchedCount} searched${cov.wholeCase ? ' (whole case)' : ''}, ${cov.read.size} read.`,
    );
  if (unsearchable.length) {
    parts.push(`Could not be searched: ${unsearchable.map((u) => `${u.file_name} (${u.status.replace('_', ' ')}${u.reason ? `: ${u.reason}` : ''})`).join(', ')}.`);
  }
  if (cancelled) parts.push('The turn was cancelled; the trace is partial.');
  if (exhaustive && !cov.wholeCase) {
    parts.push(
      budgetExhausted
        ? 'This question asks for every occurrence, and the step budget ran out before the whole case was searched: the answer may miss some.'
        : 'This question asks for every occurrence, but the whole case was not searched: the answer may miss some.',
    );
  } else if (budgetExhausted) parts.push('The step budget ran out; the answer is based on what was found so far.');
  return {
    files_total: cov.total,
    files_listed: cov.listed.size,
    files_searched: searchedCount,
    files_read: cov.read.size,
    searched: [...cov.searched],
    read: [...cov.read],
    unsearchable,
    exhaustive,
    whole_case_searched: cov.wholeCase,
    budget_exhausted: budgetExhausted,
    note: parts.join(' '),
  };
}

export { trimText };
