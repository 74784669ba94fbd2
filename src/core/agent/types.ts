import type { z } from 'zod';
import type { CitationRecord } from '../../shared/contract/search';

export type { CitationRecord };

/** One passage (or match) a tool returned, in the form the loop de-duplicates and formats for the model. */
export interface PassageItem {
  cite: string;
  file_name: string;
  pages: number[];
  text: string;
  /** Content hash (chunk text); de-duplication and the rejection set key on it. */
  hash?: string;
  chunk_id?: string;
  label?: string;
  score?: number;
  file_id?: string;
  /** Where the passage sits in its document ("7 Limitation of Liability › 7.2 Cap"). */
  section?: string;
}

/** What a tool call contributes to the turn's coverage note. */
export interface CoverageDelta {
  total?: number;
  listed?: string[];
  searched?: string[];
  read?: string[];
  unsearchable?: { file_name: string; status: string; reason?: string }[];
  /** The call searched every readable file of the case (grepCase without filters). */
  wholeCase?: boolean;
}

export interface ToolOutcome {
  /** Plain text for the model (file lists, read windows, coverage lines). Passages go in `items`. */
  text: string;
  items?: PassageItem[];
  count: number;
  best_label?: string;
  citations: CitationRecord[];
  coverage?: CoverageDelta;
  /** A search focused on the document a question names: the section its best passage lies in, to read whole before answering. */
  readNext?: SectionRef;
  /** What a read returned (readFile, readSection): the file, where its text starts, the text; the tool check compares it with the document. */
  read?: { file_id: string; start: number; text: string };
}

/** What the tool check (tool-check.ts) reads of the case, without issuing citations. */
export interface CaseFacts {
  /** The files in reach of the turn: id and name. */
  files(): Promise<{ id: string; name: string }[]>;
  /** A file's latest text and, when `section` is given, that section's range; null when unreadable. */
  text(
    fileId: string,
    section?: string,
  ): Promise<{ text: string; section?: { id: string; start: number; end: number } } | null>;
}

/** A section of one document, for `readSection`. */
export interface SectionRef {
  file_id: string;
  section: string;
  /** "msa.txt § 3 Term and Termination", for the trace. */
  label: string;
}

export interface ToolContext {
  signal: AbortSignal;
  /** Hashes the loop has judged useless in earlier rounds; search tools exclude them. */
  rejected: ReadonlySet<string>;
}

/** A tool the loop can call. The case tools are adapted to this shape in `case-tools.ts`. */
export interface AgentTool<I = Record<string, unknown>> {
  name: string;
  description: string;
  inputSchema: z.ZodType<I>;
  /** Properties a constrained (grammar) step must always fill; the others are left to their defaults. */
  grammarProperties?: Record<string, unknown>;
  /**
   * Arguments this turn supplies when the model's call leaves them out (the user's retrieval
   * settings); an argument the model sets wins. The step's `input` shows the merged arguments.
   */
  defaults?: Record<string, unknown>;
  run(input: I, ctx: ToolContext): Promise<ToolOutcome>;
}

/** Declare a tool with its input typed from its schema (the loop validates before `run`). */
export function defineTool<S extends z.ZodType>(spec: {
  name: string;
  description: string;
  inputSchema: S;
  grammarProperties?: Record<string, unknown>;
  defaults?: Record<string, unknown>;
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolOutcome>;
}): AgentTool {
  return spec as unknown as AgentTool;
}

/** A turn stopped by its abort signal (a cancel): the loop returns the partial trace. */
export class CancelledError extends Error {
  constructor() {
    super('Cancelled.');
    this.name = 'AbortError';
  }
}
