/**
 * The loop's policy as pure functions: given where the turn stands and the step the model asked
 * for, what happens — findFiles first, an exhaustive question sent back once to grepCase, a
 * clause of a named document read whole before the answer, the step budget. No I/O; the loop carries the decisions out.
 */
import { AGENT_MAX_STEPS } from '../../shared/retrieval';
import { contentWords } from '../util/words';
import { FINAL, type ParsedStep } from './prompt';
import type { SectionRef } from './types';

/** Tool steps a turn may take: 1 to AGENT_MAX_STEPS, which is also the default. */
export function clampMaxSteps(maxSteps: number | undefined): number {
  return Math.min(AGENT_MAX_STEPS, Math.max(1, maxSteps ?? AGENT_MAX_STEPS));
}

/** What stays fixed during a turn. */
export interface TurnRules {
  maxSteps: number;
  /** The question asks for every occurrence. */
  exhaustive: boolean;
  /** The tools of the turn, in order. */
  tools: string[];
  /** The question, for the search the policy runs when the model answers before searching. */
  question?: string;
}

/** What the policy tracks as the turn goes on. */
export interface PolicyState {
  /** Steps that used the budget (tool steps, unknown tools, answers sent back). */
  toolSteps: number;
  /** findFiles has run in this turn. */
  inventoryTaken: boolean;
  /** An early answer to an exhaustive question was already sent back once. */
  nudgedExhaustive: boolean;
  /** A call searched every readable file of the case (from the coverage). */
  wholeCaseSearched: boolean;
  /** The section of the best passage of the last search focused on a named document (from the tool runner). */
  sectionToRead: SectionRef | null;
  /** A section was read in this turn (by the model or by the clause policy). */
  sectionRead: boolean;
  /** The documents' text was searched or read in this turn (any search, grep or read). */
  searched: boolean;
}

export const INITIAL_POLICY_STATE: PolicyState = {
  toolSteps: 0,
  inventoryTaken: false,
  nudgedExhaustive: false,
  wholeCaseSearched: false,
  sectionToRead: null,
  sectionRead: false,
  searched: false,
};

/** Tools that look into the documents' text (findFiles and outline only list them). */
const SEARCHING_TOOLS = new Set([
  'retrieve',
  'keyword_search',
  'vector_search',
  'grepCase',
  'grepFile',
  'readFile',
  'readSection',
  'getAdjacentChunks',
  'timeline',
]);

export type Decision =
  /** The turn ends with this answer. */
  | { kind: 'answer'; answer: string; policy?: string; budgetExhausted: boolean }
  /** The answer is not accepted yet: `observation` goes back to the model instead (one budget step). */
  | { kind: 'send-back'; observation: string; policy: string }
  /** The budget is spent and the model still asked for a tool: the turn ends with an honest answer. */
  | { kind: 'out-of-budget'; answer: string; policy: string }
  /** No such tool: the error is the observation (one budget step). */
  | { kind: 'unknown-tool'; observation: string }
  /** Run `action` (one budget step); `requested`, when set, is the model's call it replaced. */
  | { kind: 'run'; action: ParsedStep; policy?: string; requested?: ParsedStep };

export const INVENTORY_BEFORE_ANSWER = 'findFiles first: the inventory is taken before answering';
export const EXHAUSTIVE_SEND_BACK =
  'This question asks for every occurrence. Before answering, search the whole case with grepCase (a regular expression for the thing asked about), then answer.';
export const CLAUSE_READ_SECTION = 'clause question: the whole section of the best passage is read before answering';
export const SEARCH_BEFORE_ANSWER =
  'a question about the documents is searched before it is answered: ran retrieve with the question';
export const BUDGET_RAN_OUT_ANSWER = 'The step budget ran out before an answer was found in the documents.';

/** The step budget is spent: the next model call may only answer. */
export function mustAnswer(rules: TurnRules, state: PolicyState): boolean {
  return state.toolSteps >= rules.maxSteps;
}

/**
 * What to do with the step the model asked for. `policy` is a note already attached to the step
 * (e.g. that its reply was cut off); it is kept when the step goes through as asked.
 */
