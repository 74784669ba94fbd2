/**
 * The wire contract is snake_case (issue #39). Its fields that were camelCase until 0.1 keep their
 * former names for one release: the CLI's `--json` output and serve mode's HTTP answers and events
 * carry each renamed field under both names (`withFormerNames`), and serve mode's requests may still
 * use a former name (`withCurrentNames`). Both go in 0.2; the Electron app sees the new names only.
 * Pure TypeScript, shared by the CLI and the server.
 */

/** Each renamed field: its name now → its former name (deprecated, removed in 0.2). */
export const FORMER_NAMES = {
  already_installed: 'alreadyInstalled',
  approx_size_mb: 'approxSizeMB',
  blocked_by: 'blockedBy',
  bytes_done: 'bytesDone',
  bytes_total: 'bytesTotal',
  case_id: 'caseId',
  chat_model_override: 'chatModelOverride',
  context_length: 'contextLength',
  day_first: 'dayFirst',
  default_chat_model: 'defaultChatModel',
  default_embedding_model: 'defaultEmbeddingModel',
  download_url: 'downloadUrl',
  elapsed_seconds: 'elapsedSeconds',
  eta_seconds: 'etaSeconds',
  file_id: 'fileId',
  files_done: 'filesDone',
  files_total: 'filesTotal',
  is_default: 'isDefault',
  job_id: 'jobId',
  max_steps: 'maxSteps',
  min_ram_gb: 'minRamGB',
  model_id: 'modelId',
  models_dir: 'modelsDir',
  ocr_page: 'ocrPage',
  pages_done: 'pagesDone',
  pages_estimated: 'pagesEstimated',
  pages_total: 'pagesTotal',
  received_bytes: 'receivedBytes',
  session_id: 'sessionId',
  too_small: 'tooSmall',
  total_bytes: 'totalBytes',
  turn_id: 'turnId',
  used_by: 'usedBy',
  // `casefile serve --json` only.
  login_url: 'loginUrl',
  allow_paths: 'allowPaths',
  allow_downloads_from: 'allowDownloadsFrom',
} as const satisfies Record<string, string>;

export type CurrentName = keyof typeof FORMER_NAMES;
export type FormerName = (typeof FORMER_NAMES)[CurrentName];

const own = (o: object, k: string): boolean => Object.hasOwn(o, k);
/** Sets a key as data, even `__proto__` (a JSON body's own key), never the prototype. */
const put = (o: Record<string, unknown>, k: string, v: unknown): void => {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
};

/** Each former name → its name now. */
export const CURRENT_NAMES: Readonly<Record<FormerName, CurrentName>> = Object.fromEntries(
  Object.entries(FORMER_NAMES).map(([now, former]) => [former, now]),
) as Record<FormerName, CurrentName>;

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` as printed by `--json` and answered over HTTP until 0.2: every renamed field, at any
 * depth, also under its former name (right after it, the same value). A former name the object
 * already has is left as it is. Arrays and plain objects are copied; anything else is kept.
 */
export function withFormerNames<T>(value: T): T {
  if (Array.isArray(value)) return value.map((v: unknown) => withFormerNames(v)) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const copied = withFormerNames(v);
    put(out, key, copied);
    const former = own(FORMER_NAMES, key) ? FORMER_NAMES[key as CurrentName] : undefined;
    if (former !== undefined && !own(value, former)) put(out, former, copied);
  }
  return out as T;
}

/**
 * A request's input with its former names mapped to the names now, at any depth, before the
 * contract validates it. When both are given, the name now wins and the former one is dropped.
 */
export function withCurrentNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((v: unknown) => withCurrentNames(v));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const now = own(CURRENT_NAMES, key) ? CURRENT_NAMES[key as FormerName] : undefined;
    if (now === undefined) put(out, key, withCurrentNames(v));
    else if (!own(value, now)) put(out, now, withCurrentNames(v));
  }
  return out;
}
