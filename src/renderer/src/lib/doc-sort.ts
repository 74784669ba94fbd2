/**
 * The orders the documents list can be sorted in, as the sort menu names them: each column both
 * ways, in words that say which end comes first ("Date, newest first"). Pure.
 */
import type { DocSort, SortKey } from './document-tree';

const WORDS: Record<SortKey, { label: string; ascending: string; descending: string }> = {
  name: { label: 'Name', ascending: 'A to Z', descending: 'Z to A' },
  title: { label: 'Title', ascending: 'A to Z', descending: 'Z to A' },
  date: { label: 'Date', ascending: 'oldest first', descending: 'newest first' },
  pages: { label: 'Pages', ascending: 'fewest first', descending: 'most first' },
  type: { label: 'Type', ascending: 'A to Z', descending: 'Z to A' },
  status: { label: 'Status', ascending: 'needs attention first', descending: 'not finished first' },
};

/** Every order the menu offers, in the menu's order: each key ascending, then descending. */
export const SORT_CHOICES: DocSort[] = (Object.keys(WORDS) as SortKey[]).flatMap((key) => [
  { key, dir: 'ascending' as const },
  { key, dir: 'descending' as const },
]);

/** "Date, newest first": a sort in words. */
export function sortText(sort: DocSort): string {
  const w = WORDS[sort.key];
  return `${w.label}, ${w[sort.dir]}`;
}
