/**
 * The architecture's layering, checked on every import of every source file:
 *   src/shared   pure TS: only itself and zod — no Node, no DOM libraries, no electron
 *   src/core     Node, never electron, never a shell
 *   src/renderer only src/shared, its own code, and browser packages
 *   src/preload  electron + src/shared only
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/home';
import { importsOf, SRC, sourceFiles } from '../helpers/imports';

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function layerOf(file: string): string {
  return path.relative(SRC, file).split(path.sep)[0]!;
}

interface Violation {
  file: string;
  spec: string;
  why: string;
}

function check(
  layer: string,
  rule: (spec: string, resolved: string | null, file: string) => string | null,
): Violation[] {
  const violations: Violation[] = [];
  for (const file of sourceFiles(path.join(SRC, layer))) {
    for (const spec of importsOf(readFileSync(file, 'utf8'))) {
      const resolved = spec.startsWith('.') ? path.resolve(path.dirname(file), spec) : null;
      const why = rule(spec, resolved, file);
      if (why) violations.push({ file: path.relative(repoRoot, file), spec, why });
    }
  }
  return violations;
}

const inside = (resolved: string, layer: string) =>
  resolved.startsWith(path.join(SRC, layer) + path.sep) || resolved === path.join(SRC, layer);

describe('layering', () => {
  it('importsOf – finds every kind of import', () => {
    const code = `import a from 'x';\nimport type { B } from "./y";\nexport * from '../z';\nconst c = await import('node:fs');\nrequire('electron');\nimport './side-effect';`;
    expect(importsOf(code).sort()).toEqual(['../z', './side-effect', './y', 'electron', 'node:fs', 'x'].sort());
  });

  it('src/shared – imports only itself and zod', () => {
    const v = check('shared', (spec, resolved) => {
      if (resolved) return inside(resolved, 'shared') ? null : 'leaves src/shared';
      return spec === 'zod'
        ? null
        : NODE_BUILTINS.has(spec)
          ? 'Node built-in in pure shared code'
          : 'package other than zod';
    });
    expect(v).toEqual([]);
  });

  it('src/core – never imports electron or a shell', () => {
    const v = check('core', (spec, resolved) => {
      if (spec === 'electron' || spec.startsWith('electron/') || spec.startsWith('@electron/'))
        return 'electron in core';
      if (resolved && !inside(resolved, 'core') && !inside(resolved, 'shared'))
        return `core imports ${layerOf(resolved + '.ts')}`;
      return null;
    });
    expect(v).toEqual([]);
  });

  it('src/renderer – only src/shared, its own code and browser packages', () => {
    const allowedPackages = /^(react|react-dom|react\/jsx-runtime|react-dom\/client|zustand|zustand\/.*|zod)$/;
    const v = check('renderer', (spec, resolved) => {
      if (resolved)
        return inside(resolved, 'renderer') || inside(resolved, 'shared')
          ? null
          : 'renderer reaches outside src/shared';
      if (NODE_BUILTINS.has(spec)) return 'Node built-in in the renderer';
      return allowedPackages.test(spec) ? null : 'package not allowed in the renderer';
    });
    expect(v).toEqual([]);
  });

  it('src/preload – electron and src/shared only', () => {
    const v = check('preload', (spec, resolved) => {
      if (resolved)
        return inside(resolved, 'preload') || inside(resolved, 'shared') ? null : 'preload reaches outside src/shared';
      return spec === 'electron' ? null : 'package other than electron in the preload';
    });
    expect(v).toEqual([]);
  });

  it('a violation is caught – the checker is not blind', () => {
    // Guard against a checker that passes vacuously: the core has files, and one importing electron would fail.
    expect(sourceFiles(path.join(SRC, 'core')).length).toBeGreaterThan(3);
    expect(importsOf(`import { app } from 'electron'`)).toEqual(['electron']);
  });
});
