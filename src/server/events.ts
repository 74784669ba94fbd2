/** The engine's events as server-sent events (`GET /api/events`), one stream per open page. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EventBus } from '../core/bus';
import { withFormerNames } from '../shared/wire-names';
import { BASE_HEADERS } from './respond';

export interface EventStreams {
  /** Answer `GET /api/events`: every engine event from now on, until the client goes. */
  open(req: IncomingMessage, res: ServerResponse): void;
  /** End every open stream (the server is closing). */
  close(): void;
}

export function createEventStreams(events: EventBus): EventStreams {
  const streams = new Set<ServerResponse>();
  return {
    open(req, res) {
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
        // Until 0.2 each renamed field of a payload also under its former name (src/shared/wire-names.ts).
        res.write(`data: ${JSON.stringify(withFormerNames(envelope))}\n\n`);
      });
      const ping = setInterval(() => res.write(': ping\n\n'), 15_000);
      ping.unref();
      const done = () => {
        clearInterval(ping);
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
