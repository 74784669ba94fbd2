import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

/** A fresh data home per test, removed afterwards. */
export function tempHome(prefix = 'casefile-test-'): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export const repoRoot = path.resolve(import.meta.dirname, '..', '..');
export const sharedDir = path.resolve(repoRoot, '..', 'shared');
export const corpusDir = path.join(sharedDir, 'corpus');
