/**
 * Events the engine emits. Every shell forwards all of them (IPC, SSE, CLI trace).
 * Each payload names its case so a window only shows what belongs to the open case.
 */
import type { AgentStep, ChatAnswer, CheckedCitation, LimitedTo } from './contract/chat';
import type { IndexVectorsStatus, IngestFileEvent, IngestProgress } from './contract/ingest';

export interface CasesChangedEvent {
  case_id: string;
  kind: 'created' | 'renamed' | 'deleted' | 'files' | 'settings' | 'imported';
}

/** A matter file being written (`cases.export`) or read into a case (`cases.import`): bytes of the case's files done so far. */
export interface CasesTransferEvent {
  case_id: string;
  direction: 'export' | 'import';
  done_bytes: number;
  total_bytes: number;
  state: 'running' | 'done';
}

export interface ModelsChangedEvent {
  model_id: string;
  kind: 'imported' | 'default';
}

/** Agent turn events: every payload names its case, session and turn. */
export interface AgentTurnRef {
  case_id: string;
  session_id: string;
  turn_id: string;
}

/** A turn started (phase `started`) or its follow-up was condensed into a standalone question (`condensed`). */
export interface AgentTurnEvent extends AgentTurnRef {
  phase: 'started' | 'condensed';
  question: string;
  standalone_question?: string;
  model: string;
  /** Present when the question was limited to documents the user chose. */
  limited_to?: LimitedTo;
}

/** A step was decided (`action`, before the tool runs), observed (`observation`), or is the final answer (`final`). */
export interface AgentStepEvent extends AgentTurnRef {
  phase: 'action' | 'observation' | 'final';
  step: AgentStep;
}

/** Streamed text of the step being generated: its thought, or the answer. */
export interface AgentTokenEvent extends AgentTurnRef {
  step: number;
  channel: 'thought' | 'answer';
  text: string;
}

/**
 * Answer first: the best passages for the question, quoted and cited, sent as soon as they are
 * found, while `model` writes its answer underneath. The turn's final answer (agent.done) replaces
 * them only when the model's answer verifies; otherwise they stay.
 */
export interface AgentPassagesEvent extends AgentTurnRef {
  answer: string;
  citations: CheckedCitation[];
  /** The model writing the answer. */
  model: string;
  /** Time from the question to these passages. */
  first_answer_ms: number;
}

/** The turn ended (done, cancelled, failed) with its answer, citations (verified or not) and coverage. */
export interface AgentDoneEvent extends AgentTurnRef {
  result: ChatAnswer;
}

export interface ModelsProgressEvent {
  /** The model being downloaded. */
  model_id: string;
  file: string;
  received_bytes: number;
  /** Null when the server does not say. */
  total_bytes: number | null;
}

/** The upgrade of a case's index to the current chunking (`index.reindex`, or on the app's first start after an update). */
export interface IndexProgressEvent {
  case_id: string;
  /** Document versions done, and to do in all. */
  done: number;
  total: number;
  /** The document being upgraded now; null when done. */
  file: string | null;
  state: 'running' | 'done';
}

/** A case's passages made searchable by meaning in the background (see `index.vectors`). */
export type IndexVectorsEvent = IndexVectorsStatus;

/**
 * A followed folder was caught up with (`casefile watch`, the desktop app, serve): the files added
 * and changed (each read as if dropped again), deleted (marked, their copies kept) and back again.
 */
export interface WatchSyncedEvent {
  case_id: string;
  folder: string;
  added: string[];
  changed: string[];
  removed: string[];
  restored: string[];
  /** Why the folder could not be read or added (it is missing, unreadable, or the ingest failed); absent when it was. */
  problem?: string;
}

export interface EngineEvents {
  'cases.changed': CasesChangedEvent;
  'cases.transfer': CasesTransferEvent;
  'ingest.progress': IngestProgress;
  'ingest.file': IngestFileEvent;
  'index.progress': IndexProgressEvent;
  'index.vectors': IndexVectorsEvent;
  'models.changed': ModelsChangedEvent;
  'models.progress': ModelsProgressEvent;
  'agent.turn': AgentTurnEvent;
  'agent.passages': AgentPassagesEvent;
  'agent.step': AgentStepEvent;
  'agent.token': AgentTokenEvent;
  'agent.done': AgentDoneEvent;
  'watch.synced': WatchSyncedEvent;
}

export type EventName = keyof EngineEvents;

/** Runtime list of event names, for shells that must refuse anything else (preload, SSE). */
export const eventNames = [
  'cases.changed',
  'cases.transfer',
  'models.changed',
  'models.progress',
  'ingest.progress',
  'ingest.file',
  'index.progress',
  'index.vectors',
  'agent.turn',
  'agent.passages',
  'agent.step',
  'agent.token',
  'agent.done',
  'watch.synced',
] as const satisfies readonly EventName[];

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (eventNames as readonly string[]).includes(name);
}

export interface EventEnvelope<N extends EventName = EventName> {
  name: N;
  payload: EngineEvents[N];
}
