/**
 * The served page's "Export matter…": `POST /api/export` with `{ case_id, passphrase? }` runs
 * `cases.export` through the router into a folder of its own under `<home>/exports`, sends the
 * matter file back as a download, and removes it once sent (or when the client goes away). A
 * folder left by a server that stopped mid-send is removed at the next start.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, promises as fs } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Router } from '../core/router/router';
import type { Actor } from './actor';
import { readInput } from './dispatch';
import { BASE_HEADERS, sendThrown } from './respond';

/** A file name for the download: the case's name without what a file system or a header refuses. */
export function downloadName(caseName: string): string {
  const base =
    caseName
      .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, ' ')
      .trim()
      .slice(0, 120) || 'matter';
  return `${base}.casefile`;
}

function disposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["%;\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export interface Exports {
  post(req: IncomingMessage, res: ServerResponse, actor: Actor): Promise<void>;
}

/**
 * What `cases.export` meets on its way through the dispatcher, for this route that does not take
 * it: on a firm server the walls (a case the caller may not see is one that does not exist), and
 * the audit trail.
 */
export type ExportGuard = (input: { case_id: unknown; out: string }, actor: Actor) => Promise<void>;

/** Downloads of matter files, staged under `exportsDir` (emptied now: anything there is a leftover). */
export async function createExports(router: Router, exportsDir: string, guard?: ExportGuard): Promise<Exports> {
  await fs.rm(exportsDir, { recursive: true, force: true });
  return {
    async post(req, res, actor) {
      const body = await readInput(req, res, 64 * 1024);
      if (!body) return;
      const input = (body.input ?? {}) as { case_id?: unknown; passphrase?: unknown };
      const dir = path.join(exportsDir, randomBytes(12).toString('hex'));
      try {
        await fs.mkdir(dir, { recursive: true });
        const out = path.join(dir, 'matter.casefile');
        const call = {
          case_id: input.case_id,
          out,
          ...(input.passphrase !== undefined ? { passphrase: input.passphrase } : {}),
        };
        await guard?.(call, actor);
        const done = await router.call('cases.export', call);
        res.writeHead(200, {
          ...BASE_HEADERS,
          'Content-Type': 'application/octet-stream',
          'Content-Length': String(done.bytes),
          'Content-Disposition': disposition(downloadName(done.name)),
          'Cache-Control': 'no-store',
        });
        await pipeline(createReadStream(out), res);
      } catch (err) {
        if (!res.headersSent) sendThrown(res, err);
        else res.destroy();
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    },
  };
}
