/**
 * What a chat's memory may do for a follow-up, as pure decisions (the policy in code, never the
 * model's choice): answer from the passages the chat found earlier without searching again, search
 * again within the documents the earlier question was about, or search as usual.
 *
 * Passages found earlier are used only when the follow-up is elliptical ("and how much notice?"),
 * speaks of no family of clause the earlier questions did not, and the earlier turn focused on one
 * document; a follow-up about another family ("what about the royalties?") is searched again, and
 * one that names no document keeps the earlier turn's documents.
 */
import type { SearchFocus, SearchResult } from '../../shared/contract/search';
import { contentWords } from '../util/words';

/** The step of a follow-up answered from passages found earlier in the chat ("Used 3 passages found earlier"). */
export const EARLIER_PASSAGES = 'earlier_passages';

/** A document a turn focused on. */
export type FocusedFile = SearchFocus['files'][number];

/** One turn a chat remembers. */
export interface RememberedTurn {
  question: string;
  /** The families of clause it spoke of (`familiesOf`). */
  families: string[];
  /** The question was elliptical (`isElliptical`): it leant on the one before. */
  elliptical: boolean;
  /** The documents it focused on (named by it, or kept from the turn before); empty: the whole case. */
  focus: FocusedFile[];
  /** Passages its search returned within those documents, best first (none when it used earlier ones). */
  passages: SearchResult[];
}

/**
 * Families of clause: a follow-up within the family of the earlier questions may be answered by
 * what they found; one outside it needs its own search. Words matched on the lower-cased question.
 */
const CLAUSE_FAMILIES: readonly { family: string; words: RegExp }[] = [
  {
    family: 'how it ends',
    words:
      /\b(terminat\w*|cancel\w*|renew\w*|roll(s|ed|ing)? (over|into)|extend\w*|extension|expir\w*|term|duration|how long|lasts?|until when|end(s|ed|ing)?|get out|walk away|wind[- ]?down|transition|surviv\w*|breach\w*|effective|take effect|takes effect|start(s|ed)?|begins?|dated?|signed|executed|entered into)\b/,
  },
  {
    family: 'competition',
    words:
      /\b(compet\w*|non-?compete|rivals?|exclusiv\w*|sole|only (one|distributor|supplier|carrier|company|provider|reseller|seller|partner)|anyone else|solicit\w*|poach\w*|hire|hiring|recruit\w*|lur(e|ing) away)\b/,
  },
  {
    family: 'intellectual property',
    words:
      /\b(intellectual property|ip|owns|owned|owner\w*|ownership|inventions?|patents?|copyrights?|trademarks?|logos?|likeness|licen[cs]\w*|sub-?licen[cs]\w*|perpetu\w*|irrevocab\w*|source code|escrow|work product|know-how)\b/,
  },
  {
    family: 'money',
    words:
      /\b(pay\w*|paid|fees?|prices?|pricing|royalt\w*|revenue|commissions?|costs?|compensat\w*|invoic\w*|audit\w*|books|records|inspect\w*|minimum|percent\w*|split|share of|cut of|most favou?red|donat\w*|earns?|charges?)\b/,
  },
  {
    family: 'liability',
    words:
      /\b(liab\w*|cap(ped)?|ceiling|indemn\w*|insur\w*|coverage|warrant\w*|damages|lost profits?|defect\w*|guarantee\w*|hold harmless|penalt\w*|liquidated|consequential|indirect)\b/,
  },
  { family: 'governing law', words: /\b(law|laws|govern\w*|jurisdiction|courts?|venue|disputes?|arbitrat\w*)\b/ },
  {
    family: 'assignment',
    words:
      /\b(assign\w*|transfer\w*|hand (it |\w+ )?(off|over)|pass (it |\w+ )?on|acquired|acquisition|takeover|change (of|in) (control|ownership)|merg\w*|sold|successor)\b/,
  },
  { family: 'confidentiality', words: /\b(confidential\w*|secre(t|cy)|non-?disclosure|disclos\w*)\b/ },
  {
    family: 'first refusal',
    words: /\b(first (refusal|offer|negotiation|look|dibs|chance)|match (an|any|the) offer)\b/,
  },
  { family: 'suits', words: /\b(sue|suing|lawsuits?|challenge|contest|disparag\w*|bad-?mouth\w*)\b/ },
  { family: 'third parties', words: /\b(third[- ]part(y|ies)|beneficiar\w*)\b/ },
];

/** The families of clause a question speaks of, in the table's order. */
export function familiesOf(question: string): string[] {
  const lower = question.toLowerCase();
  return CLAUSE_FAMILIES.filter((f) => f.words.test(lower)).map((f) => f.family);
}

/** How a follow-up that leans on the question before it starts. */
const OPENERS =
  /^\s*(and|but|also|so|plus|then|what about|how about|what if|what else|how much|how many|how long|when)\b/i;
/** A follow-up this short (in words) leans on the question before it. */
const SHORT_WORDS = 8;
/** Words that say nothing of what is asked about: "does it need?", "what does the contract say?". */
const EMPTY_WORDS = new Set(
  contentWords(
    'need needs needed require requires required say says happen happens apply applies mean means allow allowed ' +
      'get gets give gives go one ones clause clauses section sections provision provisions deal deals contract contracts ' +
      'much many long well else way there case document documents thing things anything something about',
  ),
);

