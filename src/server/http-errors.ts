import { CasefileError, toApiError, type ApiErrorShape, type ErrorCode } from '../shared/errors';

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

/**
 * The status and body an HTTP client gets for anything thrown, chosen by the error's code and
 * reason, never by its message. An unknown operation (reason `unknown_operation`, code
 * `invalid_input` in-process) is a 404 `not_found`: its address names nothing.
 */
export function httpError(err: unknown): { status: number; error: ApiErrorShape } {
  const error = toApiError(err);
  if (err instanceof CasefileError && err.reason === 'unknown_operation')
    return { status: 404, error: { ...error, code: 'not_found' } };
  return { status: statusFor(error.code), error };
}
