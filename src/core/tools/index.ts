import type { CitationLedger } from '../domain/index';
import { caseSemantics, type QueryModelsPort } from '../retrieval/semantic';
import type { OpenCasesPort } from '../ports';
import { CaseTools } from './case-tools';
import { caseDocumentSource } from './source';

export { CaseTools } from './case-tools';
export * from './schemas';

/** What the tools need: the open cases and the query models. */
export interface ToolsPorts extends QueryModelsPort {
  openCases: OpenCasesPort;
}

/**
 * The retrieval tools bound to exactly one case. Pass the conversation's ledger so citation ids
 * stay unique and stable within it.
 */
export async function openCaseTools(
  ports: ToolsPorts,
  caseId: string,
  options: { ledger?: CitationLedger } = {},
): Promise<CaseTools> {
  const open = await ports.openCases.open(caseId);
  const store = await open.chunks();
  return new CaseTools({
    caseId,
    store,
    documents: caseDocumentSource(open),
    semantic: async () => caseSemantics(await ports.queryModels(), await open.meta(), store),
    reranker: async () => (await ports.queryModels()).reranker(),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  });
}
