/**
 * A case's digest (cases/digest.ts), made after each ingest run and removal from what ingest
 * stored: each readable document's profile (title, parties), type, dates, the people its dated
 * events name, and its most used words. What one version gives is kept in `digest-docs.json`, so a
 * run reads only the versions it added; no model is asked.
 */
import path from 'node:path';
import { type CaseDigest, DIGEST_FORMAT, writeDigest } from '../cases/index';
import { type CaseDocuments, latestVersion, READABLE_STATUSES } from '../documents/index';
import type { FileRecord, VersionRecord } from '../domain/index';
import { readJson, writeJsonAtomic } from '../util/fs';

const DOCS_FILE = 'digest-docs.json';
/** How much of a document's text its words are counted in. */
const TEXT_CHARS = 200_000;
const TERMS_PER_DOC = 80;
const SUBJECTS = 100;
const MAX_NAMES = 12;

/** What one version gives the digest. */
interface DocEntry {
  title: string;
  short_name?: string;
  court?: string;
  parties: string[];
  people: Record<string, number>;
  names: Record<string, number>;
  type: string;
  dates: string[];
  terms: Record<string, number>;
}

/** Words that say nothing of what a case is about: everyday words and what every legal paper says. */
const COMMON = new Set(
  (
    'about above after again against also although among another anyone anything because before being below between both cannot could does doing down during each either else enough even ever every further have having here herein hereof hereto hereby hereunder however into itself just least less like made make many more most much must neither never none nothing often once only other otherwise over same should since some such than that their them then there thereof therein these they this those though through thus under unless until upon very were what whatever when where whether which while whom whose will with within without would your yours ' +
    'also shall said such provided provide provides including include includes included pursuant accordance respect respective respectively following follows thereto prior subject means meaning defined terms term time times date dates days year years month months period written notice section sections article articles paragraph clause page pages exhibit schedule hereinafter ' +
    'january february march april june july august september october november december monday tuesday wednesday thursday friday saturday sunday from agree left right ' +
    'agreement agreements party parties person persons company entity entities effective execution executed signature signed name title address telephone email each such other applicable law laws right rights obligation obligations reasonable reasonably herein event events case cases court plaintiff plaintiffs defendant defendants appellant appellee appeal appeals district circuit judge judgment opinion order motion trial claim claims fact facts evidence record state states united federal statute supra infra first second third fourth fifth part parts number total amount amounts form forms made make makes upon within whether'
  ).split(' '),
);

/** Three-letter words that say nothing of a case ("van", "dog", "cut" do). */
const SHORT_COMMON = new Set(
  'you the and for was are not but may any all its has had her his him she who why how our out own per say see set two one off too use via yes can did get got let new now old way day due etc inc llc ltd sec par'.split(
    ' ',
  ),
);

