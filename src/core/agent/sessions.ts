/**
 * Chat sessions of one case, under `<caseDir>/chats/<sessionId>.json` (atomic writes). A session
 * keeps its messages (user questions; assistant answers with their citations, trace, coverage and
 * chunk references) and the conversation's citation records, so ids stay valid across turns.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ChatMessage, ChatSession, ChatSessionSummary, ChunkRef } from '../../shared/contract/chat';
import type { CitationRecord } from '../../shared/contract/search';
import { CasefileError } from '../../shared/errors';
import { KeyedQueue } from '../util/concurrency';
import { cleanTempFiles, readJson, writeJsonAtomic } from '../util/fs';
import { newId } from '../util/ids';
import type { HistoryMessage } from './loop';
import { chatTitle, type TitledChat, toldApart } from './titles';

export const SESSION_SCHEMA_VERSION = 1;

const SessionFile = z.object({
  schemaVersion: z.literal(SESSION_SCHEMA_VERSION),
  id: z.string(),
  caseId: z.string(),
  title: z.string(),
  created: z.string(),
  updated: z.string(),
  messages: z.array(z.custom<ChatMessage>((v) => typeof v === 'object' && v !== null)),
  ledger: z.array(z.custom<CitationRecord>((v) => typeof v === 'object' && v !== null)).default([]),
});
export type SessionFile = z.infer<typeof SessionFile>;

const locks = new KeyedQueue<string>();

export class ChatStore {
  readonly dir: string;

  constructor(
    readonly caseId: string,
    caseDir: string,
  ) {
    this.dir = path.join(caseDir, 'chats');
  }

  private file(sessionId: string): string {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(sessionId))
      throw CasefileError.withRemedy('invalid_input', `“${sessionId}” is not a chat id.`, {
        app: 'Pick the chat from the case’s list of chats.',
        cli: 'Pick the chat from the case’s list of chats (casefile chat list).',
      });
    return path.join(this.dir, `${sessionId}.json`);
  }

  async read(sessionId: string): Promise<SessionFile> {
    let raw: unknown;
    try {
      raw = await readJson(this.file(sessionId));
    } catch (err) {
      throw new CasefileError(
        'failed',
        `The chat session ${sessionId} is unreadable (${(err as Error).message}); delete it and start a new one.`,
      );
    }
    if (raw === undefined) throw new CasefileError('not_found', `No chat session ${sessionId} in this case.`);
    const parsed = SessionFile.safeParse(raw);
    if (!parsed.success)
      throw new CasefileError(
        'failed',
        `The chat session ${sessionId} is damaged: ${parsed.error.issues[0]?.message}.`,
      );
    return { ...parsed.data, messages: parsed.data.messages.map(currentMessage) };
  }

  /** Read-modify-write under a per-session lock, written atomically. */
  async update<T>(sessionId: string, change: (s: SessionFile) => T | Promise<T>): Promise<T> {
    const key = this.file(sessionId);
    return locks.run(key, async () => {
      const s = await this.read(sessionId);
      const out = await change(s);
      s.updated = new Date().toISOString();
      await writeJsonAtomic(key, s);
      return out;
    });
  }

  async create(firstQuestion: string): Promise<SessionFile> {
    await fs.mkdir(this.dir, { recursive: true });
    const now = new Date().toISOString();
    const s: SessionFile = {
      schemaVersion: SESSION_SCHEMA_VERSION,
      id: newId('s', 12),
      caseId: this.caseId,
      title: chatTitle(firstQuestion, await this.titled()) || 'New chat',
      created: now,
      updated: now,
      messages: [],
      ledger: [],
    };
    await writeJsonAtomic(this.file(s.id), s);
    return s;
  }

  /**
   * The case's chats, latest first. Chats titled alike (saved before new titles were told apart)
   * are listed with the later one's title told apart, oldest first; the files keep theirs.
   */
  async list(): Promise<ChatSessionSummary[]> {
    await cleanTempFiles(this.dir);
    return (await this.titled())
      .map(({ s, title }) => ({ ...summary(s), title }))
      .sort((a, b) => b.updated.localeCompare(a.updated));
  }

  /** Each readable chat, oldest first, with its first question and its title as listed (told apart). */
  private async titled(): Promise<(TitledChat & { s: SessionFile })[]> {
    const shown: (TitledChat & { s: SessionFile })[] = [];
    for (const s of (await this.readAll()).sort((a, b) => a.created.localeCompare(b.created))) {
      const question = s.messages.find((m) => m.role === 'user')?.content ?? '';
      shown.push({ s, question, title: toldApart(s.title, question, shown) });
    }
    return shown;
  }

  /** The readable sessions (a damaged session file is skipped in the list; opening it says why). */
  private async readAll(): Promise<SessionFile[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    const out: SessionFile[] = [];
    for (const n of names) {
      if (!n.endsWith('.json')) continue;
      try {
        out.push(await this.read(n.slice(0, -5)));
      } catch {
        // skipped, as in the list
      }
    }
    return out;
  }

  async rename(sessionId: string, title: string): Promise<ChatSessionSummary> {
    return this.update(sessionId, (s) => {
      s.title = title;
      return s;
    }).then(summary);
  }

  async delete(sessionId: string): Promise<void> {
    await this.read(sessionId);
    await fs.rm(this.file(sessionId), { force: true });
  }
}

/** A message of a session saved before 0.2 names its turn `turnId`: read as `turn_id` (written so at the next save). */
function currentMessage(m: ChatMessage): ChatMessage {
  const { turnId, ...rest } = m as ChatMessage & { turnId?: unknown };
  if (typeof turnId !== 'string') return m;
  return { ...rest, turn_id: typeof m.turn_id === 'string' ? m.turn_id : turnId };
}

export function summary(s: SessionFile): ChatSessionSummary {
  return {
    id: s.id,
    case_id: s.caseId,
    title: s.title,
    created: s.created,
    updated: s.updated,
    messages: s.messages.length,
  };
}

export function toSession(s: SessionFile): ChatSession {
  return { ...summary(s), messages_list: s.messages };
}

/** The clean user/assistant messages to replay: finished turns only, no traces, newest `maxTurns` turns. */
export function replayHistory(messages: ChatMessage[], maxTurns = 4): HistoryMessage[] {
  const turns: HistoryMessage[][] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    const next = messages[i + 1];
    if (
      m.role === 'user' &&
      next?.role === 'assistant' &&
      next.turn_id === m.turn_id &&
      next.status === 'done' &&
      next.content.trim()
    ) {
      turns.push([
        { role: 'user', content: m.content },
        { role: 'assistant', content: next.content },
      ]);
      i++;
    }
  }
  return turns.slice(-maxTurns).flat();
}

/** Chunk references of the latest finished turns, as a few lines for the model. */
export function priorRefs(messages: ChatMessage[], maxTurns = 2, maxRefs = 8): string {
  const refs: ChunkRef[] = [];
  const finished = messages
    .filter((m) => m.role === 'assistant' && m.status === 'done' && m.refs?.length)
    .slice(-maxTurns);
  for (const m of finished) refs.push(...(m.refs ?? []));
  const unique = [...new Map(refs.map((r) => [r.cite, r])).values()].slice(-maxRefs);
  return unique
    .map(
      (r) =>
        `- [cite:${r.cite}] ${r.file_name} p.${r.pages.join('-')}${r.chunk_id ? ` chunk_id=${r.chunk_id}` : ''}: ${r.summary}`,
    )
    .join('\n');
}
