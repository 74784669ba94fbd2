/**
 * Builds the labelled (sentence, passage, supports?) set that calibrates citation verification:
 * bench/data/support-pairs.jsonl. From CUAD's labelled clauses (../shared/corpus/cuad):
 * - positives: a restatement of the clause as an answer would write it ("Under the PivX
 *   agreement, PivX can end the contract for convenience with 30 days' written notice."): the
 *   party named, "shall" → "must"/"will", written numbers as digits or the reverse, synonyms,
 *   parentheticals dropped, cut to its main clause;
 * - hard negatives, a quarter each: the same contract's passage of another clause; the right
 *   passage with a number changed; the right passage with another contract's party named; the
 *   same kind of clause from a different contract.
 * The passage is the clause with up to 300 characters of its contract on each side (as a search
 * chunk would hold it); `start`/`end` are the clause inside it. Deterministic (seeded).
 *
 *   node --import tsx bench/make-support-pairs.ts [--corpus ../shared/corpus] [--out bench/data/support-pairs.jsonl]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1]! : fallback;
};
const corpus = path.resolve(arg('--corpus', path.join(import.meta.dirname, '../../shared/corpus')));
const out = path.resolve(arg('--out', path.join(import.meta.dirname, 'data/support-pairs.jsonl')));

interface Span {
  txt: string;
  category: string;
  answer: string;
  clause_text: string;
  txt_span: [number, number];
}

export interface SupportPair {
  id: string;
  /** positive, or the kind of hard negative. */
  kind: 'positive' | 'wrong_clause' | 'changed_number' | 'changed_party' | 'other_contract';
  supports: boolean;
  sentence: string;
  passage: string;
  /** The cited span inside the passage. */
  start: number;
  end: number;
  /** The passage's document: its title and parties (what the verifier knows of a document). */
  title: string;
  names: string;
  category: string;
}

let seed = 20261123;
const rand = () => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;

const CATEGORIES = new Set([
  'Audit Rights',
  'Anti-Assignment',
  'Cap On Liability',
  'Governing Law',
  'Insurance',
  'Minimum Commitment',
  'Renewal Term',
  'Non-Compete',
  'Termination For Convenience',
  'Expiration Date',
  'Notice Period To Terminate Renewal',
  'Warranty Duration',
  'Exclusivity',
  'License Grant',
  'Change Of Control',
  'Post-Termination Services',
  'Revenue/Profit Sharing',
  'Liquidated Damages',
  'Rofr/Rofo/Rofn',
  'Ip Ownership Assignment',
]);

