/**
 * Errors that cross the API boundary. Pure TypeScript: shells serialise an
 * {@link ApiErrorShape} and the renderer shows `message` (never a stack).
 */
export type ErrorCode =
  | 'invalid_input' // the caller sent something the schema refuses
  | 'not_found' // the case / file / session does not exist
  | 'ambiguous' // a name matched more than one thing
  | 'conflict' // the operation cannot run in the current state
  | 'cancelled' // the user cancelled: not a failure
  | 'unavailable' // a capability is off (e.g. no embedding model installed)
  | 'failed' // an expected failure with a reason for the user
  | 'unauthorized' // serve mode: the request carries no valid token
  | 'forbidden' // serve mode: the request names something outside what the server may reach (a path, a test model)
  | 'internal'; // a bug

/**
 * A finer, machine-readable kind of error within a code, for a shell that answers it differently.
 * Never serialised: clients see `code`, `message` and `fields` only.
 * - `unknown_operation`: the name is not an operation of the contract. To an in-process caller
 *   (CLI, Electron) that is `invalid_input`; serve mode answers it 404 `not_found`, as for any
 *   address that names nothing.
 */
export type ErrorReason = 'unknown_operation';

export interface FieldIssue {
  /** Dotted path of the offending field, e.g. `name` or `filters.top_k`. */
  field: string;
  message: string;
}

/**
 * What the user can do about an error, in each shell's own words: the app names its buttons and
 * menus, the CLI its commands. The message itself names neither.
 */
export interface Remedy {
  app: string;
  cli: string;
}

export interface ApiErrorShape {
  code: ErrorCode;
  message: string;
  fields?: FieldIssue[];
  remedy?: Remedy;
}

/** The message with the remedy for `shell`, as one text. */
export function messageWithRemedy(error: Pick<ApiErrorShape, 'message' | 'remedy'>, shell: keyof Remedy): string {
  return error.remedy ? `${error.message} ${error.remedy[shell]}` : error.message;
}

export class CasefileError extends Error {
  readonly code: ErrorCode;
  readonly fields?: FieldIssue[];
  /** See {@link ErrorReason}; not part of {@link toJSON}. */
  readonly reason?: ErrorReason;
  readonly remedy?: Remedy;
  constructor(code: ErrorCode, message: string, fields?: FieldIssue[], reason?: ErrorReason, remedy?: Remedy) {
    super(message);
    this.name = 'CasefileError';
    this.code = code;
    if (fields) this.fields = fields;
    if (reason) this.reason = reason;
    if (remedy) this.remedy = remedy;
  }
  /** An error whose message is followed by what to do, worded for each shell. */
  static withRemedy(code: ErrorCode, message: string, remedy: Remedy): CasefileError {
    return new CasefileError(code, message, undefined, undefined, remedy);
  }
  toJSON(): ApiErrorShape {
    return {
      code: this.code,
      message: this.message,
      ...(this.fields ? { fields: this.fields } : {}),
      ...(this.remedy ? { remedy: this.remedy } : {}),
    };
  }
}

export function isApiErrorShape(value: unknown): value is ApiErrorShape {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { code?: unknown }).code === 'string' &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

/**
 * A full disk or a used-up quota, as Node reports it (`code`) or as a native library words it (LanceDB,
 * onnxruntime: the system's own message, "No space left on device (os error 28)"); null otherwise.
 */
function storageExhausted(err: unknown): string | null {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'EDQUOT' || /disk quota exceeded/i.test(message)) return 'Your disk quota is used up';
  if (code === 'ENOSPC' || /no space left on device|not enough space on the disk/i.test(message))
    return 'The disk is full';
  return null;
}

/**
 * LanceDB's words when the object storage holding a case's index (docs/firm-server.md) did not
 * answer: the server's address, or null for any other error.
 */
function objectStoreUnreachable(err: unknown): string | null {
  const message = err instanceof Error ? err.message : String(err);
  if (
    !/\b(Generic S3 error|S3 error)\b/.test(message) ||
    !/error sending request|connect|timed out|timeout/i.test(message)
  )
    return null;
  return /\bhttps?:\/\/[^/\s?]+/.exec(message)?.[0] ?? 'the configured endpoint';
}

/** Turn anything thrown into the shape that may cross a boundary. Bugs keep their message but lose their stack. */
export function toApiError(err: unknown): ApiErrorShape {
  if (err instanceof CasefileError) return err.toJSON();
  // Out of space is no bug: say what ran out and that what was saved is kept (every write of a case is
  // atomic). Checked before the shape test, which a Node error ({ code: 'ENOSPC', message }) passes.
  const exhausted = storageExhausted(err);
  if (exhausted) {
    const file =
      typeof (err as { path?: unknown }).path === 'string' ? ` (writing ${(err as { path: string }).path})` : '';
    return {
      code: 'failed',
      message: `${exhausted}${file}. Nothing already in the case was lost; free some space and try again.`,
    };
  }
  const endpoint = objectStoreUnreachable(err);
  if (endpoint)
    return {
      code: 'unavailable',
      message: `The firm’s object storage (${endpoint}) that holds this case’s index did not answer. Nothing in the case was lost; try again when it is back, or tell the firm’s administrator.`,
    };
  if (isApiErrorShape(err))
    return {
      code: err.code,
      message: err.message,
      ...(err.fields ? { fields: err.fields } : {}),
      ...(err.remedy ? { remedy: err.remedy } : {}),
    };
  if (err instanceof Error && err.name === 'AbortError') return { code: 'cancelled', message: 'Cancelled.' };
  const message = err instanceof Error ? err.message : String(err);
  return { code: 'internal', message: `Unexpected error: ${message}` };
}