/**
 * The follow-up leans on the question before it: short, or opening as a continuation ("and",
 * "what about", "how much", "when"), or speaking of nothing beyond its family of clause.
 */
export function isElliptical(question: string): boolean {
  const words = question.match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length <= SHORT_WORDS || OPENERS.test(question)) return true;
  let rest = question.toLowerCase();
  for (const f of CLAUSE_FAMILIES) rest = rest.replace(new RegExp(f.words.source, 'g'), ' ');
  return contentWords(rest).every((w) => EMPTY_WORDS.has(w));
}

/** A question about the case's documents at large, not the one the chat was about: "which contracts…", "any other agreement". */
const ABOUT_THE_CASE =
  /\b(which (of (the|these|those|our|my) )?(contracts|agreements|documents|deals|ones)|(contracts|agreements|documents|deals) (that|which|with|where)|any (other )?(contract|agreement|document|deal)s?|other (contracts|agreements|documents|deals)|all (the |of the |our )?(contracts|agreements|documents|deals)|in (the|this) case|across|compare|comparison)\b/i;

/** Why a follow-up was searched again within the earlier documents. */
export type FocusReason = 'another family' | 'not elliptical' | 'nothing remembered' | 'several documents';

export type RecallPlan =
  /** Search as usual: nothing remembered, the earlier turn focused on no document, the follow-up names others or asks about the case. */
  | { kind: 'search' }
  /** Answer from `passages` (found earlier in `focus` for `from`); if they do not answer, search `searchQuery` there. */
  | { kind: 'reuse'; passages: SearchResult[]; focus: FocusedFile[]; from: string; searchQuery: string }
  /** Search `searchQuery` within `focus`, the documents the earlier question `from` was about. */
  | { kind: 'focus'; focus: FocusedFile[]; from: string; why: FocusReason; searchQuery: string };

/** The remembered turns at the end of the chat that kept to the latest turn's documents, oldest first. */
function chainOf(earlier: readonly RememberedTurn[]): RememberedTurn[] {
  const last = earlier.at(-1);
  if (!last) return [];
  const key = ids(last.focus);
  const chain: RememberedTurn[] = [];
  for (let i = earlier.length - 1; i >= 0 && ids(earlier[i]!.focus) === key; i--) chain.unshift(earlier[i]!);
  return chain;
}

const ids = (files: readonly { file_id: string }[]) =>
  files
    .map((f) => f.file_id)
    .sort()
    .join(',');

/** The chain's passages within `focus`, newest turn first, each passage once. */
function pooled(chain: readonly RememberedTurn[], focus: readonly FocusedFile[]): SearchResult[] {
  const inFocus = new Set(focus.map((f) => f.file_id));
  const seen = new Set<string>();
  const out: SearchResult[] = [];
  for (const turn of [...chain].reverse())
    for (const p of turn.passages) {
      if (!inFocus.has(p.file_id) || seen.has(p.hash)) continue;
      seen.add(p.hash);
      out.push(p);
    }
  return out;
}

/**
 * What to search for an elliptical follow-up that names no family of its own ("and for breach?"):
 * with the question it leans on (the chain's latest that did not lean on another), so the search
 * knows what it is about. Any other follow-up is searched as asked.
 */
function searchQueryOf(question: string, chain: readonly RememberedTurn[]): string {
  if (!isElliptical(question) || familiesOf(question).length) return question;
  const topic = [...chain].reverse().find((t) => !t.elliptical) ?? chain[0];
  return topic ? `${question} ${topic.question}` : question;
}

/**
 * The decision for `question`, asked in a chat that remembers `earlier` (oldest first). `named`:
 * the documents the question names (null: none); `chosen`: the documents the user limited the
 * question to, when they did.
 */
export function planRecall(o: {
  question: string;
  earlier: readonly RememberedTurn[];
  named: readonly FocusedFile[] | null;
  chosen?: readonly string[] | undefined;
}): RecallPlan {
  const chain = chainOf(o.earlier);
  const focus = chain.at(-1)?.focus ?? [];
  if (!focus.length) return { kind: 'search' };
  const inFocus = new Set(focus.map((f) => f.file_id));
  // A follow-up that names other documents is about them; one about the case's documents at large, about all of them.
  if (o.named?.some((f) => !inFocus.has(f.file_id)) || ABOUT_THE_CASE.test(o.question)) return { kind: 'search' };
  if (o.chosen && focus.some((f) => !o.chosen!.includes(f.file_id))) return { kind: 'search' };
  const from = [...chain].reverse().find((t) => !t.elliptical)?.question ?? chain[0]!.question;
  const searchQuery = searchQueryOf(o.question, chain);
  const spoken = new Set(chain.flatMap((t) => t.families));
  const focusOn = (why: FocusReason): RecallPlan => ({ kind: 'focus', focus, from, why, searchQuery });
  if (familiesOf(o.question).some((f) => !spoken.has(f))) return focusOn('another family');
  if (!isElliptical(o.question)) return focusOn('not elliptical');
  // The quoted answer lays out several documents one by one, each searched on its own.
  if (focus.length > 1) return focusOn('several documents');
  const passages = pooled(chain, focus);
  if (!passages.length) return focusOn('nothing remembered');
  return { kind: 'reuse', passages, focus, from, searchQuery };
}
