/** The engine's events as server-sent events (`GET /api/events`), one stream per open page. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '../core/bus';
import { withFormerNames } from '../shared/wire-names';
import type { Actor } from './actor';
import { BASE_HEADERS } from './respond';

/** The cases `actor` may see now (undefined: every case), asked again now and then while a stream is open. */
export type CasesOf = (actor: Actor) => Promise<Set<string> | undefined>;

export interface EventStreams {
  /**
   * Answer `GET /api/events`: every engine event from now on, until the client goes; on a firm
   * server only events of cases `actor` may see (and those of no case).
   */
  open(req: IncomingMessage, res: ServerResponse, actor: Actor): void;
  /** End every open stream (the server is closing). */
  close(): void;
}

/** Whether an event's payload names a case outside `mine` (then the stream leaves it out). */
function walledOff(payload: unknown, mine: Set<string> | undefined | null): boolean {
  if (mine === undefined) return false;
  const caseId = (payload as { case_id?: unknown } | null)?.case_id;
  return typeof caseId === 'string' && !mine?.has(caseId);
}

export function createEventStreams(events: EventBus, casesOf?: CasesOf): EventStreams {
  const streams = new Set<ServerResponse>();
  return {
    open(req, res, actor) {
      // null until first read: a case's events wait out that moment rather than slip through.
      let mine: Set<string> | undefined | null = casesOf ? null : undefined;
      const refresh = () => {
        if (casesOf)
          void casesOf(actor).then(
            (m) => (mine = m),
            () => (mine = new Set()),
          );
      };
      refresh();
      const recheck = setInterval(refresh, 5_000);
      recheck.unref();
      res.writeHead(200, {
        ...BASE_HEADERS,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.write('retry: 2000\n: connected\n\n');
      streams.add(res);
      const off = events.onAny((envelope) => {
        if (walledOff(envelope.payload, mine)) return;
        if (envelope.name === 'cases.changed') refresh();
        // Until 0.2 each renamed field of a payload also under its former name (src/shared/wire-names.ts).
        res.write(`data: ${JSON.stringify(withFormerNames(envelope))}\n\n`);
      });
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
      ping.unref();
      const done = () => {
        clearInterval(ping);
        clearInterval(recheck);
        off();
        streams.delete(res);
      };
      req.on('close', done);
      res.on('close', done);
    },
    close() {
      for (const res of streams) res.end();
      streams.clear();
    },
  };
}
