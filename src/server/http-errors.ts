import type { ErrorCode } from '../shared/errors';

/** HTTP status for each API error code. */
export function statusFor(code: ErrorCode): number {
  switch (code) {
    case 'invalid_input':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'ambiguous':
    case 'conflict':
      return 409;
    case 'cancelled':
      return 409;
    case 'failed':
      return 422;
    case 'unavailable':
      return 503;
    case 'internal':
    default:
      return 500;
  }
}
