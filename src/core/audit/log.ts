/**
 * The audit trail: an append-only log of JSON lines, `<home>/audit/audit.jsonl`, each entry chained
 * to the one before by its hash (`./entry`), and a head record, `head.json`, naming the last entry's
 * sequence number and hash, so a line cut off the end is noticed too. Appends in this process go
 * through one queue; between processes the lock file (`./lock`) orders them. Each line is written
 * whole with one O_APPEND write and flushed to disk (fsync) before the head moves on.
 */
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { writeFileAtomic } from '../util/fs';
import { type AuditEntry, type AuditRecord, cleanWhat, entryHash, GENESIS, parseEntry } from './entry';
import { lockAudit } from './lock';

export interface AuditHead {
  seq: number;
  hash: string;
}

/** The last line of `file` (without its newline) and whether the file ends with one; null when empty or absent. */
async function lastLine(file: string): Promise<{ text: string; ended: boolean } | null> {
  const handle = await fs.open(file, 'r').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return null;
    throw err;
  });
  if (!handle) return null;
  try {
    const { size } = await handle.stat();
    if (size === 0) return null;
    // Read backwards in growing windows until the window holds the start of the last line.
    for (let window = 64 * 1024; ; window *= 4) {
      const start = Math.max(0, size - window);
      const buf = Buffer.alloc(size - start);
      await handle.read(buf, 0, buf.length, start);
      const ended = buf[buf.length - 1] === 0x0a;
      const body = ended ? buf.subarray(0, buf.length - 1) : buf;
      const nl = body.lastIndexOf(0x0a);
      if (nl >= 0 || start === 0) return { text: body.subarray(nl + 1).toString('utf8'), ended };
    }
  } finally {
    await handle.close();
  }
}

/**
 * Append `line` (O_APPEND) and flush it to disk. A write that fails part way (a full disk) is cut
 * back off, so the log never keeps half a line that the check would take for damage.
 */
async function appendLine(file: string, line: string): Promise<void> {
  const handle = await fs.open(file, 'a');
  try {
    const { size } = await handle.stat();
    try {
      await handle.writeFile(line);
      await handle.sync();
    } catch (err) {
      await handle.truncate(size).catch(() => undefined);
      throw err;
    }
  } finally {
    await handle.close();
  }
}

export class AuditLog {
  readonly dir: string;
  readonly file: string;
  readonly headFile: string;
  private readonly lockFile: string;
  /** This process's writes, one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(home: string) {
    this.dir = path.join(home, 'audit');
    this.file = path.join(this.dir, 'audit.jsonl');
    this.headFile = path.join(this.dir, 'head.json');
    this.lockFile = path.join(this.dir, 'audit.lock');
  }

  /** Record one access; resolves once its line is on disk. */
  append(record: AuditRecord, now = new Date()): Promise<AuditEntry> {
    const run = this.queue.then(() => this.appendLocked(record, now));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The head record, or null when there is none (nothing recorded yet, or it was removed). */
  async head(): Promise<AuditHead | null> {
    const text = await fs.readFile(this.headFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    if (text === null) return null;
    try {
      const v = JSON.parse(text) as Partial<AuditHead>;
      if (Number.isInteger(v.seq) && typeof v.hash === 'string') return { seq: v.seq!, hash: v.hash };
    } catch {
      // an unreadable head is reported by verify()
    }
    return { seq: -1, hash: '' };
  }

  /**
   * The head record and the log's size at one moment, taken under the lock so that no append is
   * half done: the log's first `size` bytes end where the head says (or one entry after it, after
   * a crash). A check reads only those bytes, so appends made meanwhile are neither half read nor
   * taken for lines added behind the head's back. Without write access to the folder (an auditor's
   * copy), read as it is.
   */
  async snapshot(): Promise<{ head: AuditHead | null; size: number }> {
    const read = async () => ({
      head: await this.head(),
      size: (await fs.stat(this.file).catch(() => null))?.size ?? 0,
    });
    const release = await lockAudit(this.lockFile).catch((err: NodeJS.ErrnoException) => {
      if (['ENOENT', 'EACCES', 'EPERM', 'EROFS'].includes(err.code ?? '')) return null;
      throw err;
    });
    try {
      return await read();
    } finally {
      await release?.();
    }
  }

  /** The log's lines (no newline) in order, within its first `size` bytes when given; none when there is no log yet. */
  async *lines(size?: number): AsyncGenerator<string> {
    const exists = await fs.stat(this.file).catch(() => null);
    if (!exists || size === 0) return;
    const input = createReadStream(this.file, { encoding: 'utf8', ...(size === undefined ? {} : { end: size - 1 }) });
    const rl = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
    try {
      yield* rl;
    } finally {
      // A reader that stops early (the check at its first break) closes the file now.
      rl.close();
      input.destroy();
    }
  }

  private async appendLocked(record: AuditRecord, now: Date): Promise<AuditEntry> {
    await fs.mkdir(this.dir, { recursive: true });
    const release = await lockAudit(this.lockFile);
    try {
      const tail = await lastLine(this.file);
      const prev = await this.chainFrom(tail?.text);
      const body = {
        seq: prev.seq + 1,
        time: now.toISOString(),
        actor: { user: record.actor.user, role: record.actor.role, address: record.actor.address },
        case_id: record.case_id,
        kind: record.kind,
        what: cleanWhat(record.what),
        prev: prev.hash,
      };
      const entry: AuditEntry = { ...body, hash: entryHash(body) };
      // A line cut short by a crash is left as it is (verify reports it); this one starts on a line of its own.
      const line = `${tail && !tail.ended ? '\n' : ''}${JSON.stringify(entry)}\n`;
      await appendLine(this.file, line);
      await writeFileAtomic(this.headFile, `${JSON.stringify({ seq: entry.seq, hash: entry.hash })}\n`);
      return entry;
    } finally {
      await release();
    }
  }

  /**
   * The entry a new one follows. The head record names it; when the log's last line is the entry
   * after the head (a crash between the line's write and the head's), that one. When the log does
   * not end where the head says (lines removed or changed), the new entry still follows the head,
   * so the damage stays visible to verify() and nothing new is lost.
   */
  private async chainFrom(tailText: string | undefined): Promise<AuditHead> {
    const head = await this.head();
    const tail = tailText === undefined ? null : parseEntry(tailText);
    const tailOk = tail !== null && entryHash(tail) === tail.hash;
    if (head && head.seq >= 0) {
      if (tailOk && tail.seq === head.seq + 1 && tail.prev === head.hash) return { seq: tail.seq, hash: tail.hash };
      return head;
    }
    // No head record: a new log, or the head was removed (verify reports that); follow the last readable entry.
    if (tailOk) return { seq: tail.seq, hash: tail.hash };
    return { seq: 0, hash: GENESIS };
  }
}
