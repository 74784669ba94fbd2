import type { HandlerMap } from '../router/router';
import { reembedCase, type IndexSinkOptions } from '../retrieval/sink';
import { openCaseTools, type ToolsPorts } from './index';
import { timelineCsv, timelineDocx } from './timeline-export';
import { writeMark } from './chronology-marks';

/** What search needs: the tools' ports, and where a case's index sink reads its model and case.json. */
export interface SearchPorts extends ToolsPorts {
  indexSinkOptions(caseId: string): Promise<IndexSinkOptions>;
}

/** The `search` and `tools.*` operations: each call opens the tools of exactly the case it names. */
export function searchHandlers(ports: SearchPorts): HandlerMap {
  return {
    search: async (input, { signal }) => {
      const { case_id: caseId, mode, k, query, file_ids: fileIds, ...rest } = input;
      const all = await openCaseTools(ports, caseId);
      const tools = fileIds ? (await all.limitedTo(fileIds)).tools : all;
      return tools.search(mode, { ...rest, query, top_k: k }, signal);
    },
    'index.reembed': async ({ case_id: caseId, model_id: modelId }, { signal }) =>
      reembedCase({ ...(await ports.indexSinkOptions(caseId)), modelId: modelId ?? null }, { signal }),
    'tools.findFiles': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).findFiles(args),
    'tools.readFile': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).readFile(args),
    'tools.grepFile': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).grepFile(args),
    'tools.grepCase': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).grepCase(args),
    'tools.outline': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).outline(args),
    'tools.readSection': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).readSection(args),
    'tools.timeline': async ({ case_id: caseId, ...args }) => (await openCaseTools(ports, caseId)).timeline(args),
    'tools.timelineMark': async ({ case_id: caseId, key, mark, note }) => {
      const open = await ports.openCases.open(caseId);
      const saved = await writeMark(open.documents.store.caseDir, key, {
        ...(mark !== undefined ? { mark } : {}),
        ...(note !== undefined ? { note } : {}),
      });
      return { key, mark: saved?.mark ?? null, note: saved?.note ?? '' };
    },
    'tools.timelineExport': async ({ case_id: caseId, format, ...args }) => {
      const open = await ports.openCases.open(caseId);
      const result = await (await openCaseTools(ports, caseId)).timeline(args);
      const caseName = (await open.meta()).name;
      const base = `Chronology - ${caseName.replace(/[\\/:*?"<>|\u0000-\u001f]/g, ' ').trim() || 'case'}`;
      const filters = [
        args.from && `from ${args.from}`,
        args.to && `to ${args.to}`,
        args.query && `about “${args.query}”`,
        args.person && `naming ${args.person}`,
        args.file_name && `in ${args.file_name}`,
      ]
        .filter(Boolean)
        .join(', ');
      if (format === 'csv')
        return { format, filename: `${base}.csv`, csv: timelineCsv(result), events: result.events.length };
      return {
        format,
        filename: `${base}.docx`,
        docx_base64: await timelineDocx(result, { caseName, filters, now: new Date() }),
        events: result.events.length,
      };
    },
  };
}
