import type { IndexSinkOptions } from '../retrieval/sink';
import type { CasesPort, EventsPort, OpenCasesPort } from '../ports';
import type { PasswordStore } from '../util/passwords';

/** What ingest needs from the engine. */
export interface IngestPorts {
  /** The data home: interrupted jobs are kept in `<home>/jobs`. */
  readonly home: string;
  readonly cases: CasesPort;
  readonly events: EventsPort;
  /** Documents of a case (the Documents view, `files.read`, open-in-viewer). */
  readonly openCases: OpenCasesPort;
  /** Passwords of protected PDFs the user gave (never written in plain text). */
  readonly passwords: PasswordStore;
  /** Where the case's index sink finds its case.json and embedding model. */
  indexSinkOptions(caseId: string): Promise<IndexSinkOptions>;
}
