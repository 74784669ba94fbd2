import { courtCaption } from './caption';
import { titledAsContract } from './profile';
import type { DocType } from '../domain/index';

const RULES: [DocType, RegExp[]][] = [
  [
    'deposition',
    [
      /\bdeposition\b/i,
      /\bdepo\b/i,
      /\bsworn testimony\b/i,
      /\bQ\.\s.*\n\s*A\.\s/,
      /\bcourt reporter\b/i,
      /\bEXAMINATION BY\b/,
    ],
  ],
  [
    'police_report',
    [/\bpolice\b/i, /\bincident report\b/i, /\bofficer\b/i, /\barrest\b/i, /\bbadge\b/i, /\bsheriff\b/i],
  ],
  [
    'medical_record',
    [
      /\bmedical\b/i,
      /\bpatient\b/i,
      /\bdiagnos[ie]s\b/i,
      /\bphysician\b/i,
      /\bclinic\b/i,
      /\bhospital\b/i,
      /\bM\.?D\.?\b/,
      /\bchief complaint\b/i,
    ],
  ],
  ['invoice', [/\binvoice\b/i, /\bamount due\b/i, /\bbill to\b/i, /\bsubtotal\b/i, /\bremit\b/i, /\bpayment terms\b/i]],
  [
    'pleading',
    [
      /\bcomplaint\b/i,
      /\bplaintiffs?\b/i,
      /\bdefendants?\b/i,
      /\bmotion\b/i,
      /\bcourt\b/i,
      /\bcase no\.?/i,
      /\bv\.\s/,
      /\bpetition\b/i,
      /\bbrief\b/i,
      /\border\b/i,
    ],
  ],
  [
    'contract',
    [
      /\bagreement\b/i,
      /\bcontract\b/i,
      /\bparties\b/i,
      /\bwhereas\b/i,
      /\bhereby\b/i,
      /\bterm(?:ination)?\b/i,
      /\blicen[cs]e\b/i,
      /\bin witness whereof\b/i,
      /\bNDA\b/,
    ],
  ],
  [
    'correspondence',
    [
      /\bdear\b/i,
      /\bsincerely\b/i,
      /\bregards\b/i,
      /^\s*(?:re|subject):/im,
      /\bletter\b/i,
      /^from:/im,
      /\bmemo(?:randum)?\b/i,
    ],
  ],
];

/** A court's caption: its opinion, its order, or a party's filing (a pleading). */
const CAPTION_TYPE = { opinion: 'opinion', order: 'order', filing: 'pleading' } as const;

/**
 * Doc type: a document under a court's caption is an opinion, an order or a pleading as the
 * caption's page says (text/caption.ts). Otherwise a heuristic over the file name (weighted
 * double) and the first page's text: each type scores one point per distinct cue found (a title
 * line naming a contract, three); the best score of at least 2 wins, else `other`.
 */
export function guessDocType(name: string, firstText: string): DocType {
  const caption = firstText ? courtCaption(firstText) : null;
  if (caption) return CAPTION_TYPE[caption.form];
  const head = firstText.slice(0, 3000);
  const base = name.split('/').pop() ?? name;
  let best: DocType = 'other';
  let bestScore = 1;
  for (const [type, cues] of RULES) {
    // A title line that names a contract ("Cloud Service Agreement") counts as the file name would.
    let score = type === 'contract' && titledAsContract(head) ? 3 : 0;
    for (const cue of cues) {
      if (cue.test(base)) score += 2;
      if (cue.test(head)) score += 1;
    }
    if (score > bestScore) {
      best = type;
      bestScore = score;
    }
  }
  return best;
}

const MONTHS: Record<string, number> = {
  jan: 1,
  january: 1,
  feb: 2,
  february: 2,
  mar: 3,
  march: 3,
  apr: 4,
  april: 4,
  may: 5,
  jun: 6,
  june: 6,
  jul: 7,
  july: 7,
  aug: 8,
  august: 8,
  sep: 9,
  sept: 9,
  september: 9,
  oct: 10,
  october: 10,
  nov: 11,
  november: 11,
  dec: 12,
  december: 12,
};
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';

const PATTERNS: { re: RegExp; parts: (m: RegExpExecArray) => [number, number, number] }[] = [
  // January 5, 2021 / Jan. 5th 2021
  {
    re: new RegExp(`\\b${MONTH}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi'),
    parts: (m) => [+m[3]!, MONTHS[m[1]!.toLowerCase().replace('.', '')]!, +m[2]!],
  },
  // 5 January 2021 / 5th day of January, 2021
  {
    re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:day\\s+of\\s+)?${MONTH},?\\s+(\\d{4})\\b`, 'gi'),
    parts: (m) => [+m[3]!, MONTHS[m[2]!.toLowerCase().replace('.', '')]!, +m[1]!],
  },
  // 2021-01-05
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/g, parts: (m) => [+m[1]!, +m[2]!, +m[3]!] },
  // 01/05/2021 (US month/day order)
  { re: /\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, parts: (m) => [+m[3]!, +m[1]!, +m[2]!] },
];

function valid(y: number, m: number, d: number): boolean {
  if (!(y >= 1900 && y <= 2100 && m >= 1 && m <= 12 && d >= 1)) return false;
  const days = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return d <= days;
}

/** The first date in `text` (earliest position) that parses unambiguously and is a real calendar date, as YYYY-MM-DD; '' if none. */
export function findDocDate(text: string, limit = 20000): string {
  const head = text.slice(0, limit);
  let best: { at: number; iso: string } | undefined;
  for (const { re, parts } of PATTERNS) {
    re.lastIndex = 0;
    for (let m = re.exec(head); m; m = re.exec(head)) {
      if (best && m.index >= best.at) break;
      const [y, mo, d] = parts(m);
      if (valid(y, mo, d)) {
        best = {
          at: m.index,
          iso: `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`,
        };
        break;
      }
    }
  }
  return best?.iso ?? '';
}
