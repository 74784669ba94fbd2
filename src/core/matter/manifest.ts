/**
 * The manifest of a matter file (`manifest.json`, the zip's last entry): which case, written by
 * which Casefile and when, and every file of the case with its path, size and SHA-256. An import
 * trusts nothing it has not checked against it.
 */
import { z } from 'zod';
import { CasefileError } from '../../shared/errors';

export const MATTER_FORMAT = 'casefile-matter';
export const MATTER_FORMAT_VERSION = 1;
export const MANIFEST_ENTRY = 'manifest.json';
/** Every file of the case lies under this folder of the zip. */
export const CASE_PREFIX = 'case/';

/** A path inside the case: forward slashes, no empty, `.` or `..` segment, nothing a system reads as a root, drive or stream. */
export function safeCasePath(p: string): boolean {
  if (!p || p.length > 1024 || p.includes('\0') || p.includes('\\') || p.includes(':')) return false;
  if (p.startsWith('/')) return false;
  return p.split('/').every((s) => s !== '' && s !== '.' && s !== '..' && s.length <= 255);
}

const ManifestFile = z.object({
  path: z.string().refine(safeCasePath, 'a path that leaves the case'),
  size: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const Manifest = z.object({
  format: z.literal(MATTER_FORMAT),
  format_version: z.number().int().positive(),
  casefile_version: z.string(),
  exported_at: z.string(),
  case: z.object({ id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/), name: z.string() }),
  files: z.array(ManifestFile),
});
export type Manifest = z.infer<typeof Manifest>;
export type ManifestFile = z.infer<typeof ManifestFile>;

const refuse = (why: string): CasefileError => new CasefileError('invalid_input', why);

/** The manifest's JSON, checked: its shape, a format this Casefile reads, one entry per path, case.json among them. */
export function parseManifest(text: string): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw refuse(
      'This matter file’s list of contents is damaged, so nothing in it can be checked. Ask for a fresh copy.',
    );
  }
  const parsed = Manifest.safeParse(raw);
  if (!parsed.success) {
    if ((raw as { format?: unknown } | null)?.format !== MATTER_FORMAT)
      throw refuse('This is a zip file, but not a Casefile matter file.');
    throw refuse(
      `This matter file’s list of contents is damaged (${parsed.error.issues[0]?.message ?? 'unreadable'}).`,
    );
  }
  const m = parsed.data;
  if (m.format_version > MATTER_FORMAT_VERSION)
    throw refuse('This matter file was written by a newer Casefile. Update Casefile to import it.');
  const seen = new Set<string>();
  for (const f of m.files) {
    const key = f.path.toLowerCase();
    if (seen.has(key)) throw refuse(`This matter file lists “${f.path}” twice, so it cannot be trusted.`);
    seen.add(key);
  }
  if (!seen.has('case.json')) throw refuse('This matter file holds no case (its case.json is missing).');
  return m;
}