export function decide(
  rules: TurnRules,
  state: PolicyState,
  asked: ParsedStep,
  policy?: string,
  question = rules.question ?? '',
): Decision {
  const forced = mustAnswer(rules, state);
  const has = (name: string) => rules.tools.includes(name);
  let action = asked;
  if (action.action === FINAL) {
    const wantsInventory = !state.inventoryTaken && has('findFiles') && !forced;
    const wantsGrep =
      rules.exhaustive && !state.wholeCaseSearched && has('grepCase') && !forced && !state.nudgedExhaustive;
    const wantsSection =
      !rules.exhaustive && state.sectionToRead !== null && !state.sectionRead && has('readSection') && !forced;
    const wantsSearch = !state.searched && has('retrieve') && !forced && question.trim() !== '';
    if (wantsInventory) {
      policy = INVENTORY_BEFORE_ANSWER;
      action = { thought: action.thought, action: 'findFiles', input: {} };
    } else if (wantsSection) {
      // A question about a named document's clause: the passage may hold only part of it.
      return readSectionFirst(state.sectionToRead!);
    } else if (wantsGrep) {
      return {
        kind: 'send-back',
        observation: EXHAUSTIVE_SEND_BACK,
        policy: 'exhaustive question: grepCase required before answering',
      };
    } else if (wantsSearch) {
      // An answer proposed before the documents were looked at is a guess: search the question first.
      return {
        kind: 'run',
        action: { thought: action.thought, action: 'retrieve', input: { query: question } },
        policy: SEARCH_BEFORE_ANSWER,
      };
    } else {
      const budgetNote = forced
        ? `step budget of ${rules.maxSteps} reached: answer forced from what was found`
        : undefined;
      return {
        kind: 'answer',
        answer: String(action.input.answer ?? '').trim(),
        policy: policy || budgetNote,
        budgetExhausted: forced,
      };
    }
  }
  if (forced) {
    // The model asked for a tool when it had to answer (unconstrained backends): answer honestly.
    return {
      kind: 'out-of-budget',
      answer: BUDGET_RAN_OUT_ANSWER,
      policy: `step budget of ${rules.maxSteps} reached and the model asked for ${action.action}; no answer was produced`,
    };
  }
  if (!has(action.action)) {
    return {
      kind: 'unknown-tool',
      observation: `Error: there is no tool named "${action.action}". Available tools: ${rules.tools.join(', ')}, or ${FINAL}.`,
    };
  }
  if (!state.inventoryTaken && action.action !== 'findFiles' && has('findFiles')) {
    return {
      kind: 'run',
      action: { thought: action.thought, action: 'findFiles', input: {} },
      policy: `findFiles first: ran findFiles instead of ${action.action}`,
      requested: action,
    };
  }
  return { kind: 'run', action, ...(policy ? { policy } : {}) };
}

/** The decision to read a named document's section whole before answering. */
function readSectionFirst(target: SectionRef): Decision {
  const { file_id, section, label } = target;
  return {
    kind: 'run',
    action: {
      thought: `Read ${label} whole before answering.`,
      action: 'readSection',
      input: { file_id, section },
    },
    policy: CLAUSE_READ_SECTION,
  };
}

/** The policy state after a decision was carried out (`wholeCaseSearched` comes from the coverage). */
export function advance(state: PolicyState, decision: Decision): PolicyState {
  switch (decision.kind) {
    case 'answer':
    case 'out-of-budget':
      return state;
    case 'send-back':
      return { ...state, toolSteps: state.toolSteps + 1, nudgedExhaustive: true };
    case 'unknown-tool':
      return { ...state, toolSteps: state.toolSteps + 1 };
    case 'run':
      return {
        ...state,
        toolSteps: state.toolSteps + 1,
        inventoryTaken: state.inventoryTaken || decision.action.action === 'findFiles',
        sectionRead: state.sectionRead || decision.action.action === 'readSection',
        searched: state.searched || SEARCHING_TOOLS.has(decision.action.action),
      };
  }
}

/** The note shown to the model when its call was replaced by the inventory. */
export function replacedCallNote(requested: ParsedStep): string {
  return `(Policy: the case inventory comes first; your call ${requested.action}(${JSON.stringify(requested.input)}) was not run — repeat it if you still need it.)`;
}

/** Why a turn stops before the model answers; the passages already shown stay as the answer. */
export const REPEATED_CALL_STOP = 'the model asked again for a call it had already made, so it was stopped';
export const FORMAT_STOP = 'the model failed the step format twice, so it was stopped';

/** Tools whose `query` is free text the model writes (and may copy from the prompt's example). */
const QUERY_TOOLS = new Set(['retrieve', 'keyword_search', 'vector_search']);

/**
 * A search whose query shares no content word with what the turn knows (the question, the
 * documents' names, what was found so far): a small model copying the prompt's example, or
 * wandering. Its query is replaced by the question.
 */
export function offTopicQuery(action: ParsedStep, known: ReadonlySet<string>): boolean {
  if (!QUERY_TOOLS.has(action.action) || typeof action.input.query !== 'string') return false;
  return !contentWords(action.input.query).some((w) => known.has(w));
}

/** The trace's note for a query replaced by the question. */
export function offTopicNote(query: string): string {
  return `the query “${query.trim()}” shares no word with the question or what was found: searched the question instead`;
}
