/**
 * The clause lexicon: for each kind of contract clause (after CUAD's categories) the words people use
 * for it and the words contracts use, plus a court's holding in opinions' words. A question in its
 * own words ("can they drop us whenever they want?") is searched with the contract's words added, so
 * BM25 finds a clause that shares no word with it; the question's vector uses the same words
 * (bench/RESULTS.md). Tuned on bench/data/cuad-clause-questions.jsonl (`npm run eval:retrieval`).
 */

interface LexiconEntry {
  /** The CUAD category (or kind of clause) the entry is for. */
  kind: string;
  /** How a question speaks of it: matched on the lower-cased question. */
  when: RegExp;
  /** The words contracts use for it, added to the keyword query. */
  add: string;
}

export const CLAUSE_LEXICON: readonly LexiconEntry[] = [
  {
    kind: 'termination',
    when: /\b(terminat\w*|cancel\w*|get out|walk away|pull out|back out|exit|quit|drop (us|them|him|her|it)|stop (supplying|selling|buying|working|serving)|end (the|this|that|our|their|its) (deal|contract|agreement|relationship|alliance|arrangement|partnership))\b/,
    add: 'terminate termination notice convenience',
  },
  {
    kind: 'renewal',
    when: /\b(renew\w*|roll(s|ing)? over|auto-?renew\w*|automatic\w*|keep (going|running)|extend\w*|extension)\b/,
    add: 'renew renewal automatically successive term extend',
  },
  {
    kind: 'term',
    when: /\b(how long|last(s)?|duration|expir\w*|initial term|end date|until when|when does .* end)\b/,
    add: 'term expire expiration years effect',
  },
  {
    kind: 'governing law',
    when: /\b(law|laws|governed?|governs|jurisdiction|courts?|venue|which state|disputes?)\b/,
    add: 'governed laws jurisdiction courts construed',
  },
  {
    kind: 'assignment',
    when: /\b(assign\w*|transfer\w*|hand (it )?over|hand (\w+ ){0,3}to (another|someone|a third)|pass (it )?on|acquired|acquisition|takeover|taken over|change of control|merg\w*|bought|sold|buys? (us|our company|control|(half|most|a majority) of (us|our))|our shares)\b/,
    add: 'assign assignment transfer consent merger control',
  },
  {
    kind: 'non-compete',
    when: /\b(compet\w*|rivals?|similar (products?|business|services)|same business)\b/,
    add: 'compete competing competitive engage business',
  },
  {
    kind: 'exclusivity',
    when: /\b(exclusiv\w*|sole|only (one|distributor|supplier|provider|reseller|seller|partner)|anyone else|someone else|others too)\b/,
    add: 'exclusive exclusively sole',
  },
  {
    kind: 'no-solicit of employees',
    when: /\b(hire|hiring|poach\w*|recruit\w*|employees?|staff|personnel)\b/,
    add: 'solicit hire employ employees',
  },
  {
    kind: 'no-solicit of customers',
    when: /\b(solicit\w*|(customers?|clients?) away|steal\w*)\b/,
    add: 'solicit customers',
  },
  {
    kind: 'non-disparagement',
    when: /\b(bad-?mouth\w*|disparag\w*|criticiz\w*|say anything (bad|negative)|negative (statements?|comments?)|defam\w*)\b/,
    add: 'disparage disparaging',
  },
  {
    kind: 'first refusal',
    when: /\b(first (refusal|offer|negotiation|look|dibs|chance|right)|match (an|any|the|that|their)( \w+)? (offer|bid)|match it\b|outside (offer|bid|buyer)|offer from (someone|a third|an outsider))\b/,
    add: 'first refusal offer right negotiate',
  },
  {
    kind: 'most favored',
    when: /\b(best (price|terms|rate)|most favou?red|better (price|terms|rate)s?|lowest (price|rate))\b/,
    add: 'favorable pricing terms',
  },
  {
    kind: 'revenue sharing',
    when: /\b(share of|split|cut of|percentage|percent|royalt\w*|commissions?|revenue)\b/,
    add: 'royalty revenue percentage net sales',
  },
  {
    kind: 'price changes',
    when: /\b((raise|increase|change|adjust)\w* (the )?(prices?|fees?|rates?)|prices? (go|goes|going) up|fees? (go|goes|going) up)\b/,
    add: 'price increase adjust fees',
  },
  {
    kind: 'minimum commitment',
    when: /\b(minimum|at least|commit\w*|guaranteed? (volume|purchase|order|amount)s?|firm orders?)\b/,
    add: 'minimum purchase commitment',
  },
  {
    kind: 'ownership of work',
    when: /\b(owns?|owned|ownership|belongs?|intellectual property|\bip\b|inventions?|work product|patents?|copyrights?)\b/,
    add: 'own ownership intellectual property rights title interest',
  },
  {
    kind: 'license',
    when: /\b(licen[cs]\w*|permission|allowed to use|right to use|use (the|their|its|our) (name|trademarks?|logo|brand|software|content|technology|marks?)|use (\w+ ){0,2}of (theirs|ours))\b/,
    add: 'license grant right use',
  },
  { kind: 'sublicense', when: /\b(sub-?licen[cs]\w*)\b/, add: 'sublicense transferable' },
  {
    kind: 'perpetual or irrevocable',
    when: /\b(forever|perpetu\w*|irrevocab\w*|revok\w*|take (it|them|the license) back)\b/,
    add: 'perpetual irrevocable',
  },
  { kind: 'source code escrow', when: /\b(source code|escrow)\b/, add: 'source code escrow release' },
  {
    kind: 'after the end',
    when: /\b(after (the|it|this|that|termination|expiration)\b.*\b(ends?|terminat\w*|expir\w*|over)|wind[- ]?down|transition (period|services?))\b/,
    add: 'termination expiration continue period following',
  },
  { kind: 'audit', when: /\b(audit\w*|inspect\w*|examin\w*|books|records)\b/, add: 'audit inspect books records' },
  {
    kind: 'liability cap',
    when: /\b(liab\w*|on the hook|damages|cap(ped)?|limit(ed)? (on )?(what|how much)|(the )?most (\w+ ){0,4}(owe|pay)|maximum (\w+ ){0,3}(owe|pay|recover)|(recover|claim|get back)\w* (\w+ ){0,2}at most)\b/,
    add: 'liability damages exceed limitation aggregate',
  },
  {
    kind: 'consequential damages',
    when: /\b(indirect|consequential|lost profits?|special damages|incidental)\b/,
    add: 'consequential indirect incidental special damages profits',
  },
  { kind: 'liquidated damages', when: /\b(penalt\w*|liquidated|late fees?)\b/, add: 'liquidated damages penalty' },
  { kind: 'warranty', when: /\b(warrant\w*|defect\w*|guarantee\w*)\b/, add: 'warranty warrants defects period' },
  {
    kind: 'insurance',
    when: /\b(insur\w*|coverage|insured|what (kind of )?cover|(keep|maintain|carry|buy|take out) (\w+ ){0,2}cover)\b/,
    add: 'insurance coverage policy maintain',
  },
  {
    kind: 'covenant not to sue',
    when: /\b(sue|suing|lawsuits?|challenge|contest)\b/,
    add: 'sue challenge contest validity',
  },
  {
    kind: 'third-party beneficiary',
    when: /\b(third[- ]part(y|ies)|outsiders?|beneficiar\w*)\b/,
    add: 'third party beneficiary',
  },
  {
    kind: 'dates',
    when: /\b(what date|which date|dated|signed|entered into|take effect|takes effect|effective|start(s|ed)?|begin(s)?)\b/,
    add: 'dated effective date entered',
  },
  {
    kind: "a court's holding",
    when: /\b(what did (the )?(court|panel|judges?|circuit) (hold|decide|rule|do|conclude)|holding|disposition|outcome of (the )?appeal|how did (the )?(court|panel|appeal) (rule|come out|end))\b/,
    add: 'affirm affirmed reverse reversed vacate remand conclude judgment',
  },
  {
    kind: 'affiliates',
    when: /\b(affiliat\w*|subsidiar\w*|sister compan\w*|parent compan\w*)\b/,
    add: 'affiliates subsidiaries',
  },
];

