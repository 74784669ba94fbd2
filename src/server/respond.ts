/** How serve mode answers: every response carries the same safety headers and is never cached unless static. */
import type { ServerResponse } from 'node:http';
import type { ApiErrorShape } from '../shared/errors';
import { httpError } from './http-errors';

export const BASE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...BASE_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

export function sendError(res: ServerResponse, status: number, error: ApiErrorShape): void {
  sendJson(res, status, { error });
}

/** Answer with whatever was thrown, its status chosen by its code (`httpError`). */
export function sendThrown(res: ServerResponse, err: unknown): void {
  const { status, error } = httpError(err);
  sendError(res, status, error);
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { ...BASE_HEADERS, 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(text);
}
