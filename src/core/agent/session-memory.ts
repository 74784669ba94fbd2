/**
 * What each chat has found so far, in the engine's memory: per case and chat, its latest turns with
 * their questions, the documents each focused on and the passages its search returned there
 * (recall.ts decides what a follow-up does with them). Forgotten for a case when its documents
 * change (the agent service listens for that), and checked against the case's documents on every
 * read, so a change made by another process is not missed either.
 */
import type { CheckedCitation } from '../../shared/contract/chat';
import type { SearchResult } from '../../shared/contract/search';
import type { SourceText } from '../citations/verify';
import type { CitationLedger } from '../domain/index';
import type { DocumentInfo } from '../tools/document-source';
import type { RememberedTurn } from './recall';

/** Turns remembered per chat, and chats per case (the least recently asked forgotten first). */
const TURNS = 6;
const CHATS = 50;

interface CaseMemory {
  /** The case's documents when it was remembered (`documentsKey`). */
  documents: string;
  /** Chats by session id, least recently asked first. */
  chats: Map<string, RememberedTurn[]>;
}

/** The case's documents as one key: ids, versions and statuses (a file added, changed, removed or re-read changes it). */
export function documentsKey(files: readonly DocumentInfo[]): string {
  return files
    .map((f) => `${f.id}@${f.version}:${f.status}`)
    .sort()
    .join('|');
}

export class SessionMemory {
  private readonly cases = new Map<string, CaseMemory>();

  /** The chat's remembered turns, oldest first; none when the case's documents are no longer `documents`. */
  turns(caseId: string, sessionId: string, documents: string): readonly RememberedTurn[] {
    const c = this.cases.get(caseId);
    if (!c) return [];
    if (c.documents !== documents) {
      this.cases.delete(caseId);
      return [];
    }
    return c.chats.get(sessionId) ?? [];
  }

  /** Remember a finished turn of the chat (the case's documents as they were when it searched). */
  remember(caseId: string, sessionId: string, documents: string, turn: RememberedTurn): void {
    let c = this.cases.get(caseId);
    if (!c || c.documents !== documents) {
      c = { documents, chats: new Map() };
      this.cases.set(caseId, c);
    }
    const turns = [...(c.chats.get(sessionId) ?? []), turn].slice(-TURNS);
    c.chats.delete(sessionId);
    c.chats.set(sessionId, turns);
    if (c.chats.size > CHATS) c.chats.delete(c.chats.keys().next().value!);
  }

  /** The case's documents changed (added, changed, removed, imported): nothing found before holds. */
  forgetCase(caseId: string): void {
    this.cases.delete(caseId);
  }

  /** A chat was deleted. */
  forgetChat(caseId: string, sessionId: string): void {
    this.cases.get(caseId)?.chats.delete(sessionId);
  }
}

/**
 * The passages a model's answer cites and verification found green, as search results a later
 * follow-up can quote again: the cited words, their place and pages (labelled `good`: they held
 * what the answer said).
 */
export async function citedPassages(
  citations: readonly CheckedCitation[],
  ledger: CitationLedger,
  sourceText: SourceText,
): Promise<SearchResult[]> {
  const out: SearchResult[] = [];
  for (const c of citations) {
    const record = c.verified ? ledger.get(c.id) : undefined;
    if (!record) continue;
    const doc = await sourceText(record.file_id, record.version);
    const text = (typeof doc === 'string' ? doc : doc?.text)?.slice(record.start, record.end);
    if (!text) continue;
    out.push({
      chunk_id: '',
      file_id: record.file_id,
      file_name: record.file_name,
      version: record.version,
      chunk_index: -1,
      pages: [record.pages[0] ?? 1, record.pages.at(-1) ?? 1],
      start: record.start,
      end: record.end,
      text,
      hash: `cited:${record.file_id}@${record.version}:${record.start}-${record.end}`,
      doc_type: '',
      doc_date: '',
      score: 0,
      label: 'good',
      scores: {},
      citation: record,
    });
  }
  return out;
}
