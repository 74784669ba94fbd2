import {
  messageWithRemedy,
  type ApiErrorShape,
  type ErrorCode,
  type FieldIssue,
  type Remedy,
} from '../../../shared/errors';

/** An operation failed. `message` is written for the user; `fields` names bad inputs. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly fields: FieldIssue[];
  readonly remedy?: Remedy;
  constructor(shape: ApiErrorShape) {
    super(shape.message);
    this.name = 'ApiError';
    this.code = shape.code;
    this.fields = shape.fields ?? [];
    if (shape.remedy) this.remedy = shape.remedy;
  }
  /** The message for one field, if the server named it. */
  field(name: string): string | undefined {
    return this.fields.find((f) => f.field === name)?.message;
  }
}

/** A message safe to show a user for anything thrown (never a stack trace). */
export function errorMessage(err: unknown): string {
  if (err instanceof ApiError) {
    // A refused input whose every reason is a sentence ("Enter the password.") says just that, not "Invalid input to …".
    const reasons = err.code === 'invalid_input' ? err.fields.map((f) => f.message) : [];
    return reasons.length && reasons.every((m) => /^[A-Z].*\.$/.test(m))
      ? [...new Set(reasons)].join(' ')
      : messageWithRemedy(err, 'app');
  }
  if (err instanceof Error && err.name === 'AbortError') return 'Cancelled.';
  if (err instanceof TypeError && /fetch|network/i.test(err.message)) {
    return 'Casefile is not reachable. Check that the app (or the Casefile server) is still running.';
  }
  return 'Something went wrong. Try again; if it keeps happening, restart Casefile.';
}
