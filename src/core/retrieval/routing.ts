/**
 * Document routing: a question that names documents (a party, a title or contract type, a file name)
 * focuses search on them, and the naming words are taken out of the query searched within them so
 * they do not drown the words describing the clause. MiniSearch finds which documents each word
 * names; a word counts only when rare among the documents' names (a party, not "agreement"), and the
 * documents kept weigh at least `ROUTING.keepShare` of the best one's.
 */
import MiniSearch from 'minisearch';
import { readableFileName } from '../util/names';
import { RETRIEVAL_TUNING, type RoutingTuning } from './tuning';

export interface RoutableDocument {
  file_id: string;
  file_name: string;
  title: string;
  parties: string[];
  /** ISO date of the document, or ''. */
  date: string;
}

/** Counts from the case's index that sharpen routing (the tools pass the store's). */
export interface RoutingCounts {
  /** In how many documents' text `term` occurs (every word of it, in one passage), counted up to `cap` + 1. */
  textFrequency?: (term: string, cap: number) => Promise<number>;
  /** The share of the passages of `fileIds` that hold `term`. */
  shareInFocus?: (term: string, fileIds: readonly string[]) => Promise<number>;
  /** The documents whose text holds `term` (every word of it, in one passage); null when more than `cap` do. */
  documentsWith?: (term: string, cap: number) => Promise<string[] | null>;
}

export interface FocusedDocument {
  file_id: string;
  file_name: string;
  title: string;
}

export interface Routing {
  /** The documents the question names, best first. */
  focus: FocusedDocument[];
  /** The question's words that named them, as written. */
  matched: string[];
  /** The question without those words, nor the focused documents' party names: what is searched within them. */
  clauseQuery: string;
}

/** Words that never name a document: function words, question words, and what every legal document is. */
const STOP = new Set(
  (
    'a an the of and or to in on at by for from with without into under over about as is are was were be been being do does did done has have had having ' +
    'can could may might must shall should will would it its this that these those there their them they he she his her him we our you your i me my ' +
    'what which who whom whose when where why how whether if any all each every some such other than then so not no nor only also either neither ' +
    'document documents file files contract contracts agreement agreements case say says said tell show find'
  ).split(' '),
);

