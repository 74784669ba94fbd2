/**
 * The tool check: the policy in code that catches a tool failing silently. Before a call runs, its
 * arguments are checked (a file name or id the case does not have is matched to the nearest
 * document; an empty or one-character query becomes the question). After it runs, its result is
 * checked against the call (a search limited to a document that returns passages of another; a
 * read that returns text of another section or place; a grep that reports no match for a pattern the
 * document's text holds). A contradicted call runs once more with corrected arguments; a result
 * that still contradicts its call is not shown, so no answer is built on it.
 */
import { compileUserRegex, guardedMatchAll } from '../tools/regex';
import type { ParsedStep } from './prompt';
import type { CaseFacts, PassageItem, ToolOutcome } from './types';

/** What every note of this check starts with in the trace. */
export const CORRECTED = 'Corrected:';

/** Tools whose `query` is free text the model writes. */
const QUERY_TOOLS = new Set(['retrieve', 'keyword_search', 'vector_search']);
/** Tools that take a file by id. */
const FILE_ID_TOOLS = new Set(['readFile', 'outline', 'readSection', 'grepFile']);
/** The inventory lists by name: an empty listing is its honest answer, so its filters are left alone. */
const LISTING = 'findFiles';

/** A nearest name must be at least this close (1 = the same) to be used in place of the one given. */
const NEAR_ENOUGH = 0.5;

interface CaseFile {
  id: string;
  name: string;
}

/** A result that contradicts its call: what is wrong, the arguments to run it again with, the passages that agree with the call. */
export interface Contradiction {
  what: string;
  retry: Record<string, unknown>;
  keep: PassageItem[];
}

/** The outcome of checking one result: what to show, and the note and arguments when it was corrected. */
export interface Settled {
  outcome: ToolOutcome;
  note?: string;
  input?: Record<string, unknown>;
}

function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

const norm = (s: string) => s.trim().toLocaleLowerCase().replace(/\\/g, '/');
const base = (s: string) => s.slice(s.lastIndexOf('/') + 1);
const stem = (s: string) => base(s).replace(/\.[a-z0-9]{1,5}$/, '');

function similarity(a: string, b: string): number {
  if (!a || !b) return 0;
  return 1 - levenshtein(a, b) / Math.max(a.length, b.length);
}

/** How close a name the model gave is to a document's name (whole path, file name, or file name without extension). */
function nameScore(given: string, name: string): number {
  const g = norm(given);
  const n = norm(name);
  if (g.length >= 3 && (base(n).includes(g) || stem(n).includes(stem(g)))) return 0.9;
  return Math.max(similarity(g, n), similarity(base(g), base(n)), similarity(stem(g), stem(n)));
}

/** The document whose name is nearest to `given`; null when none is near enough or two are equally near. */
export function nearestFile(given: string, files: readonly CaseFile[]): CaseFile | null {
  const scored = files.map((f) => ({ f, score: nameScore(given, f.name) })).sort((a, b) => b.score - a.score);
  const [best, next] = scored;
  if (!best || best.score < NEAR_ENOUGH) return null;
  if (next && next.score === best.score) return null;
  return best.f;
}

/** The file an unknown id most likely means: one whose name was given as the id, an id with a typo or cut short, or the nearest name. */
function fileForId(given: string, files: readonly CaseFile[]): CaseFile | null {
  const g = given.trim();
  const byName = files.filter((f) => norm(f.name) === norm(g) || base(norm(f.name)) === norm(g));
  if (byName.length === 1) return byName[0]!;
  const byId = files.filter(
    (f) =>
      (g.length >= 6 && (f.id.startsWith(g) || g.startsWith(f.id))) || (f.id.length >= 8 && levenshtein(f.id, g) <= 2),
  );
  if (byId.length === 1) return byId[0]!;
  return nearestFile(g, files);
}

/** Tools whose `file_name` also picks every document whose name holds it (the chronology). */
const LOOSE_NAME = new Set(['timeline']);

/** Does a passage's document satisfy the call's file filter (`tool`'s way of reading `file_name`)? */
function inFilter(input: Record<string, unknown>, fileName: string, tool = ''): boolean {
  const name = input.file_name;
  if (
    typeof name === 'string' &&
    fileName !== name &&
    !(LOOSE_NAME.has(tool) && fileName.toLocaleLowerCase().includes(name.toLocaleLowerCase()))
  )
    return false;
  const contains = input.file_name_contains;
  return typeof contains !== 'string' || fileName.toLocaleLowerCase().includes(contains.toLocaleLowerCase());
}

