/**
 * Which case a question asked outside any case means: MiniSearch (BM25) over the cases' digests
 * alone — name, parties, people, titles, types, subjects — never their passages. Names weigh most
 * ("the Johnson case"), then titles, types and subjects ("the case with the forklift"). A case is
 * chosen only when it clearly leads; when two or more fit about equally, or nothing in the question
 * names a case, the user chooses. Pure: digests in.
 */
import MiniSearch from 'minisearch';
import type { CaseCandidate, CaseDetection } from '../../shared/contract/cases';
import { type CaseDigest, digestLine } from './digest';

export interface DetectableCase {
  id: string;
  name: string;
  /** ISO time the case was created: the order of a choice when nothing matched. */
  created: string;
  digest: CaseDigest | undefined;
}

/** How the ranking decides; `bench/eval-cases.ts` tunes it on its tuning questions. */
export interface DetectTuning {
  /** A case is chosen when the next one's score is below this share of its own. */
  clearLead: number;
  /** Field weights. */
  boost: Record<(typeof FIELDS)[number], number>;
  /** How many cases a choice offers at most. */
  maxChoices: number;
  /** A word names cases when at most this share of them (and at least `minRare`) have it. */
  rareShare: number;
  minRare: number;
}

export const DETECT_TUNING: DetectTuning = {
  clearLead: 0.7,
  boost: { name: 3, parties: 3, people: 3, names: 2, titles: 2, types: 1.5, subjects: 1 },
  maxChoices: 5,
  rareShare: 0.2,
  minRare: 2,
};

const FIELDS = ['name', 'parties', 'people', 'names', 'titles', 'types', 'subjects'] as const;

/** Words that never tell cases apart: function and question words, and what every case or question says. */
const STOP = new Set(
  (
    'a an the of and or to in on at by for from with without into under over about as is are was were be been being do does did done has have had having ' +
    'can could may might must shall should will would it its this that these those there their them they he she his her him we our us you your i me my mine ' +
    'what which who whom whose when where why how whether if any all each every some such other than then so not no nor only also either neither ' +
    'case cases matter matters client clients file files document documents say says said tell show find give list ask asked question one two ' +
    'last first next new old get got go went see saw seen know need needs want please just still yet ever much many more most very ' +
    'v vs versus re mr mrs ms dr inc llc ltd corp co'
  ).split(' '),
);

