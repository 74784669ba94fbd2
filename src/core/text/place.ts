/**
 * Where a span is, said the way a lawyer cites it, where that is not the page number: a
 * transcript's page and lines ("Smith Dep. 42:10–17"), a Bates-stamped page ("ACME0001234"), or a
 * document's own units ("Sheet Billing, row 14" in a spreadsheet, "Email body" in an email).
 * Otherwise none: citations say "p. N".
 */
import { pinCite } from './transcript';
import type { TranscriptLayout } from '../domain/index';
import { spreadsheetRowLabel } from './rows';

/** What a document gives its citations besides page numbers (from its pages.json). */
export interface PlaceDoc {
  text: string;
  pageStarts?: readonly number[];
  /** Pages that are named units → their names. */
  pageLabels?: ReadonlyMap<number, string>;
  /** Bates-stamped pages → their numbers. */
  pageBates?: ReadonlyMap<number, string>;
  transcript?: TranscriptLayout;
  /** The exhibit the document is ("Exhibit 14"). */
  exhibit?: string;
}

/**
 * The best pin cite of the span [start, end) on `pages`: transcript page:line, else Bates, else the
 * unit; undefined for "p. N" — but an exhibit always says so first ("Exhibit 14, p. 3").
 */
export function placeOf(doc: PlaceDoc, pages: readonly number[], start: number, end: number): string | undefined {
  const pin = pinOf(doc, pages, start, end);
  if (!doc.exhibit) return pin;
  const lo = Math.min(...pages);
  const hi = Math.max(...pages);
  return `${doc.exhibit}, ${pin ?? (lo === hi ? `p. ${lo}` : `pp. ${lo}–${hi}`)}`;
}

function pinOf(doc: PlaceDoc, pages: readonly number[], start: number, end: number): string | undefined {
  if (doc.transcript) {
    const pin = pinCite(doc.transcript, start, end);
    if (pin) return `${doc.transcript.deponent ? `${doc.transcript.deponent} Dep.` : 'Tr.'} ${pin}`;
  }
  const stamped = doc.pageBates?.size
    ? pages.map((p) => doc.pageBates!.get(p)).filter((b): b is string => Boolean(b))
    : [];
  if (stamped.length)
    return stamped[0] === stamped[stamped.length - 1] ? stamped[0] : `${stamped[0]}–${stamped[stamped.length - 1]}`;
  return unitPlace(doc.pageLabels, pages, doc.text, start, end, doc.pageStarts);
}

/** The pin-cite facts of a document's pages (pages.json), for PlaceDoc. */
export function placeFacts(index: {
  pages: readonly { page: number; label?: string; bates?: string }[];
  transcript?: TranscriptLayout;
  exhibit?: string;
}): Omit<PlaceDoc, 'text' | 'pageStarts'> {
  const labels = pageLabels(index.pages);
  const bates = index.pages.filter((p) => p.bates);
  return {
    ...(labels ? { pageLabels: labels } : {}),
    ...(bates.length ? { pageBates: new Map(bates.map((p) => [p.page, p.bates!])) } : {}),
    ...(index.transcript ? { transcript: index.transcript } : {}),
    ...(index.exhibit ? { exhibit: index.exhibit } : {}),
  };
}

/**
 * The unit place of the span [start, end) of `text`: each run of pages of one label it touches,
 * said with its rows where the unit has them ("Sheet Damages, row 2; Sheet Billing, rows 2–4").
 * Undefined where the span's pages carry no labels (a paged document).
 */
export function unitPlace(
  labels: ReadonlyMap<number, string> | undefined,
  pages: readonly number[],
  text: string,
  start: number,
  end: number,
  pageStarts?: readonly number[],
): string | undefined {
  if (!labels?.size || !pages.length) return undefined;
  const first = labels.get(pages[0]!);
  if (!first) return undefined;
  const runs: { label: string; from: number; to: number }[] = [];
  for (const page of pages.length > 1 && pageStarts ? pages : [pages[0]!]) {
    const label = labels.get(page) ?? '';
    const from = Math.max(start, pageStarts?.[page - 1] ?? start);
    const to = Math.min(end, pageStarts?.[page] ?? end);
    const last = runs[runs.length - 1];
    if (last && last.label === label) last.to = to;
    else runs.push({ label, from, to });
  }
  return (
    runs
      .filter((r) => r.label && r.to > r.from)
      .map((r) => {
        // The row the span starts in counts even when the span starts inside it.
        const lineStart = text.lastIndexOf('\n', r.from - 1) + 1;
        return spreadsheetRowLabel(r.label, text.slice(r.from, r.to), text.slice(lineStart, r.from)) ?? r.label;
      })
      .join('; ') || first
  );
}

/** Page number → label, for the pages that carry one (none: undefined). */
export function pageLabels(pages: readonly { page: number; label?: string }[]): Map<number, string> | undefined {
  const labelled = pages.filter((p) => p.label);
  return labelled.length ? new Map(labelled.map((p) => [p.page, p.label!])) : undefined;
}
