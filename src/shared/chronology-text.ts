/**
 * How a chronology event reads to a person, the same in the app, the CLI, the exports and the
 * agent's observations: its date as precise as the document ("2021-05-03", "2019-01 – 2020-03",
 * "2018") and where it is written ("p. 3", "Sheet Billing, row 3"). Pure TS.
 */
import type { TimelineEvent } from './contract/search';

/**
 * "2021-05-03", "2019-01 – 2020-03", "2018"; `(?)` where the day and month could be either way
 * round; "2021-05-06 (counted)" for a date counted from an anchor; "undated (less than one month
 * later)" for an event with no date of its own.
 */
export function eventDate(
  e: Pick<TimelineEvent, 'date' | 'date_end' | 'precision' | 'ambiguous' | 'relative'>,
  options: { ambiguity?: boolean } = {},
): string {
  if (e.relative && !e.relative.computed) return `undated (${e.relative.text.toLowerCase()})`;
  const cut = (d: string) => (e.precision === 'day' ? d : e.precision === 'month' ? d.slice(0, 7) : d.slice(0, 4));
  const range = e.date_end && e.date_end !== e.date ? ` – ${cut(e.date_end)}` : '';
  const counted = e.relative ? ' (counted)' : '';
  return `${cut(e.date)}${range}${counted}${e.ambiguous && options.ambiguity !== false ? ' (?)' : ''}`;
}

/** How the date was found, in words: "“Three days later”, counted from May 3, 2021"; the date as written otherwise. */
export function eventDateSource(e: Pick<TimelineEvent, 'date_text' | 'relative'>): string {
  const r = e.relative;
  if (!r) return e.date_text;
  return r.computed
    ? `“${r.text}”, counted from ${r.anchor}`
    : `“${r.text}”: no date of its own; listed after the event of ${r.anchor}`;
}

/** Where the event is written: its document's unit ("Sheet Billing, row 3"), else "p. 3" / "pp. 3–4". */
export function eventCite(e: Pick<TimelineEvent, 'pages' | 'place'>): string {
  if (e.place) return e.place;
  const lo = Math.min(...e.pages);
  const hi = Math.max(...e.pages);
  return lo === hi ? `p. ${lo}` : `pp. ${lo}–${hi}`;
}