/** The words of a text with their counts: letters only, four or more, not common. */
function countWords(text: string, into: Map<string, number>, weight = 1): void {
  for (const m of text.slice(0, TEXT_CHARS).matchAll(/\p{L}[\p{L}'’-]*\p{L}/gu)) {
    const w = m[0].toLowerCase().replace(/['’]s$/, '');
    if (w.length < 3 || w.length > 24 || COMMON.has(w) || SHORT_COMMON.has(w) || /['’]/.test(w)) continue;
    into.set(w, (into.get(w) ?? 0) + weight);
  }
}

const top = (counts: Map<string, number>, n: number): Record<string, number> =>
  Object.fromEntries([...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, n));

/** A name that is a person's or an organisation's, not one word that starts a sentence: two words or more, or a title and a name. */
const isName = (n: string) => /\S\s+\S/.test(n.trim()) && n.length <= 60;

/** A name a record labels ("Patient: John Miller", "Employee: …"), or a person's name written out ("Dr. Anita Patel", "Maria Garcia"). */
const LABELLED =
  /^[ \t]*(?:patient|employee|victim|claimant|client|parent|driver|decedent|insured|deponent|witness|owner|physician|attending physician|referring physician|reporting officer|officer|consultant)[ \t]*:[ \t]*((?:Dr\.[ \t]+)?[A-Z][\p{L}'’-]+(?:[ \t]+[A-Z][\p{L}'’.-]*){1,3})/gimu;
const WRITTEN_OUT = /\b(?:(?:Dr|Mr|Mrs|Ms)\.[ \t]+)?[A-Z][a-z]{1,20}(?:[ \t]+[A-Z]\.)?[ \t]+[A-Z][a-z]{1,20}\b/gu;
/** Capitalised words that start a sentence or a heading, not a name. */
const NOT_A_FIRST_NAME =
  /^(?:The|This|That|These|On|In|At|If|As|By|For|From|To|No|Any|Each|All|Such|Upon|Under|With|Without|Section|Article|Exhibit|Date|Dear|Patient|Plan|Examination|Imaging|Assessment|History|Diagnosis|Report|Description|Cause|Witnesses|Vehicle|Location|Citation|Narrative|Unit|Total|Page|Chief)\b/;

/** The words a text writes in lower case somewhere: such a word is a common word, not a name ("Court", "Order"). */
function lowerWords(text: string): Set<string> {
  return new Set(text.match(/\b[a-z][a-z'’-]+\b/g) ?? []);
}

/**
 * The people a text names: labelled names, and names of two words written out at least twice
 * whose words the text never writes in lower case ("Maria Garcia", not "Supreme Court").
 */
function namesIn(text: string, lower: Set<string>): Map<string, number> {
  const head = text.slice(0, TEXT_CHARS);
  const names = new Map<string, number>();
  for (const m of head.matchAll(LABELLED)) names.set(m[1]!.trim(), (names.get(m[1]!.trim()) ?? 0) + 2);
  const written = new Map<string, number>();
  for (const m of head.matchAll(WRITTEN_OUT)) {
    const words = m[0].replace(/^(?:Dr|Mr|Mrs|Ms)\.\s+/, '').split(/\s+/);
    if (NOT_A_FIRST_NAME.test(m[0]) || words.some((w) => lower.has(w.toLowerCase()))) continue;
    written.set(m[0], (written.get(m[0]) ?? 0) + 1);
  }
  for (const [n, count] of written) if (count >= 2) names.set(n, (names.get(n) ?? 0) + count);
  return names;
}

/** Single names a text uses at least twice and never in lower case: companies, products, places, pets ("Detto", "CyberKnife", "Rex"). */
function otherNames(text: string, lower: Set<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const m of text.slice(0, TEXT_CHARS).matchAll(/\b[A-Z][A-Za-z]{2,24}\b/g)) {
    const w = m[0];
    if (lower.has(w.toLowerCase()) || COMMON.has(w.toLowerCase()) || NOT_A_FIRST_NAME.test(w)) continue;
    // Words in capitals throughout are headings' words as often as names: kept only in their written case.
    if (w === w.toUpperCase()) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  return new Map([...counts].filter(([, n]) => n >= 2));
}

async function docEntry(docs: CaseDocuments, file: FileRecord, v: VersionRecord): Promise<DocEntry> {
  const { profile, sections } = await docs.getStructure(file.id, v.version);
  const text = await docs.getText(file.id, v.version).catch(() => '');
  const events = await docs.getEvents(file.id, v.version).catch(() => []);
  const words = new Map<string, number>();
  countWords(text, words);
  // Headings and the title say what a document is about: their words count more.
  countWords(sections.map((s) => s.title).join('\n'), words, 3);
  countWords(profile.title, words, 5);
  const lower = lowerWords(text);
  const people = namesIn(text, lower);
  for (const e of events) for (const p of e.people) if (isName(p)) people.set(p, (people.get(p) ?? 0) + 1);
  // A date of birth is not a date the case covers.
  const dated = events.filter((e) => !/\bDOB\b|date of birth|\bborn\b/i.test(e.text));
  const dates = [v.doc_date, profile.decided ?? '', ...dated.map((e) => e.date)].filter((d) =>
    /^(19|20)\d\d-\d\d-\d\d$/.test(d),
  );
  return {
    title: profile.title,
    ...(profile.court ? { court: profile.court } : {}),
    ...(profile.short_name && profile.short_name !== profile.title ? { short_name: profile.short_name } : {}),
    // A "party" of many words is a heading the profile took for a name ("RESELLER AGREEMENT BY AND BETWEEN PIVX CORPORATION").
    parties: profile.parties.filter((p) => p.split(/\s+/).length <= 6),
    people: top(people, MAX_NAMES),
    names: top(otherNames(text, lower), MAX_NAMES),
    type: file.doc_type_override ?? v.doc_type,
    dates: dates.length ? [dates.sort()[0]!, dates[dates.length - 1]!] : [],
    terms: top(words, TERMS_PER_DOC),
  };
}

/** The documents' entries folded into the digest: names by how many documents give them, subjects by their use across documents. */
function fold(entries: DocEntry[]): CaseDigest {
  const parties = new Map<string, number>();
  const people = new Map<string, number>();
  const names = new Map<string, number>();
  const types = new Map<string, number>();
  const terms = new Map<string, number>();
  const dates: string[] = [];
  for (const e of entries) {
    for (const p of e.parties) parties.set(p, (parties.get(p) ?? 0) + 1);
    // A person named in one document's events once is in passing; twice or in two documents, one of the case's people.
    for (const [p, n] of Object.entries(e.people)) people.set(p, (people.get(p) ?? 0) + n);
    for (const [p, n] of Object.entries(e.names)) names.set(p, (names.get(p) ?? 0) + n);
    types.set(e.type, (types.get(e.type) ?? 0) + 1);
    for (const [t, n] of Object.entries(e.terms)) terms.set(t, (terms.get(t) ?? 0) + Math.log2(1 + n));
    dates.push(...e.dates);
  }
  dates.sort();
  const named = (m: Map<string, number>, min: number) =>
    [...m]
      .filter(([, n]) => n >= min)
      .sort((a, b) => b[1] - a[1])
      .map(([k]) => k)
      .slice(0, MAX_NAMES);
  return {
    format: DIGEST_FORMAT,
    updated: new Date().toISOString(),
    documents: entries.length,
    parties: named(parties, 1),
    people: named(people, 2),
    names: named(names, 2),
    titles: [
      ...new Set(
        entries.flatMap((e) => [e.title, ...(e.short_name ? [e.short_name] : []), ...(e.court ? [e.court] : [])]),
      ),
    ].slice(0, 40),
    types: [...types].sort((a, b) => b[1] - a[1]).map(([type, count]) => ({ type, count })),
    dates: dates.length ? { from: dates[0]!, to: dates[dates.length - 1]! } : null,
    subjects: Object.keys(top(terms, SUBJECTS)),
  };
}

/**
 * Make the case's digest again from its documents now and store it: reading only the versions not
 * yet in its cache, or (`fresh`, after a re-index named documents again) every one.
 */
export async function refreshDigest(
  caseDir: string,
  docs: CaseDocuments,
  opts: { fresh?: boolean } = {},
): Promise<CaseDigest> {
  const cacheFile = path.join(caseDir, DOCS_FILE);
  const raw = (await readJson(cacheFile).catch(() => undefined)) as
    | { format?: number; docs?: Record<string, DocEntry> }
    | undefined;
  const cached = raw?.format === DIGEST_FORMAT && raw.docs && !opts.fresh ? raw.docs : {};
  const kept: Record<string, DocEntry> = {};
  for (const file of await docs.listFiles()) {
    const v = latestVersion(file);
    if (!v || !READABLE_STATUSES.has(v.status)) continue;
    const key = `${file.id}@${v.version}:${v.sha256}:${file.doc_type_override ?? ''}`;
    const entry = cached[key] ?? (await docEntry(docs, file, v).catch(() => undefined));
    if (entry) kept[key] = entry;
  }
  const digest = fold(Object.values(kept));
  await writeJsonAtomic(cacheFile, { format: DIGEST_FORMAT, docs: kept });
  await writeDigest(caseDir, digest);
  return digest;
}