/** Lower-case word stems of `text` (the keyword index stems too: "terminates" and "termination" meet). */
function stems(text: string): Set<string> {
  return new Set((text.toLowerCase().match(/[a-z]+/g) ?? []).map((w) => w.slice(0, 6)));
}

/**
 * The keyword query for `question`: the question, then the contract words of every kind of clause
 * it speaks of that it does not already hold. The question unchanged when it speaks of none.
 */
export function expandQuery(question: string): string {
  const lower = question.toLowerCase();
  const have = stems(question);
  const extra: string[] = [];
  for (const e of CLAUSE_LEXICON) {
    if (!e.when.test(lower)) continue;
    for (const w of e.add.split(' ')) {
      const stem = w.slice(0, 6);
      if (have.has(stem)) continue;
      have.add(stem);
      extra.push(w);
    }
  }
  return extra.length ? `${question} ${extra.join(' ')}` : question;
}

/**
 * The contract's own word for each kind of clause `question` speaks of, the first of its words
 * ("solicit" for "poaching", "exclusive" for "the only one").
 */
export function clauseTerms(question: string): string[] {
  const lower = question.toLowerCase();
  return [...new Set(CLAUSE_LEXICON.filter((e) => e.when.test(lower)).map((e) => e.add.split(' ')[0]!))];
}

/**
 * Whether a section heading ("2.6 Competitive Products", "Exclusivity") names a kind of clause
 * `question` speaks of: it holds the kind's name or the contract's own word for it (a heading
 * "Notices" or "Escalation of Disputes" names no clause, though a question's words may match it).
 * A table of contents' line ("19.1 Assignment 41", ending in its page number) names where the
 * clause is, not the clause.
 */
export function headingSpeaksOf(question: string, heading: string): boolean {
  if (/[a-z]\W*\s\d+$/i.test(heading)) return false;
  const words = stems(heading);
  const q = question.toLowerCase();
  return CLAUSE_LEXICON.some(
    (e) =>
      e.when.test(q) &&
      [e.add.split(' ')[0]!, ...e.kind.split(/[^a-z]+/).filter((w) => w.length >= 4)].some((w) =>
        words.has(w.slice(0, 6)),
      ),
  );
}
