/**
 * Operations over HTTP (`POST /api/op/<name>`): the JSON body is the input, the answer is the
 * operation's value or `{ error }` with the status of its code (`http-errors`). The dispatcher knows
 * no operation by name: the scope checks (`./scope`) and after-operation hooks are given to it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuditLog } from '../core/audit/log';
import type { Router } from '../core/router/router';
import type { OpName, OpOutput } from '../shared/contract/index';
import { CasefileError } from '../shared/errors';
import { withCurrentNames, withFormerNames } from '../shared/wire-names';
import { recordOp } from './audit-ops';
import { sendError, sendJson, sendThrown } from './respond';
import type { Actor } from './actor';
import { checkScope, type ServeScope } from './scope';
import type { Walls } from './walls';

/**
 * What a module does once an operation has succeeded, before its answer is sent, keyed by the
 * operation: a side effect that module owns (the upload folder is emptied after `ingest.start`).
 * `input` is the body with former field names mapped to the names now (`withCurrentNames`); the contract's validation accepted it.
 */
export type AfterOp = { [N in OpName]?: (input: unknown, value: OpOutput<N>) => void };

export interface DispatchOptions {
  router: Router;
  scope: ServeScope;
  /** Largest JSON body accepted, bytes. */
  maxJsonBytes: number;
  afterOp: AfterOp;
  /** A firm server's walls between cases (`./walls`); absent for a single-token server. */
  walls?: Walls;
  /** When given, every operation past the walls and the scope is recorded here before it runs (`./audit-ops`). */
  audit?: AuditLog;
}

/** Handles one request under `/api/op/`, asked by `actor`. */
export type Dispatch = (
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  method: string,
  actor: Actor,
) => Promise<void>;

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit)
      throw new CasefileError('invalid_input', `The request is too large (over ${Math.round(limit / 1e6)} MB).`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The request's JSON body (`{}` when empty), or undefined once it has answered a body it refuses. */
export async function readInput(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
): Promise<{ input: unknown } | undefined> {
  let text: string;
  try {
    text = (await readBody(req, limit)).toString('utf8').trim();
  } catch (err) {
    sendThrown(res, err);
    return undefined;
  }
  if (!text) return { input: {} };
  try {
    return { input: JSON.parse(text) as unknown };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    sendError(res, 400, {
      code: 'invalid_input',
      message: `The request body is not valid JSON (${why}).`,
      fields: [{ field: '(body)', message: 'must be a JSON object' }],
    });
    return undefined;
  }
}

const FIRM_ONLY = new CasefileError(
  'forbidden',
  'Accounts exist only on a firm server (casefile serve --firm); manage them there or with casefile firm.',
);

/** A handler for requests under `/api/op/`. */
export function createDispatch(options: DispatchOptions): Dispatch {
  const { router, scope, maxJsonBytes, afterOp, walls, audit } = options;

  const call = async (name: string, req: IncomingMessage, res: ServerResponse, actor: Actor) => {
    const body = await readInput(req, res, maxJsonBytes);
    if (!body) return;
    // Until 0.2 a request may still use a field's former camelCase name; the name now wins (src/shared/wire-names.ts).
    const input = withCurrentNames(body.input);
    // The client going away cancels the operation (a chat turn, an ingest with wait).
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    try {
      // The walls come first: a case the caller may not see answers as one that does not exist.
      if (!walls && name.startsWith('firm.')) throw FIRM_ONLY;
      const wall = walls ? await walls.check(name, input, actor) : {};
      await checkScope(name, input, scope);
      if (audit) await recordOp(audit, name, input, actor);
      const ctx = { signal: controller.signal, ...(wall.visible ? { visible: wall.visible } : {}) };
      const raw = 'answer' in wall ? wall.answer : await router.call(name, input, ctx);
      const value = wall.filter ? wall.filter(raw) : raw;
      // Only an operation of the contract gets here (the router refuses other names), so `name` is a key of AfterOp.
      (afterOp[name as OpName] as ((input: unknown, value: unknown) => void) | undefined)?.(input, value);
      // Until 0.2 each renamed field also under its former name (src/shared/wire-names.ts).
      sendJson(res, 200, withFormerNames(value ?? null));
    } catch (err) {
      if (!res.writableEnded) sendThrown(res, err);
    }
  };

  return async (req, res, url, method, actor) => {
    if (method !== 'POST') {
      res.setHeader('Allow', 'POST');
      sendError(res, 405, { code: 'invalid_input', message: 'Operations are called with POST.' });
      return;
    }
    let name: string;
    try {
      name = decodeURIComponent(url.pathname.slice('/api/op/'.length));
    } catch {
      req.resume();
      sendError(res, 400, {
        code: 'invalid_input',
        message: 'The operation name in the address is not valid (a broken %-escape).',
      });
      return;
    }
    await call(name, req, res, actor);
  };
}
