/**
 * A court document's caption, read as a lawyer reads it: the case name ("Gildernew v. Gantner",
 * "United States v. Martin", "In re Liebowitz"), the court, the docket number, the date decided,
 * and whether the court's paper is an opinion or an order (or a party's filing under the court's
 * caption). Pure: the document's opening text in. Used by `profile.ts` (the name) and `meta.ts`
 * (the type), so ingest and `reindex` name a document the same way from its text.
 */

export interface CourtCaption {
  /** "Gildernew v. Gantner"; "In re Bard IVC Filters Products Liability Litigation". */
  caseName: string;
  /** "United States Court of Appeals for the Second Circuit"; '' when no court line was found. */
  court: string;
  /** "08-6301-cv"; '' when none. */
  docket: string;
  /** The date decided or filed (YYYY-MM-DD); '' when none. */
  decided: string;
  /** What the court's paper is: an opinion, an order (judgment, minutes), or a party's filing. */
  form: 'opinion' | 'order' | 'filing';
}

const HEAD_CHARS = 6000;
const COURT_LINE = /\b(?:court|circuit|appeals board|tribunal)\b/i;
const COURT_NAME =
  /\b(?:court of appeals?|supreme court|district court|tax court|bankruptcy court|court of [\w’' ]*claims|appeals board|court of [a-z ]*appeals|circuit court|superior court)\b/i;
/** "FOR THE EIGHTH CIRCUIT", "Eastern District", "CENTRAL DISTRICT OF CALIFORNIA": the line that completes a court's name. */
const COURT_PART =
  /^(?:for the\s+)?(?:[\w.]+\s+){0,4}(?:circuit|district(?: of [\w ]+)?|division(?: \w+)?)$|^(?:for the )?district of [\w ]+$|^at [A-Z][\w ]+$/i;
const ROLE =
  /(?:^|[\s,])(?:plaintiffs?|petitioners?|appellants?|appellees?|respondents?|defendants?|employee|employer|carrier|claimants?|movants?|intervenors?|cross[- ]appellants?)(?:[\s,\-–—]+(?:plaintiffs?|petitioners?|appellants?|appellees?|respondents?|defendants?|and))*[\s,.;]*$/i;
const VERSUS_ALONE = /^[–—-]?\s*(?:v|vs|versus)\.?\s*[–—-]?$/i;
const VERSUS_START = /^(?:v|vs)\.\s+(\S.*)$/i;
const VERSUS_END = /^(.*\S)\s+(?:v|vs)\.$/i;
const DOCKET_LINE =
  /^(?:d\.\s?c\.\s+|usdc\s+)?(?:docket\s+)?(?:nos?\.|case(?:\s+no\.?|:)|docket\s*(?:no\.?|#:?))\s*\S|^\d{4}-\d{3,5}$|^(?:file name|state file no|civil action|criminal action|adv(?:ersary)?\.? pro)/i;
/** Labels and stamps around a caption that are no party's name. */
const NOT_A_NAME =
  /^(?:syllabus|opinion|order|per curiam|\[?(?:un)?publish(?:ed)?\]?|precedential|non-?precedential|for publication|filed|entered|by the court:?|before:?.*|august term.*|\(?argued.*|submitted.*|appeal(?:ed|s)? from.*|on appeal.*|certiorari.*|in the|in the matter of|wo|o|js-6|_+|filed\b.*|(?:eastern|western|northern|southern|central|middle)\s+district\b.*|division\b.*|(?:for the\s+)?district of\b.*|\d+)$/i;

const clean = (line: string) =>
  line
    // A column beside the caption (")", "]", "*" separators): the caption's side only.
    .replace(/^\s*[)\]*].*$/, '')
    .replace(/\s+[)\]*](?:\s.*)?$/, '')
    .replace(/\s+(?:Nos?\.|Docket No\.|D\.C\. No\.)\s*[\w\-–.:]*$/i, '')
    .trim();

/** The caption of a court document, or null when the opening text has none (no court line, or no "v." / "In re"). */
export function courtCaption(text: string): CourtCaption | null {
  const head = text.slice(0, HEAD_CHARS);
  const raw = head.split('\n').map((l) => l.trim());
  const lines = raw.map(clean);
  const courtAt = lines.findIndex(
    (l, i) => i < 60 && COURT_NAME.test(l) && isHeading(l) && !/^(?:appeal|on appeal|certiorari)/i.test(l),
  );
  // A letter under the court's letterhead (the clerk's, counsel's) names a case but is no court paper.
  if (courtAt < 0 || /^(?:dear|re:)\s/im.test(head.slice(0, 2500))) return null;
  const caseName = titled(head) ?? inRe(lines) ?? versus(lines);
  if (!caseName) return null;
  return {
    caseName,
    court: courtOf(lines, courtAt),
    docket: docketOf(head),
    decided: decidedOf(head),
    form: formOf(head),
  };
}

/** A heading line: short, no comma, every word capitalised but the small ones ("In the Missouri Court of Appeals"). */
const isHeading = (l: string) =>
  l.length < 80 &&
  !l.includes(',') &&
  l.split(/\s+/).every((w) => /^(?:of|the|for|in|at|and|on)$/.test(w) || /^[\p{Lu}'’(]/u.test(w));

/** A running head or a "Title" field that names the case already ("Gildernew v. Gantner"). */
function titled(head: string): string | undefined {
  const field = /^title:?\s+(.+?\s(?:v|vs)\.\s.+)$/im.exec(head);
  if (field) {
    const [a, b] = field[1]!.split(/\s(?:v|vs)\.\s/i);
    return `${party(a!)} v. ${party(b!)}`;
  }
  for (const line of head.split('\n').slice(0, 14)) {
    const t = line.trim();
    if (
      /^[A-Z][\p{L}.'’&-]*(?: [\p{L}.'’&-]+){0,5} v\. [A-Z][\p{L}.'’&-]*(?: [\p{L}.'’&-]+){0,5}$/u.test(t) &&
      /\p{Ll}/u.test(t) &&
      !/^see\b/i.test(t)
    )
      return t;
  }
  return undefined;
}

/** "In re: RICHARD P. LIEBOWITZ" → "In re Liebowitz"; a litigation's name is kept whole. */
function inRe(lines: string[]): string | undefined {
  const at = lines.findIndex((l, i) => i < 70 && /^in re:?(?:\s|$)/i.test(l));
  if (at < 0) return undefined;
  const parts = [lines[at]!.replace(/^in re:?\s*/i, '')];
  for (let k = at + 1; k < at + 4 && k < lines.length && !/litigation/i.test(parts.join(' ')); k++) {
    const l = lines[k]!;
    if (!l || ROLE.test(l) || NOT_A_NAME.test(l) || DOCKET_LINE.test(l) || /^[_\-–—=*\s]+$/.test(l)) break;
    parts.push(lines[k]!);
  }
  const joined = parts
    .join(' ')
    .replace(/\s+/g, ' ')
    .replace(/[,;]\s*$/, '')
    .trim();
  const lit = /^(.*?\blitigation)\b/i.exec(joined);
  if (lit) return `In re ${titleCase(lit[1]!)}`;
  return joined ? `In re ${party(joined)}` : undefined;
}

/** The parties either side of the first "v." of the caption. */
function versus(lines: string[]): string | undefined {
  for (let i = 0; i < Math.min(lines.length, 90); i++) {
    const l = lines[i]!;
    let before: string[] = [];
    if (VERSUS_ALONE.test(l) || VERSUS_START.test(l)) before = collect(lines, i - 1, -1);
    else {
      const end = VERSUS_END.exec(l);
      if (!end) continue;
      before = [end[1]!, ...collect(lines, i - 1, -1)];
    }
    const after = collect(lines, i + 1, 1);
    const a = before.length ? party(before.reverse().join(' ')) : '';
    const b = after.length ? party(after.join(' ')) : '';
    if (plausible(a) && plausible(b)) return `${a} v. ${b}`;
  }
  return undefined;
}

/** A party's name, not prose that cites a case across a line break ("… 609(a)(1) v."). */
const plausible = (p: string) =>
  p.length >= 2 && p.length <= 70 && p.split(/\s+/).length <= 10 && !/[“”"—()§]/.test(p) && /^[\p{Lu}\d]/u.test(p);

/** A party's lines from `from` in the direction `step`: past role lines and blanks next to the "v.", up to a stop. */
function collect(lines: string[], from: number, step: 1 | -1): string[] {
  const out: string[] = [];
  for (let k = from; k >= 0 && k < lines.length && out.length < 6; k += step) {
    const l = lines[k]!;
    if (!l) continue;
    if (
      VERSUS_ALONE.test(l) ||
      VERSUS_START.test(l) ||
      VERSUS_END.test(l) ||
      DOCKET_LINE.test(l) ||
      NOT_A_NAME.test(l) ||
      COURT_LINE.test(l) ||
      /^[_\-–—=*\s]+$/.test(l)
    )
      break;
    if (ROLE.test(l) && ROLE.exec(l)!.index <= 1) {
      // A role line: before the party's name (walking back), or its end (walking on).
      if (step === 1 && out.length) break;
      continue;
    }
    out.push(l);
    if (step === 1 && ROLE.test(l)) break;
  }
  return out;
}

const SUFFIX =
  /^(?:inc|incorporated|corp|corporation|co|company|llc|l\.l\.c|ltd|limited|llp|lp|l\.p|plc|n\.a|s\.a|s\.a\.u|pllc|p\.c)\.?$/i;
const GENERATION = /^(?:jr|sr|ii|iii|iv)\.?$/i;
const ORG_WORD =
  /\b(?:state|states|commonwealth|people|commissioner|republic|county|city|town|district|board|department|bank|insurance|fund|chapel|church|association|university|school|foods|loans|services|systems|group|holdings|logistics|technologies|partners|trust|authority|commission|agency|government|united|national|international|corporation|company|funding|litigation|estate|union|council|office|hospital|center|society|institute)\b/i;
const PARTICLE = /^(?:st\.?|de|del|della|der|van|von|le|la|da|di|du|mac|ibn|bin)$/i;

/** A party as a case name gives it: a person by surname ("Triplet"), an organisation whole ("Tyson Foods, Inc."). */
export function party(raw: string): string {
  let s = raw
    .replace(/\s+/g, ' ')
    .replace(ROLE, '')
    .replace(/(\p{L}{3,}),?\d{1,2}(?=[\s,]|$)/gu, '$1')
    .replace(/\s+(?:dba|d\/b\/a|a\/k\/a|f\/k\/a|also known as|ex rel\.?)\s.*$/i, '')
    .split(';')[0]!
    .replace(/,?\s*\bet\.? al\.?.*$/i, '')
    .replace(/,?\s*\betc\.?/gi, '')
    .trim();
  // "K2 INC. and K-2 CORPORATION", "ROCK BORDELON AND TORIE BORDELON": the first of two named together.
  const and = /^(.+?),?\s+(?:and|AND|&)\s+(.+)$/.exec(s);
  if (and && (SUFFIX.test(and[1]!.split(/[\s,]+/).pop() ?? '') || (isPerson(and[1]!) && isPerson(and[2]!))))
    s = and[1]!;
  // Commas: keep a company form ("Tyson Foods, Inc."), drop what follows a name ("Eric Franklin, Warden").
  const pieces = s.split(',').map((p) => p.trim());
  let kept = pieces[0]!;
  for (const p of pieces.slice(1)) {
    if (SUFFIX.test(p)) kept += `, ${p}`;
    else break;
  }
  kept = kept.replace(/[.,]+$/, (m) => (/\b(?:inc|co|corp|ltd|jr|sr)$/i.test(kept.slice(0, -m.length)) ? '.' : ''));
  if (/^united states(?: of america)?\.?$/i.test(kept)) return 'United States';
  if (!isPerson(kept)) return titleCase(kept.replace(/^the\s+/i, (m) => m));
  const words = kept.split(' ').filter((w) => !GENERATION.test(w));
  let k = words.length - 1;
  while (k > 0 && PARTICLE.test(words[k - 1]!)) k--;
  return titleCase(words.slice(k).join(' '));
}

/** A person's name: two to five words, no company form or organisation word, no digits. */
function isPerson(s: string): boolean {
  const words = s.trim().split(/\s+/);
  if (words.length < 2 || words.length > 5 || /\d/.test(s) || ORG_WORD.test(s) || /\b(?:of|the|for)\b/i.test(s))
    return false;
  return !words.some((w) => SUFFIX.test(w.replace(/,$/, '')));
}

/** Words in capitals made title case ("TYSON FOODS, INC." → "Tyson Foods, Inc."); mixed case is kept. */
export function titleCase(s: string): string {
  if (/\p{Ll}/u.test(s.replace(/\b(?:and|of|the|et|al|ex|rel|dba|v)\b/g, ''))) return s;
  return s
    .toLowerCase()
    .replace(/(^|[\s\-–(/&])(\p{L})/gu, (_m, sep: string, c: string) => sep + c.toUpperCase())
    .replace(/\b(Of|The|And|For|In|At|On|De|Del|Ex|Rel)\b/g, (w, _x, at: number) => (at === 0 ? w : w.toLowerCase()))
    .replace(/\b(Llc|Lp|Llp|Plc|Ivc|Usa|Ii|Iii|Iv|Na|Sa)\b/g, (w) => w.toUpperCase())
    .replace(/\b(Mc)(\p{Ll})/gu, (_m, mc: string, c: string) => mc + c.toUpperCase());
}

function courtOf(lines: string[], at: number): string {
  const name = lines[at]!.replace(/^in the\s+/i, '').replace(/[,.]$/, '');
  const parts = [titleCase(name)];
  for (let k = at + 1; k < at + 3 && k < lines.length; k++) {
    const next = lines[k]!.replace(/[,.]$/, '');
    if (!next) continue;
    if (/^for the$/i.test(next)) continue;
    if (!COURT_PART.test(next)) break;
    const part = titleCase(next)
      .replace(/^(?:For|At)\b/, (w) => w.toLowerCase())
      .replace(/^for The\b/, 'for the');
    parts.push(
      /^(?:for|at)\b/.test(part)
        ? part
        : /^(?:division|eastern|western|northern|southern|central|middle)\b/i.test(next)
          ? `, ${part}`
          : `for the ${part}`,
    );
    if (/circuit$/i.test(next)) break;
  }
  let court = parts.join(' ').replace(/ ,/g, ',').replace(/\s+/g, ' ');
  if (/^court of appeals/i.test(court) && /circuit/i.test(court)) court = `United States ${court}`;
  return court.replace(/\bFor The\b/g, 'for the').replace(/\bu\.s\./i, 'U.S.');
}

function docketOf(head: string): string {
  const m =
    /(?<!Bar )\b(?:Docket\s+)?(?:Nos?\.|Case\s+No\.|Docket\s+(?:Nos?\.|#:))[ \t]*((?:[A-Z]{1,4}[ \t]?)?\d[\w\-–:]*(?:[ \t](?!v\b)[A-Z]{2,4}\b)?)/.exec(
      head,
    ) ??
    /^(\d{4}-\d{3,5})$/m.exec(head) ??
    /\bCase:?\s+(\d{1,2}[-:]\d[\w\-:]*)/.exec(head);
  return m ? m[1]!.trim() : '';
}

/** The date decided: "Decided: February 4, 2010", "Filed 11 February 2022", "Entered: …", "DATED: …", "(February 5, 2010)", a FILED stamp. */
function decidedOf(head: string): string {
  for (const re of [
    /\bdecided(?: and filed)?:?\s+([^()]{6,40})/i,
    /(?:(?:^|\(|,)[ \t]*(?:filed|entered|dated|date)\b|\b(?:filed|entered|dated|date):)[:\s]*([A-Z][a-z]+\.? \d{1,2}, \d{4}|\d{1,2} [A-Z][a-z]+ \d{4})/im,
    /^\(([A-Z][a-z]+ \d{1,2}, \d{4})\)$/m,
    /\bfiled:?\s*\(?(\d{1,2}\/\d{1,2}\/\d{4})/i,
    // The clerk's stamp: FILED, the court's name, the date on a line of its own.
    /^FILED\n(?:.*\n){0,3}?([A-Z][a-z]+\.? \d{1,2}, \d{4})$/m,
  ]) {
    const m = re.exec(head);
    const iso = m ? isoDate(m[1]!) : '';
    if (iso) return iso;
  }
  return '';
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const pad = (n: number) => String(n).padStart(2, '0');

/** "February 4, 2010", "11 February 2022", "01/03/2013" as YYYY-MM-DD; '' otherwise. */
function isoDate(s: string): string {
  let y = 0;
  let m = 0;
  let d = 0;
  const mdy = /\b([A-Za-z]{3,9})\.? (\d{1,2}),? (\d{4})\b/.exec(s);
  const dmy = /\b(\d{1,2}) ([A-Za-z]{3,9}),? (\d{4})\b/.exec(s);
  const num = /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/.exec(s);
  if (mdy) [m, d, y] = [MONTHS.indexOf(mdy[1]!.slice(0, 3).toLowerCase()) + 1, +mdy[2]!, +mdy[3]!];
  else if (dmy) [d, m, y] = [+dmy[1]!, MONTHS.indexOf(dmy[2]!.slice(0, 3).toLowerCase()) + 1, +dmy[3]!];
  else if (num) [m, d, y] = [+num[1]!, +num[2]!, +num[3]!];
  return y >= 1900 && m >= 1 && m <= 12 && d >= 1 && d <= 31 ? `${y}-${pad(m)}-${pad(d)}` : '';
}

/** An order's own heading (ORDER, ORDER AND JUDGMENT, TRANSFER ORDER, JUDGMENT, CIVIL MINUTES), in capitals. */
const ORDER_HEADING =
  /^(?:[A-Z][A-Z'’-]*\s+){0,5}(?:ORDER|O R D E R|JUDGE?MENT|CIVIL MINUTES)\b[^a-z]*$|^[Jj]udge?ment$/m;
/** A party's paper under the court's caption. */
const FILING =
  /^(?:[A-Z][A-Z'’&-]*\s+){0,4}(?:MOTION|BRIEF|COMPLAINT|PETITION|DESIGNATION|NOTICE|ANSWER|STIPULATION|DECLARATION|MEMORANDUM OF (?:POINTS|LAW)|REPLY|RESPONSE|ENTRY OF APPEARANCE)\b|^Designation\b|\bRespectfully submitted\b/m;
/** What only an opinion says: its label, its author, how it was decided. */
const OPINION =
  /^(?:OPINION|\(Slip Opinion\)|Syllabus|PER CURIAM|Per Curiam)|\bOPINION OF THE COURT\b|^[A-Z][\p{L}.’' ]+, (?:Chief |Senior |Circuit |District |Presiding |Associate )*(?:Circuit )?Judge[.:]|\bdelivered the opinion\b|\bOpinion by\b|\bT\.C\. Memo\b|^Affirmed and Remanded\b|^(?:Argued|Submitted)\b.*\bDecided\b|\bDecided(?: and Filed)?:?\s/mu;

function formOf(head: string): CourtCaption['form'] {
  const order = ORDER_HEADING.exec(head);
  const opinion = OPINION.exec(head);
  const filing = FILING.exec(head);
  if (order && (!opinion || order.index < opinion.index)) return 'order';
  if (opinion) return 'opinion';
  if (filing) return 'filing';
  return 'opinion';
}
