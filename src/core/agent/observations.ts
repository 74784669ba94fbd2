/**
 * The observation book: what the model has been shown in this turn. A tool's outcome becomes the
 * observation text here — passages de-duplicated by content hash (best score kept), passages shown
 * in an earlier step referenced by cite id, passages judged useless left out, all within the
 * observation's length budget.
 */
import { formatPassage } from './prompt';
import type { PassageItem, ToolOutcome } from './types';

/** Passages with these labels are judged useless: later searches in the turn exclude them. */
export const REJECT_LABELS: ReadonlySet<string> = new Set(['none', 'noise']);

export interface ObservationBudget {
  /** Characters of passage text shown per result. */
  passageChars: number;
  /** Characters of one observation in total (passages beyond it are counted, not shown). */
  observationChars: number;
}

export class ObservationBook {
  /** Passages shown, by hash (or cite id when a tool gives no hash). */
  private readonly shown = new Map<string, { cite: string; step: number }>();
  /** Hashes of passages judged useless; the search tools exclude them. */
  readonly rejected = new Set<string>();
  /** Every passage shown to the model, in order. */
  readonly seen: PassageItem[] = [];

  constructor(private readonly budget: ObservationBudget) {}

  /** The observation of step `index` for a tool's outcome; records what it shows. */
  observe(index: number, outcome: ToolOutcome): string {
    const lines: string[] = [];
    if (outcome.text) lines.push(outcome.text);
    if (outcome.items?.length) {
      const { fresh, again, droppedRejected } = this.sort(outcome.items);
      const omitted = this.show(index, fresh, lines);
      if (again.length) lines.push(`Seen before: ${again.join(', ')}`);
      if (droppedRejected) lines.push(`${droppedRejected} passage(s) judged useless in earlier steps were left out.`);
      if (omitted) lines.push(`${omitted} more passage(s) not shown (observation length limit).`);
      if (!fresh.length && !again.length) lines.push('No new passages. Try a different query or another tool.');
    }
    return lines.join('\n') || 'No results.';
  }

  /** One passage per hash (best score), split into new ones, ones shown before, and rejected ones. */
  private sort(items: PassageItem[]): { fresh: PassageItem[]; again: string[]; droppedRejected: number } {
    const best = new Map<string, PassageItem>();
    for (const it of items) {
      const key = it.hash ?? it.cite;
      const prev = best.get(key);
      if (!prev || (it.score ?? 0) > (prev.score ?? 0)) best.set(key, it);
    }
    let droppedRejected = 0;
    const fresh: PassageItem[] = [];
    const again: string[] = [];
    for (const [key, it] of best) {
      if (it.hash && this.rejected.has(it.hash)) {
        droppedRejected++;
        continue;
      }
      const prior = this.shown.get(key);
      if (prior) {
        again.push(`[cite:${prior.cite}] (already shown in step ${prior.step})`);
        continue;
      }
      fresh.push(it);
    }
    return { fresh, again, droppedRejected };
  }

  /** Append the new passages that fit the budget to `lines`; returns how many did not fit. */
  private show(index: number, fresh: PassageItem[], lines: string[]): number {
    let budget = this.budget.observationChars - lines.join('\n').length;
    let omitted = 0;
    for (const it of fresh) {
      const line = formatPassage(it, this.budget.passageChars);
      if (budget - line.length < 0 && lines.length > 1) {
        omitted++;
        continue;
      }
      budget -= line.length + 1;
      lines.push(line);
      this.shown.set(it.hash ?? it.cite, { cite: it.cite, step: index });
      this.seen.push(it);
      if (it.hash && it.label && REJECT_LABELS.has(it.label)) this.rejected.add(it.hash);
    }
    return omitted;
  }
}
