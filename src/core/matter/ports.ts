import type { EventBus } from '../bus';
import type { CaseRegistry } from '../cases/index';

/** What moving a matter needs from the app. */
export interface MatterPorts {
  readonly version: string;
  readonly home: string;
  readonly cases: CaseRegistry;
  readonly events: Pick<EventBus, 'emit'>;
  /**
   * Run `fn` while nothing writes the case: behind its ingest, removals and index work in this
   * process (its queue), under its cross-process lock (a conflict while another process holds it).
   */
  exclusive<T>(caseId: string, fn: () => Promise<T>): Promise<T>;
  /**
   * Stop everything that holds the case (ingest, watching, chat turns, the open index) before its
   * folder is set aside for a new version; its firm members stay with its id.
   */
  beforeCaseReplace(caseId: string): Promise<void>;
}
