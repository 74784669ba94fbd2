/**
 * Per-file limits of ingest and page rendering. A small hostile file (a decompression bomb, a page
 * tree that claims a million pages, an image of 20000² pixels, a DOCX of nine million paragraphs)
 * must end as one failed file with a plain reason, never exhaust memory, stall the batch, or take
 * the process down. Every limit has a default, an environment variable and an engine option;
 * docs/user-guide.md ("Hostile files and limits") lists them.
 */

export interface IngestLimits {
  /** Files larger than this are not read ("too large"). */
  maxFileBytes: number;
  /** Pages of one PDF. */
  maxPages: number;
  /** Decoded bytes of one compressed PDF stream (a larger one is a decompression bomb). */
  maxStreamBytes: number;
  /** Decoded bytes of all compressed streams of one PDF. */
  maxDecodedBytes: number;
  /** Pixels of one image that pdf.js decodes while reading or drawing a page (larger images are left out). */
  maxImagePixels: number;
  /** Memory (resident set) of the process that reads one file; past it the reader is stopped. */
  maxParseMemoryBytes: number;
  /** Wall time for one file, and for one page of it (no progress for this long stops the reader). */
  fileTimeoutMs: number;
  pageTimeoutMs: number;
  /** DOCX/ZIP: decoded bytes of all parts, decoded/compressed ratio of any large part, XML elements. */
  maxZipBytes: number;
  maxZipRatio: number;
  maxXmlElements: number;
  /** Files in one archive (.zip); a larger archive is not unpacked. */
  maxArchiveEntries: number;
  /** Containers inside containers (an email attached to an email in a zip…); deeper files are listed, not read. */
  maxNestingDepth: number;
  /**
   * What one added file may expand to, at every level of files inside files (an archive's files,
   * the archives inside it and theirs, an email's attachments): files and their bytes. Past either,
   * the rest are not added, and the file says so. A reader is given what is left of them for the
   * file it reads, and unpacks an archive no further.
   */
  maxInnerFiles: number;
  maxInnerBytes: number;
  /**
   * Times the app may close unexpectedly while storing what was read from one file, or the file's
   * reader be stopped from outside in a row, before that file is set aside.
   */
  quarantineAfter: number;
}

const MB = 1024 * 1024;

export const DEFAULT_LIMITS: IngestLimits = {
  maxFileBytes: 500 * MB,
  maxPages: 20_000,
  maxStreamBytes: 256 * MB,
  maxDecodedBytes: 1024 * MB,
  maxImagePixels: 100_000_000,
  maxParseMemoryBytes: 1024 * MB,
  fileTimeoutMs: 60 * 60_000,
  pageTimeoutMs: 120_000,
  maxZipBytes: 512 * MB,
  maxZipRatio: 200,
  maxXmlElements: 5_000_000,
  maxArchiveEntries: 10_000,
  maxNestingDepth: 5,
  maxInnerFiles: 10_000,
  maxInnerBytes: 4 * 1024 * MB,
  quarantineAfter: 3,
};

/** Environment variable → limit, with the unit the variable is written in. */
export const LIMIT_ENV: Record<keyof IngestLimits, { env: string; unit: number }> = {
  maxFileBytes: { env: 'CASEFILE_MAX_FILE_MB', unit: MB },
  maxPages: { env: 'CASEFILE_MAX_PAGES', unit: 1 },
  maxStreamBytes: { env: 'CASEFILE_MAX_STREAM_MB', unit: MB },
  maxDecodedBytes: { env: 'CASEFILE_MAX_DECODED_MB', unit: MB },
  maxImagePixels: { env: 'CASEFILE_MAX_IMAGE_PIXELS', unit: 1 },
  maxParseMemoryBytes: { env: 'CASEFILE_PARSE_MEMORY_MB', unit: MB },
  fileTimeoutMs: { env: 'CASEFILE_FILE_TIMEOUT_S', unit: 1000 },
  pageTimeoutMs: { env: 'CASEFILE_PAGE_TIMEOUT_S', unit: 1000 },
  maxZipBytes: { env: 'CASEFILE_MAX_ZIP_MB', unit: MB },
  maxZipRatio: { env: 'CASEFILE_MAX_ZIP_RATIO', unit: 1 },
  maxXmlElements: { env: 'CASEFILE_MAX_XML_ELEMENTS', unit: 1 },
  maxArchiveEntries: { env: 'CASEFILE_MAX_ARCHIVE_ENTRIES', unit: 1 },
  maxNestingDepth: { env: 'CASEFILE_MAX_NESTING', unit: 1 },
  maxInnerFiles: { env: 'CASEFILE_MAX_INNER_FILES', unit: 1 },
  maxInnerBytes: { env: 'CASEFILE_MAX_INNER_MB', unit: MB },
  quarantineAfter: { env: 'CASEFILE_QUARANTINE_AFTER', unit: 1 },
};

/** Limits set by CASEFILE_* variables (read by config.ts), in bytes / milliseconds / counts; positive numbers only. */
export function limitsFromEnv(env: NodeJS.ProcessEnv): Partial<IngestLimits> {
  const out: Partial<IngestLimits> = {};
  for (const key of Object.keys(LIMIT_ENV) as (keyof IngestLimits)[]) {
    const raw = env[LIMIT_ENV[key].env];
    const n = raw === undefined || raw.trim() === '' ? NaN : Number(raw);
    if (Number.isFinite(n) && n > 0) out[key] = Math.round(n * LIMIT_ENV[key].unit);
  }
  return out;
}

/** Defaults, then the given environment's variables, then explicit options (positive numbers only; others are ignored). */
export function resolveLimits(options: Partial<IngestLimits> = {}, env: NodeJS.ProcessEnv = {}): IngestLimits {
  const out = { ...DEFAULT_LIMITS, ...limitsFromEnv(env) };
  for (const key of Object.keys(LIMIT_ENV) as (keyof IngestLimits)[]) {
    const given = options[key];
    if (typeof given === 'number' && Number.isFinite(given) && given > 0) out[key] = given;
  }
  return out;
}

/** "1.5 GB", "256 MB", "900 KB" */
export function formatBytes(n: number): string {
  if (n >= 1024 * MB) return `${Math.round((n / (1024 * MB)) * 10) / 10} GB`;
  if (n >= MB) return `${Math.round(n / MB)} MB`;
  return `${Math.max(1, Math.round(n / 1024))} KB`;
}

/** "45 s", "2 min", "1 h" */
export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${Math.round(s / 3600)} h`;
}

/** The end of a limit's reason: plain words for the user, the exact setting for whoever runs the machine. */
export function raiseHint(key: keyof IngestLimits): string {
  return ` If the file opens normally elsewhere, ask for the limit to be raised (${LIMIT_ENV[key].env}), then retry it.`;
}
