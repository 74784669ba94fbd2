/**
 * What a serve-mode token may reach on this computer's disk. A server acts for whoever holds its
 * token, not for the local user, so every path must lie in the upload folder or a folder allowed at
 * start (`--allow-path DIR`), the scripted test model is refused unless started for tests, and
 * `models.download` is off unless the operator named its hosts (`--allow-downloads-from HOST`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CasefileError } from '../shared/errors';

export interface ServeScope {
  /** Where uploads land (`<home>/uploads`): always readable. */
  uploadsDir: string;
  /** Folders the operator allowed with --allow-path. */
  allowPaths: readonly string[];
  /** Started for tests (--allow-scripted-models): `scripted:` models may be picked per request. */
  allowScriptedModels: boolean;
  /**
   * Hosts `models.download` may fetch from (--allow-downloads-from); empty or absent: downloads are
   * off. The model catalog enforces the hosts (redirects included); this scope refuses when there are none.
   */
  downloadHosts?: readonly string[];
}

/** Why `models.download` is refused on a server started without --allow-downloads-from; the same for every source. */
export const DOWNLOADS_OFF =
  'Downloading models is off on this server. Ask whoever runs it to import the model, or to start it with --allow-downloads-from HOST.';

function within(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/**
 * Whether `p` lies in an allowed folder. A path that exists is judged by where it really is
 * (a link inside an allowed folder that points out of it is outside); one that does not exist is
 * judged as written, and refused alike when outside, so refusals never tell what exists there.
 */
export async function inScope(p: string, scope: Pick<ServeScope, 'uploadsDir' | 'allowPaths'>): Promise<boolean> {
  const given = [scope.uploadsDir, ...scope.allowPaths].map((r) => path.resolve(r));
  const real = await Promise.all(given.map((r) => fs.realpath(r).catch(() => r)));
  const abs = path.resolve(p);
  const target = await fs.realpath(abs).catch(() => null);
  if (target !== null) return real.some((r) => within(r, target));
  return [...given, ...real].some((r) => within(r, abs));
}

function outsideMessage(scope: ServeScope, what: string, p: string): string {
  const allowed = scope.allowPaths.length
    ? `files uploaded through the page or folders allowed with --allow-path (${scope.allowPaths.join(', ')})`
    : 'files uploaded through the page (or folders the person running the server allowed with --allow-path)';
  return `This server only reads ${allowed}; ${what} "${p}" is outside them. Upload it instead, or ask whoever runs the server to allow its folder.`;
}

async function checkPath(scope: ServeScope, field: string, what: string, p: string): Promise<void> {
  if (await inScope(p, scope)) return;
  const message = outsideMessage(scope, what, p);
  throw new CasefileError('forbidden', message, [
    { field, message: `${what} is outside the folders this server may read` },
  ]);
}

/** A matter file is written on the server only into a folder allowed with --allow-path (never the upload folder). */
async function checkExportTarget(scope: ServeScope, out: string): Promise<void> {
  const [first] = scope.allowPaths;
  if (first !== undefined && (await inScope(out, { uploadsDir: first, allowPaths: scope.allowPaths }))) return;
  const message =
    'This server writes a matter file only into a folder allowed with --allow-path. Use “Export matter…” on the page to download it instead.';
  throw new CasefileError('forbidden', message, [
    { field: 'out', message: 'outside the folders this server may write' },
  ]);
}

/** Mirrors how the agent reads a model choice (`resolveModel`): a path when it ends in .gguf or has a slash. */
function modelPath(spec: string): string | null {
  if (spec.startsWith('scripted:') || spec.startsWith('endpoint:')) return null;
  return spec.toLowerCase().endsWith('.gguf') || spec.includes('/') || spec.includes('\\') ? spec : null;
}

/**
 * Refuse an operation whose input names something outside the server's scope, before it runs.
 * Input that is not even shaped right passes through: the contract's validation refuses it.
 */
export async function checkScope(name: string, input: unknown, scope: ServeScope): Promise<void> {
  // Whatever the input: the refusal says nothing about the source. (On a firm server only administrators get here: ./walls.)
  if (name === 'models.download' && !scope.downloadHosts?.length) {
    throw new CasefileError('forbidden', DOWNLOADS_OFF, [
      { field: 'source', message: 'downloads are off on this server' },
    ]);
  }
  if (typeof input !== 'object' || input === null) return;
  const fields = input as Record<string, unknown>;
  if (name === 'ingest.start' && Array.isArray(fields.paths)) {
    for (const [i, p] of fields.paths.entries())
      if (typeof p === 'string' && p) await checkPath(scope, `paths.${i}`, 'the file or folder', p);
  }
  if (name === 'cases.setWatch' && Array.isArray(fields.folders)) {
    for (const [i, p] of fields.folders.entries())
      if (typeof p === 'string' && p) await checkPath(scope, `folders.${i}`, 'the folder', p);
  }
  // A matter file comes as an upload (or from an allowed folder); one is written only into an allowed folder (the page downloads it instead).
  if (name === 'cases.import' && typeof fields.path === 'string' && fields.path) {
    await checkPath(scope, 'path', 'the matter file', fields.path);
  }
  if (name === 'cases.export' && typeof fields.out === 'string' && fields.out)
    await checkExportTarget(scope, fields.out);
  if (name === 'models.import' && typeof fields.path === 'string' && fields.path) {
    await checkPath(scope, 'path', 'the model', fields.path);
  }
  if (name === 'chat.ask' && typeof fields.model === 'string') {
    const spec = fields.model.trim();
    if (spec.startsWith('scripted:') && !scope.allowScriptedModels) {
      const message =
        'Scripted models are for tests and demos and are off on this server. Pick an installed chat model (or start the server with --allow-scripted-models for tests).';
      throw new CasefileError('forbidden', message, [
        { field: 'model', message: 'scripted models are off on this server' },
      ]);
    }
    const file = modelPath(spec);
    if (file !== null) await checkPath(scope, 'model', 'the model file', file);
  }
}
