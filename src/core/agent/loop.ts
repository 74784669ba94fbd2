/**
 * The ReAct loop: Thought → Action (+ JSON input) → Observation, until a Final Answer or the step
 * budget. Written against the `ai` SDK's language-model interface, so a local GGUF, an endpoint and
 * the scripted test model run the same code; the policy lives in code, not only in the prompt.
 * `runAgent` orchestrates; the parts live beside it: `conversation.ts`, `channels.ts`, `policies.ts`,
 * `tool-runner.ts`, `observations.ts`, `coverage.ts`.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import type { AgentStep, CheckedCitation, Coverage } from '../../shared/contract/chat';
import { verifyCitations, type CitationLookup, type SourceText, type VerifyOptions } from '../citations/verify';
import type { AgentTokenChannel, ModelReply } from './channels';
import { Conversation, type ModelStep } from './conversation';
import { CoverageAccumulator } from './coverage';
import { ObservationBook } from './observations';
import {
  advance,
  clampMaxSteps,
  decide,
  FORMAT_STOP,
  INITIAL_POLICY_STATE,
  mustAnswer,
  offTopicNote,
  offTopicQuery,
  REPEATED_CALL_STOP,
  replacedCallNote,
  type Decision,
  type PolicyState,
  type TurnRules,
} from './policies';
import { FINAL, isExhaustiveQuestion, systemPrompt, type ParsedStep, type StepFormat } from './prompt';
import { ToolCheck } from './tool-check';
import { ToolRunner } from './tool-runner';
import { CancelledError, type AgentTool, type CaseFacts, type PassageItem } from './types';
import { contentWords } from '../util/words';
import { expandQuery } from '../retrieval/lexicon';
import { EARLIER_PASSAGES } from './recall';

export type { AgentTokenChannel };

export interface HistoryMessage {
  role: 'user' | 'assistant';
  content: string;
}

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
  /** What the search-before-answer policy searches (default: the question). */
  searchQuery?: string;
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
  /** The case's similarity model and document names, for claim-level verification. */
  verify?: VerifyOptions;
  temperature?: number;
  /** What the tool check reads of the case (`caseFactsFor`); without it, tool results are taken as they come. */
  facts?: CaseFacts;
  /**
   * Passages found earlier in the chat that its memory reuses for this follow-up (recall.ts): shown
   * with the question and as step 1 ("Used 3 passages found earlier"); the documents count as
   * searched, so the model may answer from them. `note` is the step's policy.
   */
  earlier?: { passages: PassageItem[]; question: string; note: string };
}

export interface AgentRunResult {
  answer: string;
  citations: CheckedCitation[];
  grounded: boolean;
  /** Sentences of the answer with a quoted or supported citation. */
  supportedSentences: number;
  steps: AgentStep[];
  coverage: Coverage;
  cancelled: boolean;
  /** Every passage the turn showed the model (for the session's chunk references). */
  seen: PassageItem[];
  timing: { total_ms: number; model_ms: number; tool_ms: number };
  /** Prompt tokens the model evaluated (what its cache did not hold) and tokens it generated. */
  tokens: { input: number; output: number };
  /** Model calls of the turn (a repair is one more). */
  calls: number;
  /** Why the loop stopped the model before it answered (a repeated call, the format failed twice). */
  stopped?: string;
}

/** The model's part of a step the policy took on its own. */
const NO_REPLY: ModelReply = { text: '', toolCalls: [], inputTokens: 0, outputTokens: 0, ms: 0 };

