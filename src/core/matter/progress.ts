import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import type { MatterPorts } from './ports';

/** Bytes between two `cases.transfer` events. */
const STEP = 4 * 1024 * 1024;

/** Reports the bytes of a case's files written or read so far, every few megabytes and at the end. */
export class Progress {
  private doneBytes = 0;
  private reported = 0;

  constructor(
    private readonly events: MatterPorts['events'],
    private readonly caseId: string,
    private readonly direction: 'export' | 'import',
    private readonly total: number,
  ) {}

  add(bytes: number): void {
    this.doneBytes += bytes;
    if (this.doneBytes - this.reported < STEP) return;
    this.reported = this.doneBytes;
    this.emit('running');
  }

  done(): void {
    this.doneBytes = this.total;
    this.emit('done');
  }

  private emit(state: 'running' | 'done'): void {
    this.events.emit('cases.transfer', {
      case_id: this.caseId,
      direction: this.direction,
      done_bytes: this.doneBytes,
      total_bytes: this.total,
      state,
    });
  }
}

/**
 * A pass-through stream that fingerprints the bytes of one file as they go by and counts them into
 * `progress`; `result()` gives their size and sha256 once the stream has ended.
 */
export function fingerprinting(progress: Progress): { stream: Transform; result(): { size: number; sha256: string } } {
  const hash = createHash('sha256');
  let size = 0;
  let sha256: string | undefined;
  const stream = new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      size += chunk.length;
      progress.add(chunk.length);
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: (sha256 ??= hash.digest('hex')) }) };
}
