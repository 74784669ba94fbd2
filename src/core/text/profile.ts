/**
 * What a document is, as a user names it: its title, the short name it is cited by, its parties and
 * its preamble's words. The title comes from, in order: an email subject, a caption's case name
 * (`caption.ts`), a meaningful Word title, the title line, the name it gives itself, else the file name.
 * Search uses it to focus questions that name a document, chunks carry the short name as context, and
 * citations use it. Pure: text and outline in.
 */
import { readableFileName } from '../util/names';
import { courtCaption } from './caption';
import type { Section } from './outline';

/** The rules a stored profile's names were made by: `reindex` names again the versions made by older ones. */
export const NAMES_FORMAT = 4;

/** What the file says of itself beyond its text: an email's subject, a Word file's core properties title. */
export interface NameHints {
  subject?: string | undefined;
  propertiesTitle?: string | undefined;
}

export interface DocumentProfile {
  title: string;
  /** The name to cite it by ("Gildernew v. Gantner, p. 4"): an opinion's case name, else the title without its parties. */
  short_name?: string;
  /** A court paper's court ("United States Court of Appeals for the Second Circuit"), docket number and date decided (YYYY-MM-DD). */
  court?: string;
  docket?: string;
  decided?: string;
  /** The rules the names were made by ({@link NAMES_FORMAT}); absent: older rules. */
  names?: number;
  parties: string[];
  /** Defined terms and where each is defined ("“Licensed Product” means …", (the “Agreement”)): how lawyers ask. */
  defined?: DefinedTerm[];
  /** The opening words (before the first article or section), where a contract names its parties. */
  preamble: string;
}

const PREAMBLE_CHARS = 1500;
const TITLE_CHARS = 120;

/** Headings above a title that are not one: exhibit numbers, "Table of Contents", "Execution Copy", "Confidential". */
const NOT_A_TITLE =
  /^(?:exhibit|ex\.?|annex|attachment)\s*[\d.\-a-z]{0,8}$|^(?:table of contents|contents|execution (?:copy|version)|confidential(?: treatment)?|draft|final|page \d+)$|^[\d\s.\-–]+$|^(?:\[?\*+\]?\s*)?(?:certain )?confidential (?:treatment|information)\b.*(?:requested|omitted|redacted|filed separately)/i;
const TITLE_WITHIN = 3000;

/** The outline's title (or the first heading of the opening words that is one), else the file name made readable. */
export function documentTitle(sections: readonly Section[], fileName: string): string {
  const heading = sections.find(
    (s) =>
      s.start < TITLE_WITHIN &&
      (s.kind === 'title' || (s.kind === 'other' && s.level === 1)) &&
      s.title.trim().length >= 3 &&
      !NOT_A_TITLE.test(s.title.trim()),
  );
  const t = heading ? heading.title.trim() : readableFileName(fileName);
  return t.length > TITLE_CHARS ? `${t.slice(0, TITLE_CHARS - 1).trimEnd()}…` : t;
}

/** The text before the first article or numbered section (at most 1,500 characters). */
export function preambleOf(text: string, sections: readonly Section[]): string {
  const body = sections.find((s) => s.kind === 'article' || s.kind === 'section' || s.kind === 'recitals');
  const end = Math.min(body && body.start > 200 ? body.start : PREAMBLE_CHARS, PREAMBLE_CHARS);
  return text.slice(0, end).replace(/\s+/g, ' ').trim();
}

const SUFFIXES =
  'Inc|Incorporated|Corp|Corporation|Company|Co|LLC|L\\.L\\.C|Ltd|Limited|LLP|L\\.P|LP|PLC|GmbH|AG|S\\.A|N\\.V|B\\.V|Pty|SE|Trust|Bank|University|Association';
const SUFFIX = SUFFIXES.split('|')
  .flatMap((x) => (x.toUpperCase() === x ? [x] : [x, x.toUpperCase()]))
  .join('|');
/** A capitalised word, or a name spelt with a small letter first ("mPhase", "eBay"). */
const CAP_WORD = "(?:[A-Z]|[a-z]{1,2}[A-Z])[\\w&.'’-]*";
const NAME_WORD = `(?:${CAP_WORD}|of|and|&|the|de|du)`;
/**
 * "Zounds Hearing, Inc.", "AGAPE ATP INTERNATIONAL HOLDING LIMITED": capitalised words ending in
 * a company form (not a word's first part: "the Lucent Co-Branding Agreement").
 */
