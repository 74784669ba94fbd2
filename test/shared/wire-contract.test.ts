import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FORMER_NAMES } from '../../src/shared/wire-names';

const root = path.resolve(__dirname, '../..');
const contractDir = path.join(root, 'src/shared/contract');
const wireFiles = [
  ...readdirSync(contractDir).map((f) => path.join(contractDir, f)),
  path.join(root, 'src/shared/events.ts'),
];

/** Property names declared in a wire file (interface members, zod object keys): `name:` or `name?:` at the start of a member. */
function fieldNames(file: string): string[] {
  const code = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/[^\n]*/g, '');
  return [...code.matchAll(/(?:^|[{;,(]\s*)([A-Za-z_][A-Za-z0-9_]*)\??\s*:(?!:)/gm)].map((m) => m[1]!);
}

describe('the wire contract is snake_case (issue #39)', () => {
  it('declares no camelCase field in src/shared/contract or events.ts', () => {
    const camel = wireFiles.flatMap((f) =>
      fieldNames(f)
        .filter((n) => /[a-z][A-Z]/.test(n))
        .map((n) => `${path.relative(root, f)}: ${n}`),
    );
    expect(camel).toEqual([]);
  });

  it('no former name is a field any more', () => {
    const all = new Set(wireFiles.flatMap(fieldNames));
    expect(Object.values(FORMER_NAMES).filter((n) => all.has(n))).toEqual([]);
    for (const now of [
      'case_id',
      'file_id',
      'session_id',
      'turn_id',
      'job_id',
      'pages_done',
      'approx_size_mb',
      'day_first',
    ])
      expect(all.has(now), now).toBe(true);
  });
});