/** Lower-case, possessive-free, stop words out. */
export function routingTerm(term: string): string | null {
  const t = term
    .toLowerCase()
    .replace(/['’]s$/, '')
    .replace(/['’]/g, '');
  if (t.length < 2 || STOP.has(t)) return null;
  return t;
}

const FIELDS = ['name', 'title', 'parties', 'year'] as const;

export class DocumentRouter {
  private readonly index: MiniSearch;
  private readonly docs: Map<string, RoutableDocument>;

  /** Each document's names as lower-case words, fields apart (" | "): where a phrase of the question is looked for. */
  private readonly nameWords: Map<string, string>;

  constructor(
    documents: readonly RoutableDocument[],
    private readonly tuning: RoutingTuning = RETRIEVAL_TUNING.routing,
  ) {
    this.docs = new Map(documents.map((d) => [d.file_id, d]));
    this.nameWords = new Map(
      documents.map((d) => [
        d.file_id,
        ` ${[readableFileName(d.file_name), d.title, ...d.parties].map(lowerWords).join(' | ')} `,
      ]),
    );
    this.index = new MiniSearch({
      idField: 'file_id',
      fields: [...FIELDS],
      processTerm: routingTerm,
      searchOptions: { processTerm: routingTerm },
    });
    this.index.addAll(
      documents.map((d) => ({
        file_id: d.file_id,
        // Made readable ("Zounds Hearing Inc"), and as written ("CopAcc", "InVivo": names a camel-case split would break).
        name: `${readableFileName(d.file_name)} ${(d.file_name.split(/[\\/]/).pop() ?? '').replace(/\.[a-z0-9]{1,5}$/i, '').replace(/[_\-.]+/g, ' ')}`,
        title: d.title,
        parties: d.parties.join(' ; '),
        year: d.date.slice(0, 4),
      })),
    );
  }

  get size(): number {
    return this.docs.size;
  }

  /**
   * Whether `word` is in some document's name, title or parties (any case; the start of a word of
   * one), or is the initials of words of one ("MSA" for a Master Services Agreement, "NDA").
   */
  names(word: string): boolean {
    const term = routingTerm(word);
    if (term === null) return false;
    this.initials ??= initialsOf([...this.docs.values()].flatMap((d) => [d.title, readableFileName(d.file_name)]));
    // A prefix too: a file named "BANGIINC_…" names Bangi.
    return this.initials.has(term) || this.index.search(term, { prefix: term.length >= 4, fuzzy: false }).length > 0;
  }

  private initials?: Set<string>;

  /**
   * The question's runs of two or more capitalised words ("Legacy Education Alliance"), and each
   * shorter run inside one, longest first, with the documents whose names hold it: a run counts once,
   * and a shorter run only where no longer one was found ("Simplicity Esports Gaming" of
   * "Simplicity Esports Gaming Company").
   */
  private *phrases(query: string): Generator<{ words: string[]; key: string; at: number; ids: string[] }> {
    for (const m of query.matchAll(/\p{Lu}[\p{L}\p{N}'’&.-]*(?:\s+\p{Lu}[\p{L}\p{N}'’&.-]*)+/gu)) {
      const words = m[0].split(/\s+/).map((w) => w.replace(/[.]$/, ''));
      const found = new Array<boolean>(words.length).fill(false);
      for (let len = words.length; len >= 2; len--) {
        for (let i = 0; i + len <= words.length; i++) {
          if (found.slice(i, i + len).some(Boolean)) continue;
          const part = words.slice(i, i + len);
          if (!part.some((w) => routingTerm(w))) continue;
          const key = lowerWords(part.join(' '));
          const ids = [...this.nameWords].filter(([, names]) => names.includes(` ${key} `)).map(([id]) => id);
          if (!ids.length) continue;
          found.fill(true, i, i + len);
          yield { words: part, key, at: m.index + m[0].indexOf(part[0]!), ids };
        }
      }
    }
  }

  /**
   * A party no document's name gives (the other side of a contract one of them filed: "the IBM
   * hosting contract", "our deal with Ken Turpin"): each name of the question held by the text of
   * one or two documents, with them. Asked only of a question about one document: in one about
   * several ("which agreements are governed by New York law?") a name is what is asked about.
   */
  private async textNamed(
    query: string,
    documentsWith: NonNullable<RoutingCounts['documentsWith']>,
  ): Promise<{ ids: string[]; words: string[]; at: number }[]> {
    const out: { ids: string[]; words: string[]; at: number }[] = [];
    for (const name of capitalisedNames(query)) {
      const ids = await documentsWith(name.text, TEXT_NAMED_DOCS);
      if (ids?.length) out.push({ ids, words: name.words, at: name.at });
    }
    return out;
  }

  /**
   * The documents `query` names, or null when it names none (or too many to be a focus). A word
   * names documents when it is rare both among their names and, when `textFrequency` is given,
   * among their texts: "Zounds" is in one contract, "license" in the text of most of a data room,
   * so "which contracts grant a license?" names none while "the Zounds license" names one.
   */
  async route(query: string, counts: RoutingCounts = {}): Promise<Routing | null> {
    const { textFrequency, shareInFocus } = counts;
    const n = this.docs.size;
    if (n < 2) return null;
    const words = query.match(/[\p{L}\p{N}][\p{L}\p{N}'’.&-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu) ?? [];
    const rare = Math.max(this.tuning.minRareDocs, Math.ceil(this.tuning.rareShare * n));
    const weight = new Map<string, number>();
    const naming = new Set<string>();
    // Documents a word names alone ("Conformis"): where a question about several documents names two
    // or more so, each is kept ("the Conformis and Water Now agreements"), however many words named the other.
    const alone = new Set<string>();
    // Where each document named alone was named, for telling "the X and Y agreements" from two parties of one.
    const namedAt = new Map<string, number[]>();
    const nameAlone = (id: string, at: number) => {
      alone.add(id);
      namedAt.set(id, [...(namedAt.get(id) ?? []), at]);
    };
    // Names of several words ("Link Plus", "Legacy Education Alliance") whose words name nothing alone:
    // capitalised runs found as a phrase in few documents' names.
    for (const run of this.phrases(query)) {
      const hits = run.ids;
      if (hits.length > rare) continue;
      // A defined term every contract uses ("Confidential Information") is not a name, however rare in titles.
      if (textFrequency && (await textFrequency(run.key, rare)) > rare) continue;
      const idf = Math.log(1 + n / hits.length) * run.words.length;
      for (const w of run.words) naming.add(w);
      for (const id of hits) weight.set(id, (weight.get(id) ?? 0) + idf);
      if (hits.length === 1) nameAlone(hits[0]!, run.at);
    }
    for (const word of new Set(words)) {
      for (const part of word.split(/[.&-]/)) {
        const term = routingTerm(part);
        if (!term) continue;
        const fuzzy = term.length >= this.tuning.fuzzyMinLength ? this.tuning.fuzzy : false;
        const hits = this.index.search(term, { fuzzy, prefix: false, combineWith: 'OR' });
        if (hits.length === 0 || hits.length > rare) continue;
        if (textFrequency && (await textFrequency(term, rare)) > rare) continue;
        const idf = Math.log(1 + n / hits.length);
        naming.add(word);
        for (const h of hits) weight.set(String(h.id), (weight.get(String(h.id)) ?? 0) + idf);
        if (hits.length === 1 && idf >= this.tuning.minWeight) nameAlone(String(hits[0]!.id), query.indexOf(word));
      }
    }
    if (weight.size === 0 && counts.documentsWith && !namesSeveral(query))
      for (const { ids: hits, words: named, at } of await this.textNamed(query, counts.documentsWith)) {
        const idf = Math.log(1 + n / hits.length) * named.length;
        for (const w of named) naming.add(w);
        for (const id of hits) weight.set(id, (weight.get(id) ?? 0) + idf);
        if (hits.length === 1) nameAlone(hits[0]!, at);
      }
    if (weight.size === 0) return null;
    const ranked = [...weight].sort((a, b) => b[1] - a[1]);
    const best = ranked[0]![1];
    if (best < this.tuning.minWeight) return null;
    const several = alone.size > 1 && (namesSeveral(query) || namesJoined(query, [...namedAt.values()]));
    const focus = ranked.filter(([id, w]) => w >= best * this.tuning.keepShare || (several && alone.has(id)));
    if (focus.length > this.tuning.maxFocus) return null;
    const matched = [...naming];
    const dropped = new Set(naming);
    // Names of the focused documents' parties that the question used without naming the document by
    // them ("HPS" in the Sykes outsourcing agreement): capitalised words found in many of its passages.
    if (shareInFocus) {
      const ids = focus.map(([id]) => id);
      for (const [i, word] of words.entries()) {
        if (i === 0 || dropped.has(word) || !/^\p{Lu}/u.test(word) || !routingTerm(word)) continue;
        if ((await shareInFocus(word, ids)) >= this.tuning.partyShare) dropped.add(word);
      }
    }
    const clauseQuery = this.tuning.dropNamingWords ? withoutWords(query, dropped) : query;
    return {
      focus: focus.map(([id]) => {
        const d = this.docs.get(id)!;
        return { file_id: d.file_id, file_name: d.file_name, title: d.title };
      }),
      matched,
      clauseQuery: clauseQuery.trim() ? clauseQuery : query,
    };
  }
}

/**
 * Whether a question is about several documents: it compares ("compare", "differ", "both", "each",
 * "which of"), speaks of agreements in the plural, or of an agreement twice ("the X agreement and
 * the Y agreement"). A question about one contract can name two parties that each name a document.
 */
export function namesSeveral(query: string): boolean {
  if (
    /\b(?:compare|comparison|compared|differ|differs|difference|versus|vs|both|each|either|neither|which of)\b/i.test(
      query,
    )
  )
    return true;
  if (/\b(?:agreements|contracts|deals|leases|licenses|documents)\b/i.test(query)) return true;
  return (query.match(/\b(?:agreement|contract|deal|lease|license)\b/gi)?.length ?? 0) >= 2;
}

/**
 * Whether two documents named alone are named side by side: "Sonos against Magenta", "under Verizon
 * and under Data Call", "the Cytodyn limits beside those of Magenta" — an "and", "or", "versus",
 * "against" or "beside" within a few words between their names. Two parties of one contract named
 * in one breath ("MP3.com's deal with Tickets.com", "the agreement between X and Y") are not.
 */
export function namesJoined(query: string, places: number[][]): boolean {
  for (const [i, a] of places.entries())
    for (const b of places.slice(i + 1))
      for (const x of a)
        for (const y of b) {
          const between = query.slice(Math.min(x, y), Math.max(x, y));
          // "the agreement between X and Y" names the two parties of one contract.
          if (/\b(?:between|among)\s+(?:the\s+)?$/i.test(query.slice(0, Math.min(x, y)))) continue;
          if ((between.match(/\s+/g)?.length ?? 0) <= 8 && /\b(?:and|or|versus|vs|against|beside)\b/i.test(between))
            return true;
        }
  return false;
}

/** At most this many documents hold a name in their text for it to name them (a party is in its own contracts). */
const TEXT_NAMED_DOCS = 2;

/**
 * The question's names: runs of capitalised words ("Ken Turpin", "Bank of America", "IBM"), a run's
 * words joined by "of", "and" or "&", without a first word that only opens the sentence.
 */
export function capitalisedNames(query: string): { text: string; words: string[]; at: number }[] {
  const out: { text: string; words: string[]; at: number }[] = [];
  const run =
    /(?:\p{Lu}[\p{L}\p{N}'’&.-]*|\p{N}+\p{L}+)(?:\s+(?:(?:of|and|&|de|la|van|von)\s+)?\p{Lu}[\p{L}\p{N}'’&.-]*)*/gu;
  for (const m of query.matchAll(run)) {
    let words = m[0].split(/\s+/).map((w) => w.replace(/['’]s$|[.,]$/g, ''));
    let at = m.index;
    // The question's first word is capitalised because it opens the sentence ("Can", "Under", "Does").
    if (m.index === 0 || /[.?!]\s*$/.test(query.slice(0, m.index))) {
      at += words[0]!.length + 1;
      words = words.slice(1);
    }
    while (words.length && /^(?:of|and|&|de|la|van|von)$/i.test(words[0]!)) words = words.slice(1);
    const named = words.filter((w) => routingTerm(w) && !/^(?:of|and|&|de|la|van|von)$/i.test(w));
    if (!named.length) continue;
    out.push({ text: words.join(' '), words: named, at });
  }
  return out;
}

/** Lower-case words of a name, joined by single spaces (punctuation between words dropped). */
function lowerWords(text: string): string {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+(?:['’.&-][\p{L}\p{N}]+)*/gu) ?? []).join(' ');
}

/** `query` without `words` (each whole, with a possessive "'s"), its spaces tidied. */
export function withoutWords(query: string, words: Set<string>): string {
  let out = query;
  for (const w of words)
    out = out.replace(
      new RegExp(`(^|[^\\p{L}\\p{N}])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(['’]s)?(?=$|[^\\p{L}\\p{N}])`, 'gu'),
      '$1',
    );
  return out
    .replace(/\s+/g, ' ')
    .replace(/\s+([?.,;:!])/g, '$1')
    .trim();
}

/** The initials of every run of two to six words of each name ("master services agreement" → "msa", "ms", "sa"). */
function initialsOf(names: string[]): Set<string> {
  const out = new Set<string>();
  for (const name of names) {
    const letters = (name.match(/\p{L}[\p{L}\p{N}']*/gu) ?? [])
      .filter((w) => !/^(of|and|the|for|to|in|on)$/i.test(w))
      .map((w) => w[0]!.toLowerCase());
    for (let i = 0; i < letters.length; i++)
      for (let n = 2; n <= 6 && i + n <= letters.length; n++) out.add(letters.slice(i, i + n).join(''));
  }
  return out;
}
