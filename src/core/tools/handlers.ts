import type { Engine } from '../engine';
import type { HandlerMap } from '../router/router';
import { reembedCase } from '../index/sink';
import { engineModelFolders } from '../index/semantic';
import { caseStore, openCaseTools } from './index';

/** The `search` and `tools.*` operations: each call opens the tools of exactly the case it names. */
export function searchHandlers(engine: Engine): HandlerMap {
  return {
    search: async (input, { signal }) => {
      const { caseId, mode, k, query, ...rest } = input;
      const tools = await openCaseTools(engine, caseId);
      return tools.search(mode, { ...rest, query, top_k: k }, signal);
    },
    'index.reembed': async ({ caseId, modelId }, { signal }) => {
      await caseStore(engine, caseId); // not_found for unknown cases
      const { home, modelDirs } = engineModelFolders(engine);
      return reembedCase({ home, caseDir: engine.cases.caseDir(caseId), modelDirs, modelId: modelId ?? null }, { signal });
    },
    'tools.findFiles': async ({ caseId, ...args }) => (await openCaseTools(engine, caseId)).findFiles(args),
    'tools.readFile': async ({ caseId, ...args }) => (await openCaseTools(engine, caseId)).readFile(args),
    'tools.grepFile': async ({ caseId, ...args }) => (await openCaseTools(engine, caseId)).grepFile(args),
    'tools.grepCase': async ({ caseId, ...args }) => (await openCaseTools(engine, caseId)).grepCase(args),
  };
}
