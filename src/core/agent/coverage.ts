/**
 * The coverage accumulator: what the turn's tool calls listed, searched and read, and which files
 * could not be searched — summed into the coverage note every answer carries.
 */
import type { Coverage } from '../../shared/contract/chat';
import type { CoverageDelta } from './types';

export interface UnsearchableFile {
  file_name: string;
  status: string;
  reason?: string;
}

/** How the turn ended, as far as the coverage note cares. */
export interface TurnEnd {
  /** The question asks for every occurrence. */
  exhaustive: boolean;
  budgetExhausted: boolean;
  cancelled: boolean;
}

export class CoverageAccumulator {
  /** Files in the case, from an unfiltered findFiles; null until the inventory is taken. */
  private total: number | null = null;
  private readonly listed = new Set<string>();
  private readonly searched = new Set<string>();
  private readonly read = new Set<string>();
  private readonly unsearchable = new Map<string, UnsearchableFile>();
  private whole = false;

  /** A tool call's contribution. */
  add(d: CoverageDelta | undefined): void {
    if (!d) return;
    if (d.total !== undefined) this.total = d.total;
    for (const n of d.listed ?? []) this.listed.add(n);
    for (const n of d.searched ?? []) this.searched.add(n);
    for (const n of d.read ?? []) this.read.add(n);
    for (const u of d.unsearchable ?? []) this.unsearchable.set(u.file_name, u);
    if (d.wholeCase) this.whole = true;
  }

  /** A call searched every readable file of the case (grepCase without filters). */
  get wholeCase(): boolean {
    return this.whole;
  }

  /** The turn's coverage: counts, names, and a plain-words note on what the answer may miss. */
  build(end: TurnEnd): Coverage {
    const unsearchable = [...this.unsearchable.values()];
    // A whole-case search covered every readable file, even those it found nothing in.
    const searchedCount =
      this.whole && this.total !== null
        ? Math.max(this.searched.size, this.total - unsearchable.length)
        : this.searched.size;
    return {
      files_total: this.total,
      files_listed: this.listed.size,
      files_searched: searchedCount,
      files_read: this.read.size,
      searched: [...this.searched],
      read: [...this.read],
      unsearchable,
      exhaustive: end.exhaustive,
      whole_case_searched: this.whole,
      budget_exhausted: end.budgetExhausted,
      note: this.note(end, searchedCount, unsearchable),
    };
  }

  private note(end: TurnEnd, searchedCount: number, unsearchable: UnsearchableFile[]): string {
    const parts: string[] = [];
    if (this.total === null) parts.push('The case inventory was not taken in this turn.');
    else
      parts.push(
        `Looked at ${this.total} file${this.total === 1 ? '' : 's'} in the case: ${this.listed.size} listed, ${searchedCount} searched${this.whole ? ' (whole case)' : ''}, ${this.read.size} read.`,
      );
    if (unsearchable.length) {
      parts.push(
        `Could not be searched: ${unsearchable.map((u) => `${u.file_name} (${u.status.replace('_', ' ')}${u.reason ? `: ${u.reason}` : ''})`).join(', ')}.`,
      );
    }
    if (end.cancelled) parts.push('The turn was cancelled; the trace is partial.');
    if (end.exhaustive && !this.whole) {
      parts.push(
        end.budgetExhausted
          ? 'This question asks for every occurrence, and the step budget ran out before the whole case was searched: the answer may miss some.'
          : 'This question asks for every occurrence, but the whole case was not searched: the answer may miss some.',
      );
    } else if (end.budgetExhausted)
      parts.push('The step budget ran out; the answer is based on what was found so far.');
    return parts.join(' ');
  }
}