const quoted = (s: string) => `“${s}”`;

export class ToolCheck {
  private filesOnce: Promise<CaseFile[]> | null = null;

  constructor(
    private readonly facts: CaseFacts,
    /** The question, for a query that says nothing. */
    private readonly question: string,
  ) {}

  private files(): Promise<CaseFile[]> {
    this.filesOnce ??= this.facts.files();
    return this.filesOnce;
  }

  /** The call with its arguments checked: a corrected call and the trace's notes (none when the call is sound). */
  async before(action: ParsedStep): Promise<{ action: ParsedStep; notes: string[] }> {
    if (action.action === LISTING) return { action, notes: [] };
    const input = { ...action.input };
    const notes: string[] = [];
    const query = input.query;
    if (
      QUERY_TOOLS.has(action.action) &&
      (query === undefined || (typeof query === 'string' && query.trim().length <= 1))
    ) {
      if (this.question.trim()) {
        input.query = this.question;
        notes.push(
          `${CORRECTED} the query ${quoted(typeof query === 'string' ? query.trim() : '')} was empty or one character: searched the question`,
        );
      }
    }
    const files = await this.files();
    if (typeof input.file_name === 'string' && !files.some((f) => inFilter(input, f.name, action.action))) {
      notes.push(this.renamed(input, 'file_name', input.file_name, files));
    }
    if (
      typeof input.file_name_contains === 'string' &&
      !files.some((f) => inFilter({ file_name_contains: input.file_name_contains }, f.name))
    ) {
      notes.push(this.renamed(input, 'file_name_contains', input.file_name_contains, files));
    }
    if (
      FILE_ID_TOOLS.has(action.action) &&
      typeof input.file_id === 'string' &&
      !files.some((f) => f.id === input.file_id)
    ) {
      const file = fileForId(input.file_id, files);
      if (file) {
        notes.push(
          `${CORRECTED} no document has the id ${quoted(input.file_id)}: used ${file.name}, the nearest document`,
        );
        input.file_id = file.id;
      }
    }
    return notes.length ? { action: { ...action, input }, notes } : { action, notes };
  }

  /** A file filter that names no document: the nearest document by name, or no filter when none is near. */
  private renamed(
    input: Record<string, unknown>,
    key: 'file_name' | 'file_name_contains',
    given: string,
    files: readonly CaseFile[],
  ): string {
    delete input[key];
    const file = nearestFile(given, files);
    if (!file) return `${CORRECTED} no document is named ${quoted(given)} and none is close: searched the whole case`;
    // The exact name (a tool that filters by part of a name only is given the whole name as that part).
    input[key] = file.name;
    return `${CORRECTED} no document is named ${quoted(given)}: searched ${file.name}, the nearest name`;
  }

  /** The way `outcome` contradicts the call `input` of `tool`, or null when it does not. */
  async after(tool: string, input: Record<string, unknown>, outcome: ToolOutcome): Promise<Contradiction | null> {
    if (tool === LISTING) return null;
    const items = outcome.items ?? [];
    if (typeof input.file_name === 'string' || typeof input.file_name_contains === 'string') {
      const off = items.filter((i) => !inFilter(input, i.file_name, tool));
      if (off.length) {
        const filter = String(input.file_name ?? input.file_name_contains);
        const others = [...new Set(off.map((i) => i.file_name))].join(', ');
        return {
          what: `the search limited to ${filter} returned ${off.length} passage${off.length === 1 ? '' : 's'} from ${others}`,
          retry: QUERY_TOOLS.has(tool) ? await this.exactFilter(input) : input,
          keep: items.filter((i) => inFilter(input, i.file_name, tool)),
        };
      }
    }
    // The check reads a document's latest text: a call for an older version, or one limited by type, is taken as it comes.
    if (input.version !== undefined) return null;
    if (outcome.read && typeof input.file_id === 'string') return this.readContradiction(tool, input, outcome.read);
    if ((tool === 'grepFile' || tool === 'grepCase') && outcome.count === 0 && input.doc_type === undefined)
      return this.grepContradiction(tool, input);
    return null;
  }

  /** A `file_name_contains` that fits one document becomes that document's exact name. */
  private async exactFilter(input: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (typeof input.file_name_contains !== 'string') return input;
    const fits = (await this.files()).filter((f) => inFilter(input, f.name));
    if (fits.length !== 1) return input;
    const { file_name_contains: _contains, ...rest } = input;
    return { ...rest, file_name: fits[0]!.name };
  }