/** The closing step of a turn. */
function finalStep(
  index: number,
  thought: string,
  answer: string,
  policy: string | undefined,
  reply: ModelReply,
): AgentStep {
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

/** Step 1 of a follow-up that reuses passages found earlier: what the model is shown of them, recorded as seen. */
function earlierStep(earlier: NonNullable<RunAgentOptions['earlier']>, book: ObservationBook): AgentStep {
  const n = earlier.passages.length;
  const observation = book.observe(1, {
    text: `Passages found earlier in this chat for “${earlier.question}” (they may answer this follow-up; cite them by their ids, or search for more):`,
    items: earlier.passages,
    count: n,
    citations: [],
  });
  return {
    index: 1,
    kind: 'action',
    thought: '',
    action: EARLIER_PASSAGES,
    input: { question: earlier.question },
    observation,
    summary: { tool: EARLIER_PASSAGES, count: n },
    policy: earlier.note,
    timing: { model_ms: 0, tool_ms: 0 },
    tokens: { input: 0, output: 0 },
  };
}

/** Run one turn of the agent. Never throws for tool errors or bad model output; a cancel returns the partial trace. */
export async function runAgent(opts: RunAgentOptions): Promise<AgentRunResult> {
  const started = performance.now();
  const signal = opts.signal ?? new AbortController().signal;
  const maxSteps = clampMaxSteps(opts.maxSteps);
  const exhaustive = isExhaustiveQuestion(opts.question);
  const prompted = {
    maxSteps,
    exhaustive,
    thoughtChars: opts.thoughtChars ?? 400,
    answerChars: opts.answerChars ?? 1500,
  };
  const book = new ObservationBook({
    passageChars: opts.passageChars ?? 500,
    observationChars: opts.observationChars ?? 3000,
  });
  const earlier = opts.earlier && earlierStep(opts.earlier, book);
  const conversation = new Conversation({
    ...opts,
    ...(earlier ? { earlierPassages: earlier.observation } : {}),
    systemPrompt: (format) => systemPrompt(opts.tools, format, prompted),
    bounds: { thoughtChars: opts.thoughtChars, answerChars: opts.answerChars, argChars: opts.argChars },
    signal,
  });
  const coverage = new CoverageAccumulator();
  const check = opts.facts ? new ToolCheck(opts.facts, opts.searchQuery ?? opts.question) : undefined;
  const runner = new ToolRunner(opts.tools, book, coverage, signal, check);
  const turn = new Turn(
    { maxSteps, exhaustive, tools: runner.names(), question: opts.searchQuery ?? opts.question },
    conversation,
    runner,
    coverage,
    opts,
  );
  // The question's words, and the words the documents use for what it asks (a query may use either).
  turn.learn(`${opts.question} ${expandQuery(opts.searchQuery ?? opts.question)}`);
  if (earlier) turn.seed(earlier);

  let cancelled = false;
  try {
    while (!(await turn.step(turn.steps.length + 1)));
  } catch (err) {
    if (!(err instanceof CancelledError) && !signal.aborted) throw err;
    cancelled = true;
  }

  const verification = turn.answer
    ? await verifyCitations(turn.answer, opts.citations, opts.sourceText, opts.verify)
    : { citations: [], grounded: false, supportedSentences: 0 };
  return {
    answer: turn.answer,
    citations: verification.citations,
    grounded: verification.grounded,
    supportedSentences: verification.supportedSentences,
    steps: turn.steps,
    coverage: coverage.build({ exhaustive, budgetExhausted: turn.budgetExhausted, cancelled }),
    cancelled,
    seen: book.seen,
    timing: { total_ms: performance.now() - started, model_ms: conversation.modelMs, tool_ms: runner.toolMs },
    tokens: { input: conversation.tokensIn, output: conversation.tokensOut },
    calls: conversation.calls,
    ...(turn.stopped ? { stopped: turn.stopped } : {}),
  };
}

/** One turn's steps: ask the model, let the policy decide, carry the decision out, record it. */
class Turn {
  readonly steps: AgentStep[] = [];
  answer = '';
  budgetExhausted = false;
  /** Set when the loop stopped the model (the reason). */
  stopped: string | undefined;
  private state: PolicyState = INITIAL_POLICY_STATE;
  /** Content words of the question and of every observation so far (what a query may be about). */
  private readonly known = new Set<string>();
  /** Steps the turn began with, before the model's first call (the passages found earlier). */
  private seeded = 0;

  constructor(
    private readonly rules: TurnRules,
    private readonly conversation: Conversation,
    private readonly runner: ToolRunner,
    private readonly coverage: CoverageAccumulator,
    private readonly hooks: AgentHooks,
  ) {}

  /**
   * Begin with a step the model did not ask for (the passages found earlier): announced, its words
   * known, the documents counted as searched; it uses none of the step budget.
   */
  seed(step: AgentStep): void {
    this.seeded++;
    this.state = { ...this.state, searched: true };
    this.push(step, null, 'observation');
    this.learn(step.observation);
  }

  /** Words the turn knows of (the question; what a tool found). */
  learn(text: string): void {
    for (const w of contentWords(text)) this.known.add(w);
  }

  /** Take step `index` (and the steps the policy requires after it); true when the turn has ended (with an answer, or stopped). */
  async step(index: number): Promise<boolean> {
    const asked = await this.conversation.next(
      index,
      mustAnswer(this.rules, this.state),
      this.runner.offered(),
      this.steps.length === this.seeded,
    );
    if (asked.formatStop) {
      // Its text is kept for "Why?"; the passages already shown stay the answer.
      if (asked.step.action === FINAL) this.answer = String(asked.step.input.answer ?? '').trim();
      return this.stop(index, asked, asked.step, FORMAT_STOP);
    }
    let decision = decide(this.rules, this.policyState(), asked.step, asked.policy, this.rules.question);
    if (decision.kind === 'answer' || decision.kind === 'out-of-budget') {
      this.answer = decision.answer;
      if (decision.kind === 'out-of-budget' || decision.budgetExhausted) this.budgetExhausted = true;
      this.push(finalStep(index, asked.step.thought, decision.answer, decision.policy, asked.reply), asked, 'final');
      return true;
    }
    if (decision.kind === 'send-back') {
      this.record(this.sentBack(index, asked, decision.observation, decision.policy), asked.step, decision, asked);
      return false;
    }
    if (decision.kind === 'unknown-tool') {
      this.record(this.unknownTool(index, asked, decision.observation), asked.step, decision, asked);
      return false;
    }
    // An early answer is set aside until the steps the policy requires have run: they run one after
    // another, without asking the model in between for an answer that would be set aside again.
    for (let i = index; ; i++) {
      const run = this.onTopic(await this.checked(decision));
      const earlier = this.runner.earlierStep(run.action);
      if (earlier !== null) return this.stop(i, asked, run.action, `${REPEATED_CALL_STOP} (step ${earlier})`);
      const first = i === index;
      const step = await this.runTool(i, run, first ? asked.reply : NO_REPLY);
      if (first) {
        step.timing.model_ms = asked.reply.ms;
        step.tokens = { input: asked.reply.inputTokens, output: asked.reply.outputTokens };
      }
      this.record(step, run.action, run, first ? asked : null);
      if (asked.step.action !== FINAL) return false;
      decision = decide(this.rules, this.policyState(), asked.step, undefined, this.rules.question);
      if (decision.kind !== 'run') return false;
    }
  }

  /** Where the turn stands, for the policy. */
  private policyState(): PolicyState {
    return { ...this.state, wholeCaseSearched: this.coverage.wholeCase, sectionToRead: this.runner.sectionToRead };
  }

  /** A step that is not the end: the policy's state moves on, the step is announced, and the model reads its observation. */
  private record(step: AgentStep, action: ParsedStep, decision: Decision, asked: ModelStep | null): void {
    this.state = advance(this.policyState(), decision);
    this.push(step, asked, 'observation');
    this.learn(step.observation);
    this.conversation.record(action, step.observation, this.steps.length);
  }

  /** The call with its arguments checked (an unknown file name, an empty query); the trace says what was corrected. */
  private async checked(decision: Extract<Decision, { kind: 'run' }>): Promise<Extract<Decision, { kind: 'run' }>> {
    const { action, notes } = await this.runner.checkArguments(decision.action);
    if (!notes.length) return decision;
    const note = notes.join('; ');
    return { ...decision, action, policy: decision.policy ? `${decision.policy}; ${note}` : note };
  }

  /** A search about nothing the turn knows of searches the question instead, and the trace says so. */
  private onTopic(decision: Extract<Decision, { kind: 'run' }>): Extract<Decision, { kind: 'run' }> {
    const { action } = decision;
    if (!this.rules.question || !offTopicQuery(action, this.known)) return decision;
    const note = offTopicNote(String(action.input.query));
    return {
      ...decision,
      action: { ...action, input: { ...action.input, query: this.rules.question } },
      policy: decision.policy ? `${decision.policy}; ${note}` : note,
    };
  }

  /** End the turn without running `action`: the closing step shows what was asked and why the turn stopped. */
  private stop(index: number, asked: ModelStep, action: ParsedStep, reason: string): true {
    this.stopped = reason;
    const { reply } = asked;
    this.push(
      {
        index,
        kind: 'final',
        thought: asked.step.thought,
        action: action.action,
        input: action.input,
        observation: `Stopped: ${reason}.`,
        policy: reason,
        timing: { model_ms: reply.ms, tool_ms: 0 },
        tokens: { input: reply.inputTokens, output: reply.outputTokens },
      },
      asked,
      'final',
    );
    return true;
  }

  private push(step: AgentStep, asked: ModelStep | null, phase: 'observation' | 'final'): void {
    if (asked?.repaired) step.repaired = true;
    this.steps.push(step);
    this.hooks.onStep?.(step, phase);
  }

  /** An answer the policy does not accept yet: the observation tells the model what to do first. */
  private sentBack(index: number, asked: ModelStep, observation: string, policy: string): AgentStep {
    return {
      index,
      kind: 'action',
      thought: asked.step.thought,
      action: FINAL,
      input: asked.step.input,
      observation,
      policy,
      timing: { model_ms: asked.reply.ms, tool_ms: 0 },
      tokens: { input: asked.reply.inputTokens, output: asked.reply.outputTokens },
    };
  }

  /** A call of a tool that does not exist: the error is the observation. */
  private unknownTool(index: number, { step: action, reply }: ModelStep, observation: string): AgentStep {
    return {
      index,
      kind: 'action',
      thought: action.thought,
      action: action.action,
      input: action.input,
      observation,
      error: true,
      summary: { tool: action.action, count: 0 },
      timing: { model_ms: reply.ms, tool_ms: 0 },
      tokens: { input: reply.inputTokens, output: reply.outputTokens },
    };
  }

  /** Announce the step (phase `action`), run the tool; a call replaced by the inventory is named in the observation. */
  private async runTool(
    index: number,
    decision: Extract<Decision, { kind: 'run' }>,
    reply: ModelReply,
  ): Promise<AgentStep> {
    const { action, policy, requested } = decision;
    const timing = { model_ms: reply.ms, tool_ms: 0 };
    const tokens = { input: reply.inputTokens, output: reply.outputTokens };
    if (requested) {
      this.hooks.onStep?.(
        {
          index,
          kind: 'action',
          thought: action.thought,
          action: action.action,
          input: action.input,
          observation: '',
          policy,
          timing,
          tokens,
        },
        'action',
      );
      const step = await this.runner.run(index, action, policy);
      step.observation = `${replacedCallNote(requested)}\n${step.observation}`;
      return step;
    }
    this.hooks.onStep?.(
      {
        index,
        kind: 'action',
        thought: action.thought,
        action: action.action,
        ...this.runner.effective(action),
        observation: '',
        ...(policy ? { policy } : {}),
        timing,
        tokens,
      },
      'action',
    );
    return this.runner.run(index, action, policy);
  }
}
