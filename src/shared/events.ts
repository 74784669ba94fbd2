/**
 * Events the engine emits. Every shell forwards all of them (IPC, SSE, CLI trace).
 * Each payload names its case so a window only shows what belongs to the open case.
 */
import type { IngestFileEvent, IngestProgress } from './contract/ingest';

export interface CasesChangedEvent {
  caseId: string;
  kind: 'created' | 'renamed' | 'deleted' | 'files';
}

export interface ModelsChangedEvent {
  modelId: string;
  kind: 'imported' | 'default';
}

export interface EngineEvents {
  'cases.changed': CasesChangedEvent;
  'ingest.progress': IngestProgress;
  'ingest.file': IngestFileEvent;
  'models.changed': ModelsChangedEvent;
}

export type EventName = keyof EngineEvents;

/** Runtime list of event names, for shells that must refuse anything else (preload, SSE). */
export const eventNames = ['cases.changed', 'models.changed', 'ingest.progress', 'ingest.file'] as const satisfies readonly EventName[];

export function isEventName(name: unknown): name is EventName {
  return typeof name === 'string' && (eventNames as readonly string[]).includes(name);
}

export interface EventEnvelope<N extends EventName = EventName> {
  name: N;
  payload: EngineEvents[N];
}
