/**
 * The renderer's structure as rules (src/renderer/src):
 *   - stores/ (the zustand stores) import no components;
 *   - lib/ (view logic that is no component) imports no components, no stores and not the api client;
 *   - every engine operation goes through a store action: no component calls `api.call` (nor imports
 *     the client's transports); a component may still ask the client for events and the system dialogs;
 *   - components read a store through a selector, never the whole store (`useChat()` re-renders on
 *     every change of the store).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, SRC, sourceFiles } from '../helpers/imports';

const RENDERER = path.join(SRC, 'renderer', 'src');
const dir = (name: string) => path.join(RENDERER, name);
const rel = (f: string) => path.relative(RENDERER, f).split(path.sep).join('/');
const inside = (f: string, name: string) => f.startsWith(dir(name) + path.sep);
const graph = importGraph(sourceFiles(RENDERER));

/** "from → to" for each import of a file in `from` that goes to a file matching `to`. */
function importsInto(from: string, to: (target: string) => boolean): string[] {
  return [...graph]
    .filter(([file]) => inside(file, from))
    .flatMap(([file, targets]) => targets.filter(to).map((t) => `${rel(file)} → ${rel(t)}`));
}

/** A call of an engine operation in the text of a source file. */
function callsApi(code: string): boolean {
  return /\bapi\s*\.\s*call\s*[(<]/.test(code);
}

/** The store hooks (`export const useX = create…`) used with no selector. */
function wholeStoreReads(code: string, hooks: string[]): string[] {
  return hooks.filter((h) => new RegExp(`\\b${h}\\(\\s*\\)`).test(code));
}

const storeHooks = sourceFiles(dir('stores')).flatMap((f) =>
  [...readFileSync(f, 'utf8').matchAll(/export const (use\w+) = create\b/g)].map((m) => m[1]!),
);
const apiClient = (t: string) => inside(t, 'api') && !/[\\/]api[\\/](errors|types)\.ts$/.test(t);

describe('renderer structure', () => {
  it('stores import no components', () => {
    expect(importsInto('stores', (t) => inside(t, 'components'))).toEqual([]);
  });

  it('lib/ imports no components, no stores and not the api client', () => {
    expect(importsInto('lib', (t) => inside(t, 'components') || inside(t, 'stores') || apiClient(t))).toEqual([]);
  });

  it('no component or lib module calls an engine operation: stores do', () => {
    const callers = sourceFiles(RENDERER)
      .filter((f) => inside(f, 'components') || inside(f, 'lib'))
      .filter((f) => callsApi(readFileSync(f, 'utf8')))
      .map(rel);
    expect(callers).toEqual([]);
    // Components reach the client itself only through its index (events, dialogs), never a transport.
    expect(importsInto('components', (t) => inside(t, 'api') && /[\\/](http|ipc)\.ts$/.test(t))).toEqual([]);
  });

  it('components read stores through selectors', () => {
    expect(storeHooks).toEqual(expect.arrayContaining(['useChat', 'useDocuments', 'useSettings', 'useViewer']));
    const whole = sourceFiles(dir('components')).flatMap((f) =>
      wholeStoreReads(readFileSync(f, 'utf8'), storeHooks).map((h) => `${rel(f)}: ${h}()`),
    );
    expect(whole).toEqual([]);
  });

  it('the rules see what they look for', () => {
    expect(callsApi("await api.call('files.list', { caseId })")).toBe(true);
    expect(callsApi("api\n  .call('files.retry', input)")).toBe(true);
    expect(callsApi("api.on('models.changed', reload)")).toBe(false);
    expect(wholeStoreReads('const { messages } = useChat();', ['useChat'])).toEqual(['useChat']);
    expect(wholeStoreReads('const messages = useChat((s) => s.messages);', ['useChat'])).toEqual([]);
  });
});