/** Lower case, no possessive or plural "s", stop words out: the same for the digests and the question. */
export function detectTerm(term: string): string | null {
  let t = term
    .toLowerCase()
    .replace(/['’]s$/, '')
    .replace(/['’]/g, '');
  if (t.length > 4 && t.endsWith('s') && !t.endsWith('ss')) t = t.slice(0, -1);
  if (t.length < 2 || STOP.has(t) || /^\d{1,3}$/.test(t)) return null;
  return t;
}

const TYPE_SYNONYMS: Record<string, string> = {
  contract: 'contract agreement',
  medical_record: 'medical record chart doctor treatment injury',
  police_report: 'police report accident',
  correspondence: 'letter correspondence email',
  pleading: 'pleading complaint lawsuit',
  opinion: 'opinion court decision appeal judge ruling',
  order: 'order court',
  deposition: 'deposition transcript testimony',
  invoice: 'invoice bill',
};

function indexed(c: DetectableCase): Record<string, string> {
  const d = c.digest;
  return {
    id: c.id,
    name: c.name,
    parties: (d?.parties ?? []).join(' ; '),
    people: (d?.people ?? []).join(' ; '),
    names: (d?.names ?? []).join(' ; '),
    titles: (d?.titles ?? []).join(' ; '),
    types: (d?.types ?? []).map((t) => TYPE_SYNONYMS[t.type] ?? t.type).join(' '),
    subjects: (d?.subjects ?? []).join(' '),
  };
}

const candidate = (c: DetectableCase, score: number, matched: string[]): CaseCandidate => ({
  case_id: c.id,
  name: c.name,
  score: Math.round(score * 1000) / 1000,
  line: digestLine(c.digest),
  matched,
});

type Hit = { id: string; score: number; terms: string[] };

/**
 * The cases the question's naming words fit, best first. A word names cases when it is rare among
 * the digests (a party, "forklift"), not when most cases have it ("agreement", "termination"): such
 * a word alone would pick one case by chance. Words match whole or as the start of a word (five
 * letters or more); names, parties and people also with one typo in a word of six letters or more.
 */
function rank(index: MiniSearch, question: string, cases: number, tuning: DetectTuning): Hit[] {
  const rare = Math.max(tuning.minRare, Math.ceil(tuning.rareShare * cases));
  const exact = { boost: tuning.boost, prefix: (t: string) => t.length >= 5, fuzzy: false } as const;
  const typo = {
    boost: tuning.boost,
    fields: ['name', 'parties', 'people', 'names'],
    prefix: false,
    fuzzy: (t: string) => (t.length >= 6 ? 0.2 : false),
  };
  const words = [...new Set((question.match(/[\p{L}\p{N}]+(?:['’]\p{L}+)?/gu) ?? []).map(detectTerm))];
  const scores = new Map<string, Hit>();
  for (const term of words) {
    if (!term) continue;
    const found = new Map<string, number>();
    for (const opts of [exact, typo])
      for (const h of index.search(term, opts))
        found.set(String(h.id), Math.max(found.get(String(h.id)) ?? 0, h.score));
    if (found.size === 0 || found.size > rare) continue;
    for (const [id, score] of found) {
      const hit = scores.get(id) ?? { id, score: 0, terms: [] };
      hit.score += score;
      hit.terms.push(term);
      scores.set(id, hit);
    }
  }
  return [...scores.values()].sort((a, b) => b.score - a.score);
}

/** The case `question` means among `cases`, or the ones to choose from. */
export function detectCase(
  question: string,
  cases: readonly DetectableCase[],
  tuning: DetectTuning = DETECT_TUNING,
): CaseDetection {
  if (cases.length === 0) return { chosen: null, ambiguous: false, candidates: [], reason: 'There are no cases yet.' };
  if (cases.length === 1) {
    const only = cases[0]!;
    return { chosen: only.id, ambiguous: false, candidates: [candidate(only, 1, [])], reason: 'Only one case.' };
  }
  const index = new MiniSearch({ fields: [...FIELDS], processTerm: detectTerm });
  index.addAll(cases.map(indexed));
  const byId = new Map(cases.map((c) => [c.id, c]));
  const hits = rank(index, question, cases.length, tuning);
  if (hits.length === 0) {
    // No word names a case: the cases the question's common words fit ("the contract"), else the newest.
    const broad = index.search(question, { boost: tuning.boost, prefix: (t) => t.length >= 5 });
    if (broad.length)
      return {
        chosen: null,
        ambiguous: true,
        candidates: broad
          .slice(0, tuning.maxChoices)
          .map((h) => candidate(byId.get(String(h.id))!, h.score, h.queryTerms)),
        reason: 'Several cases fit the question; nothing in it names one of them.',
      };
    const newest = [...cases].sort((a, b) => b.created.localeCompare(a.created)).slice(0, tuning.maxChoices);
    return {
      chosen: null,
      ambiguous: true,
      candidates: newest.map((c) => candidate(c, 0, [])),
      reason: 'Nothing in the question names one of the cases.',
    };
  }
  const ranked = hits.map((h) => candidate(byId.get(h.id)!, h.score, h.terms));
  const [best, next] = ranked;
  if (!next || next.score < tuning.clearLead * best!.score)
    return {
      chosen: best!.case_id,
      ambiguous: false,
      candidates: ranked.slice(0, tuning.maxChoices),
      reason: `its summary names ${best!.matched.join(', ')}`,
    };
  const close = ranked.filter((r) => r.score >= tuning.clearLead * best!.score).slice(0, tuning.maxChoices);
  return {
    chosen: null,
    ambiguous: true,
    candidates: close,
    reason: `${close.length === 2 ? 'Two' : close.length} cases fit the question about equally.`,
  };
}