  /** A read whose text is of another document, another section, or not at that place in the document. */
  private async readContradiction(
    tool: string,
    input: Record<string, unknown>,
    read: NonNullable<ToolOutcome['read']>,
  ): Promise<Contradiction | null> {
    const fileId = input.file_id as string;
    const wanted = tool === 'readSection' && typeof input.section === 'string' ? input.section : undefined;
    const doc = await this.facts.text(fileId, wanted);
    if (!doc) return null;
    const name = (await this.files()).find((f) => f.id === fileId)?.name ?? fileId;
    if (read.file_id !== fileId)
      return { what: `${tool} of ${name} returned the text of another document`, retry: input, keep: [] };
    if (wanted !== undefined && doc.section && read.start !== doc.section.start)
      return {
        what: `${tool} of ${name} § ${wanted} returned the text of another section`,
        retry: { ...input, section: doc.section.id },
        keep: [],
      };
    if (doc.text.slice(read.start, read.start + read.text.length) !== read.text)
      return {
        what: `${tool} of ${name} returned text that is not at that place in the document`,
        retry: input,
        keep: [],
      };
    return null;
  }

  /** A grep that found nothing where the document's text holds the pattern (one guarded test per file). */
  private async grepContradiction(tool: string, input: Record<string, unknown>): Promise<Contradiction | null> {
    if (typeof input.pattern !== 'string') return null;
    let re: RegExp;
    try {
      re = compileUserRegex(input.pattern, typeof input.flags === 'string' ? input.flags : '');
    } catch {
      return null;
    }
    const files =
      tool === 'grepFile'
        ? (await this.files()).filter((f) => f.id === input.file_id)
        : (await this.files()).filter((f) => inFilter(input, f.name));
    for (const f of files) {
      const doc = await this.facts.text(f.id);
      if (!doc) continue;
      try {
        if (guardedMatchAll(re, doc.text, 1).total > 0)
          return {
            what: `${tool} reported no match for ${quoted(input.pattern)}, but ${f.name} contains it`,
            retry: input,
            keep: [],
          };
      } catch {
        // A pattern too slow to test is left to the tool's own answer.
      }
    }
    return null;
  }

  /**
   * Check `outcome` of `tool` called with `input`; when it contradicts the call, run it once more
   * (`rerun`) with corrected arguments. What comes back is what the model may see: the retry's result
   * when it holds, else only the passages that agree with the call, with the reason.
   */
  async settle(
    tool: string,
    input: Record<string, unknown>,
    outcome: ToolOutcome,
    rerun: (input: Record<string, unknown>) => Promise<ToolOutcome>,
  ): Promise<Settled> {
    const first = await this.after(tool, input, outcome);
    if (!first) return { outcome };
    const changed = JSON.stringify(first.retry) !== JSON.stringify(input);
    let again: Contradiction | null = first;
    let second: ToolOutcome | null = null;
    try {
      second = await rerun(first.retry);
      again = await this.after(tool, first.retry, second);
    } catch {
      second = null;
    }
    if (second && !again) {
      const how = changed ? `ran it again with ${changedArgs(input, first.retry)}` : 'ran it again';
      return { outcome: second, input: first.retry, note: `${CORRECTED} ${first.what}; ${how}` };
    }
    const keep = again?.keep ?? first.keep;
    return {
      outcome: withheld(tool, first.what, keep),
      note: `${CORRECTED} ${first.what}; the retry did not hold either, so that result was not used`,
    };
  }
}

/** The arguments a retry changed, in words: `file_name “contracts/msa.txt”`. */
function changedArgs(before: Record<string, unknown>, after: Record<string, unknown>): string {
  return Object.entries(after)
    .filter(([k, v]) => JSON.stringify(before[k]) !== JSON.stringify(v))
    .map(([k, v]) => `${k} ${quoted(String(v))}`)
    .join(', ');
}

/** What the model sees of a result that contradicts its call: the reason, and only the passages that agree with the call. */
function withheld(tool: string, what: string, keep: PassageItem[]): ToolOutcome {
  return {
    text: `The result of ${tool} contradicted its call (${what}) and was not used${keep.length ? `; the ${keep.length} passage${keep.length === 1 ? '' : 's'} that fit the call are kept` : ''}. Do not answer from it; try another call.`,
    items: keep,
    count: keep.length,
    citations: [],
  };
}