const rows: Span[] = readFileSync(path.join(corpus, 'cuad/derived_clause_spans_selected.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .map((l) => JSON.parse(l) as Span);
const byContract = new Map<string, Span[]>();
for (const r of rows) byContract.set(r.txt, [...(byContract.get(r.txt) ?? []), r]);

/** The contract's short party names ("Tickets", "MP3.com") and its title. */
function partiesOf(spans: Span[]): { short: string[]; names: string; title: string } {
  const parties = spans.find((s) => s.category === 'Parties')?.answer ?? '';
  const quoted = [...parties.matchAll(/"([^"]{2,40})"/g)].map((m) => m[1]!.trim());
  const firsts = parties
    .split(';')
    .map(
      (p) =>
        p
          .replace(/"[^"]*"/g, '')
          .trim()
          .split(/[\s,]+/)[0] ?? '',
    )
    .filter((w) => /^[A-Z][A-Za-z0-9.&-]{2,}$/.test(w));
  const short = [
    ...new Set([
      ...quoted.filter(
        (q) =>
          /^[A-Z]/.test(q) &&
          !/^(?:Company|Licensee|Licensor|Party|Customer|Supplier|Distributor|Client|Consultant|Agreement)$/i.test(q),
      ),
      ...firsts,
    ]),
  ];
  const title = spans.find((s) => s.category === 'Document Name')?.answer ?? '';
  return { short, names: parties, title };
}

const WORDS: Record<number, string> = {
  2: 'two',
  3: 'three',
  5: 'five',
  6: 'six',
  10: 'ten',
  12: 'twelve',
  15: 'fifteen',
  30: 'thirty',
  45: 'forty-five',
  60: 'sixty',
  90: 'ninety',
  180: 'one hundred eighty',
};
const SYNONYMS: Array<[RegExp, string[]]> = [
  [/\bshall not\b/gi, ['must not', 'may not', 'cannot']],
  [/\bshall\b/gi, ['must', 'will']],
  [/\bterminate\b/gi, ['end', 'terminate']],
  [/\bthis Agreement\b/gi, ['the agreement', 'the contract']],
  [/\bprior written notice\b/gi, ['advance written notice', 'written notice in advance']],
  [/\bprior written consent\b/gi, ['written consent first', 'advance written consent']],
  [/\bin no event\b/gi, ['under no circumstances']],
  [/\bassign\b/gi, ['transfer', 'assign']],
  [/\bpursuant to\b/gi, ['under']],
  [/\bthe right to\b/gi, ['the right to', 'a right to']],
  [/\bin accordance with\b/gi, ['under']],
  [/\bupon\b/gi, ['on']],
  [/\bhereunder\b/gi, ['under the agreement']],
];

/** The first sentence of a clause, in sentence case, cut to at most `max` words. */
function mainSentence(clause: string, max = 40): string {
  let t = clause.replace(/\s+/g, ' ').trim();
  if (t === t.toUpperCase()) t = t.toLowerCase().replace(/^./, (c) => c.toUpperCase());
  const first = /^(.{40,}?[a-z0-9)][.;])\s/.exec(t)?.[1] ?? t;
  const words = first.split(' ');
  return words.length > max
    ? `${words
        .slice(0, max)
        .join(' ')
        .replace(/[,;:]$/, '')}`
    : first.replace(/[.;]$/, '');
}

/** A restatement of `clause` naming `party`: what an answer would say. */
function restate(clause: string, party: string): string {
  let t = mainSentence(clause, 14 + Math.floor(rand() * 26));
  t = t
    .replace(/\(\s*[ivx\d]+\s*\)\s*/gi, (m) => (/\(\s*\d+\s*\)/.test(m) && rand() < 0.5 ? m : ''))
    .replace(/\s+/g, ' ');
  for (const [re, alts] of SYNONYMS) if (rand() < 0.7) t = t.replace(re, () => pick(alts));
  // Numbers as digits ("thirty (30) days" → "30 days") or the reverse.
  t = t.replace(/\b([a-z-]+(?: [a-z-]+)?) \((\d+)\)/gi, (_m, _w, d: string) => d);
  t = t.replace(/\b(\d+) (days|months|years)\b/g, (m, d: string, u: string) =>
    rand() < 0.3 && WORDS[Number(d)] ? `${WORDS[Number(d)]} ${u}` : m,
  );
  t = t.replace(/^(?:Notwithstanding[^,]*,|Furthermore,|Except[^,]*,|Provided[^,]*,|Subject to[^,]*,)\s*/i, '');
  // "Upon …" → "upon …", but names stay as they are ("HPS agrees …", "Licensee …").
  if (
    /^(?:The|This|That|Each|Either|Neither|Any|All|In|Upon|On|If|During|Unless|Following|After|Within|For|No|Such|Both|At|To|Without)\b/.test(
      t,
    )
  )
    t = t.charAt(0).toLowerCase() + t.slice(1);
  const lead = pick([
    `Under the ${party} agreement, `,
    `The ${party} contract provides that `,
    `In the ${party} agreement, `,
    `According to the ${party} agreement, `,
  ]);
  return `${lead}${t.replace(/^(?:the|this) (?=agreement|contract)/i, 'the ')}.`.replace(/\s+\./, '.');
}

function passageAround(text: string, [s, e]: [number, number]): { passage: string; start: number; end: number } {
  const from = Math.max(0, s - 300);
  const to = Math.min(text.length, e + 300);
  return { passage: text.slice(from, to), start: s - from, end: e - from };
}

function changeNumber(sentence: string): string | null {
  const m = /\b(\d+(?:\.\d+)?)\b|\b(thirty|sixty|ninety|fifteen|ten|five|twelve|two|three|six)\b/i.exec(sentence);
  if (!m) return null;
  if (m[1]) {
    const n = Number(m[1]);
    const changed = n === 30 ? 45 : n === 60 ? 90 : n === 90 ? 60 : n + (n < 10 ? 2 : 15);
    return sentence.slice(0, m.index) + String(changed) + sentence.slice(m.index + m[1].length);
  }
  const swap: Record<string, string> = {
    thirty: 'forty-five',
    sixty: 'ninety',
    ninety: 'sixty',
    fifteen: 'twenty',
    ten: 'fourteen',
    five: 'seven',
    twelve: 'eighteen',
    two: 'four',
    three: 'five',
    six: 'nine',
  };
  return sentence.slice(0, m.index) + swap[m[2]!.toLowerCase()]! + sentence.slice(m.index + m[2]!.length);
}

const texts = new Map<string, string>();
const textOf = (txt: string) => {
  let t = texts.get(txt);
  if (t === undefined) {
    t = readFileSync(path.join(corpus, 'cuad', txt), 'utf8');
    texts.set(txt, t);
  }
  return t;
};

// Candidate clauses: substantive (12+ words), of the chosen kinds, from contracts whose parties have short names.
const candidates: Array<{ span: Span; party: string; doc: ReturnType<typeof partiesOf> }> = [];
for (const [txt, spans] of byContract) {
  const doc = partiesOf(spans);
  if (!doc.short.length) continue;
  for (const s of spans) {
    if (
      !s.txt_span ||
      !CATEGORIES.has(s.category) ||
      s.clause_text.split(/\s+/).length < 12 ||
      s.clause_text.length > 900
    )
      continue;
    if (textOf(txt).slice(s.txt_span[0], s.txt_span[1]) !== s.clause_text) continue;
    candidates.push({ span: s, party: doc.short[0]!, doc });
  }
}
candidates.sort((a, b) => (a.span.txt + a.span.txt_span[0]).localeCompare(b.span.txt + b.span.txt_span[0]));

const pairs: SupportPair[] = [];
const used = new Set<string>();
const POSITIVES = 120;
const perKind = 30;
const counts: Record<string, number> = {};
const add = (p: Omit<SupportPair, 'id'>): boolean => {
  if ((counts[p.kind] ?? 0) >= (p.kind === 'positive' ? POSITIVES : perKind)) return false;
  counts[p.kind] = (counts[p.kind] ?? 0) + 1;
  pairs.push({ id: `${p.kind}-${counts[p.kind]}`, ...p });
  return true;
};

const shuffled = [...candidates].sort(() => rand() - 0.5);
for (const c of shuffled) {
  const key = `${c.span.txt}:${c.span.txt_span[0]}`;
  if (used.has(key)) continue;
  const text = textOf(c.span.txt);
  const sentence = restate(c.span.clause_text, c.party);
  const at = passageAround(text, c.span.txt_span);
  const base = { title: c.doc.title, names: c.doc.names, category: c.span.category };
  const k = Object.values(counts).reduce((a, b) => a + b, 0) % 5;
  used.add(key);
  if (k < 2 || (counts.positive ?? 0) < POSITIVES * 0.5) {
    if (!add({ kind: 'positive', supports: true, sentence, ...at, ...base })) used.delete(key);
    continue;
  }
  if (k === 2) {
    const changed = changeNumber(sentence);
    if (changed && (counts.changed_number ?? 0) < perKind) {
      add({ kind: 'changed_number', supports: false, sentence: changed, ...at, ...base });
      continue;
    }
    const other = pick(
      candidates.filter(
        (o) =>
          o.party.toLowerCase() !== c.party.toLowerCase() &&
          !`${c.doc.names} ${c.doc.title} ${at.passage}`.toLowerCase().includes(o.party.toLowerCase()),
      ),
    );
    add({ kind: 'changed_party', supports: false, sentence: sentence.replace(c.party, other.party), ...at, ...base });
    continue;
  }
  if (k === 3) {
    // Another clause whose passage (with its 300 characters each side) does not reach this one.
    const siblings = candidates.filter(
      (o) =>
        o.span.txt === c.span.txt &&
        o.span.category !== c.span.category &&
        (o.span.txt_span[1] + 400 < c.span.txt_span[0] || c.span.txt_span[1] + 400 < o.span.txt_span[0]),
    );
    if (siblings.length && (counts.wrong_clause ?? 0) < perKind) {
      const o = pick(siblings);
      add({
        kind: 'wrong_clause',
        supports: false,
        sentence,
        ...passageAround(text, o.span.txt_span),
        ...base,
        category: `${c.span.category} → ${o.span.category}`,
      });
      continue;
    }
  }
  const others = candidates.filter(
    (o) =>
      o.span.category === c.span.category &&
      o.span.txt !== c.span.txt &&
      !o.doc.names.toLowerCase().includes(c.party.toLowerCase()),
  );
  if (others.length && (counts.other_contract ?? 0) < perKind) {
    const o = pick(others);
    add({
      kind: 'other_contract',
      supports: false,
      sentence,
      ...passageAround(textOf(o.span.txt), o.span.txt_span),
      title: o.doc.title,
      names: o.doc.names,
      category: c.span.category,
    });
    continue;
  }
  if (!add({ kind: 'positive', supports: true, sentence, ...at, ...base })) used.delete(key);
}

// Changed numbers need sentences with numbers: fill that quarter from the clauses not used yet.
for (const c of shuffled) {
  if ((counts.changed_number ?? 0) >= perKind) break;
  const key = `${c.span.txt}:${c.span.txt_span[0]}`;
  if (used.has(key)) continue;
  const changed = changeNumber(restate(c.span.clause_text, c.party));
  if (!changed) continue;
  used.add(key);
  add({
    kind: 'changed_number',
    supports: false,
    sentence: changed,
    ...passageAround(textOf(c.span.txt), c.span.txt_span),
    title: c.doc.title,
    names: c.doc.names,
    category: c.span.category,
  });
}

writeFileSync(out, pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');
console.log(`${pairs.length} pairs → ${path.relative(process.cwd(), out)}`, counts);
