import type { CitationRecord } from '../../shared/contract/search';
import { newId } from '../util/ids';

export type { CitationRecord };
export type CitationSpan = Omit<CitationRecord, 'id'>;

function spanKey(s: CitationSpan): string {
  return `${s.file_id}\u0000${s.version}\u0000${s.start}\u0000${s.end}`;
}

/** Pages covered by [first, last], ascending. */
export function pageRange(first: number, last: number): number[] {
  const lo = Math.min(first, last);
  const hi = Math.max(first, last);
  const out: number[] = [];
  for (let p = lo; p <= hi; p++) out.push(p);
  return out;
}

/**
 * Issues citation ids within one conversation and remembers what each id points to. The same span
 * cited twice gets the same id; ids are short (`c` + 5 base32 characters) and never reused.
 */
export class CitationLedger {
  private readonly byId = new Map<string, CitationRecord>();
  private readonly bySpan = new Map<string, string>();

  constructor(records: Iterable<CitationRecord> = []) {
    for (const r of records) this.remember(r);
  }

  issue(span: CitationSpan): CitationRecord {
    const key = spanKey(span);
    const known = this.bySpan.get(key);
    if (known) return this.byId.get(known)!;
    let id = newId('c', 5);
    while (this.byId.has(id)) id = newId('c', 5);
    const record: CitationRecord = { id, ...span, pages: [...span.pages] };
    this.remember(record);
    return record;
  }

  get(id: string): CitationRecord | undefined {
    return this.byId.get(id);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  get size(): number {
    return this.byId.size;
  }

  records(): CitationRecord[] {
    return [...this.byId.values()];
  }

  /** For persisting with a chat session; `new CitationLedger(json)` restores it. */
  toJSON(): CitationRecord[] {
    return this.records();
  }

  private remember(r: CitationRecord): void {
    this.byId.set(r.id, r);
    this.bySpan.set(spanKey(r), r.id);
  }
}
