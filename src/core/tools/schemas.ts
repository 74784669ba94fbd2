import { z } from 'zod';
import { AGENT_TOP_K_DEFAULT, AGENT_TOP_K_MAX } from '../../shared/retrieval';
import {
  FindFilesInput,
  TimelineInput,
  GrepCaseInput,
  GrepFileInput,
  OutlineInput,
  ReadFileInput,
  ReadSectionInput,
  SearchFilters,
} from '../../shared/contract/search';

/**
 * Input schemas of the case tools (bound to one case, so no caseId). The agent turns these into
 * its tool definitions; every tool validates its input with them and names bad fields.
 */
const Query = z.string({ error: 'query is required' }).trim().min(1, 'query must not be empty').max(4000);
const TopK = z.number().int().min(1).max(AGENT_TOP_K_MAX).default(AGENT_TOP_K_DEFAULT);
const RejectHashes = z.array(z.string().max(128)).max(10_000).optional();

export const FindFilesArgs = FindFilesInput.omit({ case_id: true });
export const TimelineArgs = TimelineInput.omit({ case_id: true });
export const RetrieveArgs = SearchFilters.extend({
  query: Query,
  top_k: TopK,
  score_threshold: z.number().optional(),
  rerank_top_n: z.number().int().min(1).max(200).optional(),
  reject_hashes: RejectHashes,
}).strict();
export const SingleModeSearchArgs = SearchFilters.extend({
  query: Query,
  top_k: TopK,
  score_threshold: z.number().optional(),
  reject_hashes: RejectHashes,
}).strict();
export const ReadFileArgs = ReadFileInput.omit({ case_id: true });
export const GrepFileArgs = GrepFileInput.omit({ case_id: true });
export const GrepCaseArgs = GrepCaseInput.omit({ case_id: true });
export const OutlineArgs = OutlineInput.omit({ case_id: true });
export const ReadSectionArgs = ReadSectionInput.omit({ case_id: true });
export const AdjacentChunksArgs = z
  .object({
    chunk_id: z.string({ error: 'chunk_id is required' }).min(1).max(2000),
    before: z.number().int().min(0).max(20).default(1),
    after: z.number().int().min(0).max(20).default(1),
  })
  .strict();

export type FindFilesArgs = z.input<typeof FindFilesArgs>;
export type TimelineArgs = z.input<typeof TimelineArgs>;
export type RetrieveArgs = z.input<typeof RetrieveArgs>;
export type SingleModeSearchArgs = z.input<typeof SingleModeSearchArgs>;
export type ReadFileArgs = z.input<typeof ReadFileArgs>;
export type GrepFileArgs = z.input<typeof GrepFileArgs>;
export type GrepCaseArgs = z.input<typeof GrepCaseArgs>;
export type OutlineArgs = z.input<typeof OutlineArgs>;
export type ReadSectionArgs = z.input<typeof ReadSectionArgs>;
export type AdjacentChunksArgs = z.input<typeof AdjacentChunksArgs>;