const ENTITY = new RegExp(`\\b(${CAP_WORD}(?:[ \\t]+${NAME_WORD}){0,6}?,?[ \\t]+(?:${SUFFIX})\\b(?!-)\\.?)`, 'g');
/** ("Zounds"), (the "Distributor"), (hereinafter referred to as ‘the Customer’) */
const DEFINED =
  /\(\s*(?:each\s+a\s+|the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?["“‘']\s*(?:the\s+)?([^"”’']{2,40}?)\s*["”’']/g;

/**
 * Parties named in the preamble: company names ("Zounds Hearing, Inc.") and the short names they
 * are defined by when those are names, not roles: "Zounds" (a word of a company name or of the file
 * name) or "AP" (a company's initials), but not "the Distributor".
 */
export function findParties(preamble: string, fileName = ''): string[] {
  const entities = [...new Set([...preamble.matchAll(ENTITY)].map((m) => clean(m[1]!)))].filter(
    (e) => e.length >= 2 && !GENERIC_ROLES.has(e.toLowerCase()),
  );
  const known = `${entities.join(' ')} ${readableFileName(fileName)}`.toLowerCase();
  const initials = new Set(
    entities.map((e) =>
      e
        .split(/\s+/)
        .filter((w) => /^[A-Z]/.test(w) && !/^(?:Inc|Corp|Ltd|LLC|Co)\b/i.test(w))
        .map((w) => w[0])
        .join(''),
    ),
  );
  const defined = [...preamble.matchAll(DEFINED)]
    .map((m) => clean(m[1]!))
    .filter(
      (d) =>
        !GENERIC_ROLES.has(d.toLowerCase()) &&
        (new RegExp(`\\b${escapeRegExp(d.toLowerCase())}\\b`).test(known) || initials.has(d)),
    );
  const out: string[] = [];
  const seen = new Set<string>();
  for (const name of [...entities, ...defined]) {
    if (seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    out.push(name);
  }
  return out.slice(0, 8);
}

const clean = (raw: string) =>
  raw
    .replace(/^(?:and|the|of)\s+/i, '')
    .replace(/\s+/g, ' ')
    .replace(/[,\s]+$/, '')
    .trim();
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Defined names that are roles or the document itself, not parties. */
const GENERIC_ROLES = new Set([
  'agreement',
  'this agreement',
  'effective date',
  'parties',
  'party',
  'the parties',
  'amendment',
  'contract',
]);

export interface DefinedTerm {
  term: string;
  /** The definition's range in the text: the quoted term through the end of its sentence (at most 600 characters). */
  start: number;
  end: number;
}

const MAX_DEFINED = 300;
/** “Licensed Product” means … / "Territory" shall mean … / (the “Agreement”) / (hereinafter “Seller”) */
const DEFINITION =
  /[“"]([A-Z][^"”\n]{1,60}?)[”"]\s*(?:shall\s+)?(?:means?|has the meaning|refers? to|includes?)\b|\(\s*(?:each\s+a\s+|collectively[, ]+|the\s+|hereinafter\s+(?:referred\s+to\s+as\s+)?(?:the\s+)?)?[“"]([A-Z][^"”\n]{1,60}?)[”"]\s*\)/g;

/** Every defined term of a document, first definition only, in text order. */
export function findDefinedTerms(text: string): DefinedTerm[] {
  const out: DefinedTerm[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(DEFINITION)) {
    const term = (m[1] ?? m[2]!).replace(/\s+/g, ' ').trim();
    const key = term.toLowerCase();
    if (seen.has(key) || term.length < 2) continue;
    seen.add(key);
    const start = m.index;
    const stop = text.slice(start, start + 600).search(/[.;](\s|$)/);
    out.push({ term, start, end: start + (stop >= 0 ? stop + 1 : Math.min(600, text.length - start)) });
    if (out.length >= MAX_DEFINED) break;
  }
  return out;
}

/** A document's profile from its text and outline (and what the file says of itself). */
export function profileOf(
  text: string,
  sections: readonly Section[],
  fileName: string,
  hints: NameHints = {},
): DocumentProfile {
  const preamble = preambleOf(text, sections);
  let parties = findParties(preamble, fileName);
  const base = { parties, preamble, defined: findDefinedTerms(text), names: NAMES_FORMAT };
  const subject = hints.subject?.replace(/\s+/g, ' ').trim();
  if (subject) return { title: clip(subject), short_name: clip(subject), ...base };
  const caption = courtCaption(text);
  if (caption) {
    const name = clip(caption.caseName);
    // The caption's parties first ("Gildernew", "Gantner"): how a question names the case.
    const named = caption.caseName.startsWith('In re ') ? [] : caption.caseName.split(' v. ');
    parties = [...named, ...parties.filter((p) => !named.some((n) => n.toLowerCase() === p.toLowerCase()))].slice(0, 8);
    base.parties = parties;
    return {
      title: name,
      short_name: name,
      ...(caption.court ? { court: caption.court } : {}),
      ...(caption.docket ? { docket: caption.docket } : {}),
      ...(caption.decided ? { decided: caption.decided } : {}),
      ...base,
    };
  }
  const title = documentName(text, sections, fileName, hints.propertiesTitle);
  const between = CONTRACT_KIND.test(title) ? partyNames(preamble, parties) : [];
  return {
    title: clip(between.length === 2 ? `${title} — ${between.join(' / ')}` : title),
    short_name: clip(title),
    ...base,
  };
}

const clip = (t: string) => (t.length > TITLE_CHARS ? `${t.slice(0, TITLE_CHARS - 1).trimEnd()}…` : t);

/** Words a signature block, a cover page's table or a form labels its fields with: never a title. */
const NOT_A_NAME =
  /^(?:party\s*[a-z\d]?|parties|contractor|company|customer|provider|recipient|discloser|disclosing party|receiving party|licensor|licensee|buyer|seller|vendor|supplier|client|consultant|employer|employee|landlord|tenant|lessor|lessee|signature|signed|name|print name|title|date|by|address|email|notice address|witness|partner|key terms|business terms|framework terms|agreed terms|cover page|order form|preface|recitals|background|definitions|whereas:?|witnesseth:?|dated|now,? (?:therefore|the parties)\b.*|it is (?:hereby )?agreed\b.*|interpreting help text|schedule|exhibits?|sow|template|document\d*|untitled|microsoft word.*|using (?:this|the)\b.*)$/i;
/** The kinds of document a title line names. */
const DOC_KIND =
  /\b(?:agreement|addendum|amendment|nda|contract|terms of service|terms and conditions|terms|letter of intent|term sheet|order form|lease|licen[cs]e|statement of work|memorandum of understanding|plan of (?:merger|reorganization|arrangement)|policy|plan|deed|note|guarant(?:y|ee)|warranty|bylaws|charter|consent|resolution|release|waiver|assignment|notice)$/i;
/** A contract (its title adds its parties). */
const CONTRACT_KIND = /\b(?:agreement|addendum|amendment|contract|lease|licen[cs]e|nda)\b/i;

/** A core-properties title that names the document (not "Document1", "Microsoft Word - x.docx", a file name or a form's word). */
function meaningful(t: string | undefined): string | undefined {
  const s = t?.replace(/\s+/g, ' ').trim();
  if (
    !s ||
    s.length < 3 ||
    s.length > TITLE_CHARS ||
    NOT_A_NAME.test(s) ||
    /\.(?:docx?|pdf|rtf|dotx?)$/i.test(s) ||
    !/\p{L}{3}/u.test(s)
  )
    return undefined;
  return s;
}

/** The title of a document that is no court paper or email (see the file's comment for the order). */
function documentName(text: string, sections: readonly Section[], fileName: string, propertiesTitle?: string): string {
  const fromProperties = meaningful(propertiesTitle);
  if (fromProperties) return fromProperties;
  const outline = documentTitle(sections, '');
  const heading =
    outline &&
    !NOT_A_NAME.test(outline) &&
    !/^[\W\d]*$/.test(outline) &&
    /\p{L}{3}/u.test(outline) &&
    !/^[\w./-]*\d[\w./-]*$/.test(outline)
      ? outline
      : '';
  const line = titleLine(text);
  // The outline's heading may be the last line of a longer title ("HOSTING AND MANAGEMENT AGREEMENT"),
  // or come pages after the title the document opens with.
  const fuller =
    heading &&
    ((line.length > heading.length && line.toLowerCase().endsWith(heading.toLowerCase())) ||
      (opensWith(text, line) && !opensWith(text, heading)));
  if (heading && !fuller && (DOC_KIND.test(heading.replace(/[.:]$/, '')) || !line))
    return heading.replace(EXHIBIT_NO, '').replace(FORM_OF, '');
  return line || heading || selfName(text) || exhibitTitle(fileName) || readableFileName(fileName);
}

/** A filed exhibit's name after its exhibit number ("…_2007-EX-10.28-COMPLETION AND LIQUIDITY MAINTENANCE AGREEMENT.PDF"), when it names a kind of document. */
function exhibitTitle(fileName: string): string {
  const base = (fileName.split(/[\\/]/).pop() ?? fileName).replace(/\.[a-z0-9]{1,5}$/i, '');
  const m = /(?:^|[_-])EX-[\w.()]+?[_-](?:\d{5,}[_-]EX-[\w.()]+?[_-])?([A-Za-z][^_]*?)\d*(?:\s*\(\d+\))?$/i.exec(base);
  const title = m?.[1]?.trim() ?? '';
  return DOC_KIND.test(title) ? title : '';
}

/** A draft's words before a title: "FORM OF TRANSFER AND SERVICING AGREEMENT", "Final Version Form of …". */
const FORM_OF = /^(?:final\s+version\s+)?form\s+of\s+/i;
/** A filed exhibit's number before its title: "EXHIBIT 10.15 CO-BRANDING AGREEMENT", "EXHIBIT 2.1 - AGREEMENT AND PLAN OF MERGER". */
const EXHIBIT_NO = /^(?:exhibit|ex\.?)\s+[\d.a-z-]+\s*[-–—:]?\s+/i;
/** Where a title line goes on to name the parties or its subject: "NON-DISCLOSURE AGREEMENT BETWEEN LONDON SCHOOL OF …". */
const PARTIES_FOLLOW = /\s+(?:(?:by\s+and\s+)?(?:between|among)|concerning|regarding)\b.*$/i;
/** Whether `line` is among the document's first 300 characters: the title it opens with. */
const opensWith = (text: string, line: string): boolean =>
  line !== '' && text.slice(0, 300).replace(/\s+/g, ' ').includes(line.replace(/\s+/g, ' '));
/** A line in capitals, as a title broken over two lines starts. */
const CAPS_LINE = /^(?=.*\p{Lu}{3})[^\p{Ll}]{8,80}$/u;

/** Whether the opening text's title line names a contract ("Business Associate Agreement", "One-Way NDA"). */
export const titledAsContract = (head: string): boolean => CONTRACT_KIND.test(titleLine(head));

/**
 * The first short line of the opening text that names a kind of document ("Cloud Service
 * Agreement", "# Terms of Service"), in title case or capitals; a single word only as the opening line.
 */
export function titleLine(text: string): string {
  let first = true;
  let prev = '';
  // A run of three spaces or more sets lines apart as a break does (text laid out in columns).
  for (const raw of text.slice(0, TITLE_WITHIN).split(/\n| {3,}/)) {
    const opening = first && raw.trim() !== '';
    if (opening) first = false;
    const cleaned = raw
      .replace(/^[#*\s]+|[*\s]+$/g, '')
      .replace(/^\{[^}]*\}\]?\s*/, '')
      .replace(EXHIBIT_NO, '')
      .replace(FORM_OF, '')
      .trim();
    // A title in capitals broken over two lines: "COLLABORATIVE RESEARCH, DEVELOPMENT AND COMMERCIALIZATION" / "AGREEMENT".
    const runsOn =
      CAPS_LINE.test(prev) &&
      !NOT_A_TITLE.test(prev) &&
      !/\p{Ll}/u.test(cleaned) &&
      (/(?:,|\/|\b(?:AND|OF|FOR|TO|THE|&))$/.test(prev) || !/\s/.test(cleaned));
    const joined = runsOn ? `${prev} ${cleaned}` : cleaned;
    const named = joined.replace(PARTIES_FOLLOW, '');
    const line = DOC_KIND.test(named.replace(/[.:]$/, '')) ? named : joined;
    if (cleaned) prev = cleaned;
    if (
      line.length < 4 ||
      line.length > 90 ||
      line.split(/\s+/).length > 12 ||
      !DOC_KIND.test(line.replace(/[.:]$/, ''))
    )
      continue;
    if (/^(?:this|the|each|any|all|such|by|in|for|to|if)\b/i.test(line)) continue;
    // A word alone ("Agreement") names the document only as its opening line ("Amendment").
    if (!/\s/.test(line) && !opening) continue;
    const words = line
      .split(/\s+/)
      .filter((w) => !/^(?:of|and|the|for|to|in|on|with|between|a|an|or|&|-|–|—|\/)$/i.test(w));
    // Each word capitalised, or a prefix the name keeps in lower case ("e-business Hosting Agreement").
    if (words.every((w) => /^[\p{Lu}\d("“'‘-]|^[a-z]-\p{L}/u.test(w))) return line.replace(/[.:]$/, '');
  }
  return '';
}

/** The name a document gives itself: 'This Mutual Non-Disclosure Agreement (the "MNDA")' (a kind alone, 'this Agreement', is no name). */
function selfName(text: string): string {
  const m =
    /\b[Tt]his\s+((?:[A-Z][\w'’-]*,?\s+){1,7}(?:Agreement|Addendum|Amendment|Contract|Lease|License|Licence|NDA|Terms))\b/.exec(
      text.slice(0, TITLE_WITHIN * 2),
    );
  return m ? m[1]!.replace(/\s+/g, ' ') : '';
}

/**
 * The two parties a contract is between, by the names it gives them: a short name it defines for a
 * company ("Water Now", "Hydraspin"), else the company's name without its form ("Tate & Lyle
 * Fermentation Products"). Fewer than two: none (roles like "the Distributor" are no names).
 */
function partyNames(preamble: string, parties: readonly string[]): string[] {
  const entity = new RegExp(`,?\\s+(?:${SUFFIX})\\.?$`);
  const full = parties.filter((p) => entity.test(p) && !/\band the\b|^liability company$/i.test(p));
  const short = parties.filter((p) => !entity.test(p));
  const names: string[] = [];
  for (const f of full) {
    const plain = f.replace(COMPANY_FORM, '').trim();
    if (!plain || NOT_A_PARTY.test(plain)) return [];
    const alias = short.find((a) => new RegExp(`\\b${escapeRegExp(a.toLowerCase())}\\b`).test(plain.toLowerCase()));
    const name = titled(alias ?? plain);
    if (
      !name ||
      /\b(?:of|the|and|a|an)$/i.test(name) ||
      /\b(?:agreement|this|between|dated|made|by)\b/i.test(name) ||
      name.split(/\s+/).length > 6
    )
      return [];
    if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
    if (names.length === 2) break;
  }
  return names.length === 2 && preamble ? names : [];
}

/** A company's form, taken off its name ("Water Now, Inc." → "Water Now"); a bank, trust or university keeps its word. */
const COMPANY_FORM =
  /,?\s+(?:Inc|Incorporated|Corp|Corporation|Co|Company|LLC|L\.L\.C|Ltd|Limited|LLP|L\.P|LP|PLC|GmbH|AG|S\.A|N\.V|B\.V|Pty|SE)\.?$/i;
/** What a preamble's company pattern catches that names no party: a role, a place of incorporation ("a Nevada Limited Liability Company"). */
const NOT_A_PARTY =
  /^(?:agent|company|licensor|licensee|distributor|supplier|customer|provider|seller|buyer|alabama|alaska|arizona|arkansas|california|colorado|connecticut|delaware|florida|georgia|hawaii|idaho|illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|minnesota|mississippi|missouri|montana|nebraska|nevada|new hampshire|new jersey|new mexico|new york|north carolina|north dakota|ohio|oklahoma|oregon|pennsylvania|rhode island|south carolina|south dakota|tennessee|texas|utah|vermont|virginia|washington|west virginia|wisconsin|wyoming|ontario|quebec|british columbia|alberta|bermuda|cayman islands|england|[\d ]+(?:ontario|alberta|b\.?c\.?)?)$/i;

/** "WATER NOW" → "Water Now"; names in mixed case are kept. */
const titled = (s: string) =>
  /\p{Ll}/u.test(s)
    ? s
    : s.toLowerCase().replace(/(^|[\s&-])(\p{L})/gu, (_m, a: string, c: string) => a + c.toUpperCase());
