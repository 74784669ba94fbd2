import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { VERSION } from '../../src/core/version';
import { repoRoot } from '../helpers/home';

it('version – the engine reports the package version', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string };
  expect(VERSION).toBe(pkg.version);
});
