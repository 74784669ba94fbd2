/**
 * The engine's structure as rules (see src/core/README.md):
 *   - no import cycles anywhere in src/ (static, type, dynamic and require imports all count);
 *   - inside src/core, layers import only downwards; a layer is a folder, or one of the app's
 *     top-level files:
 *       foundation (util/, router/, bus.ts, version.ts)
 *       ← domain/ (the shared records) ← config.ts ← ocr/ ← cases/ ← firm/ ← audit/ ← text/ ← documents/ ← reader/
 *       ← features in this order: models ← retrieval ← ingest ← watch ← citations ← tools ← agent ← matter
 *       ← ports.ts ← the app (engine.ts, the composition root, and open-cases.ts);
 *     ports.ts, the types the app hands the features, holds type imports only, and any feature may use it;
 *   - domain/, cases/, text/, documents/, reader/ and ingest/ each have one public entry, index.ts: another
 *     folder imports it, never their other files (a dynamic import(), the app loading a
 *     feature lazily, may name the module it loads);
 *   - only the shells (cli, server, main) import the app; no feature keeps state keyed by the engine;
 *   - the embedding worker's bundle holds no model catalog, downloader or GGUF reader;
 *   - no function in src/ (the engine, the shells, the renderer, shared; a component's body counts) is longer
 *     than 80 lines unless its comment says why ("Long on purpose");
 *   - settings are read from the environment in config.ts only.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, importsOf, reachable, resolveSpec, SRC, sourceFiles } from '../helpers/imports';

const CORE = path.join(SRC, 'core');

/** The source reads a setting from the environment: a property, an index, or a destructuring of process.env. */
function readsEnv(source: string): boolean {
  const text = source.replace(/process\.env\.LANCEDB_LOG \?\?=/, '');
  return /process\.env\.[A-Z]|\benv\.(CASEFILE|HF)_[A-Z_]+|env\[['"](CASEFILE|HF)_|\{[^{}]*\}\s*=\s*process\.env\b/.test(
    text,
  );
}
const rel = (f: string) => path.relative(CORE, f).split(path.sep).join('/');

/** Layers of src/core, lowest first: folders, and the app's top-level files; a file belongs to the first that matches. */
const LAYERS: [string, RegExp][] = [
  ['foundation', /^(util|router)\/|^(bus|version)\.ts$/],
  ['domain', /^domain\//],
  ['config', /^config\.ts$/],
  ['ocr', /^ocr\//],
  ['cases', /^cases\//],
  ['firm', /^firm\//],
  ['audit', /^audit\//],
  ['text', /^text\//],
  ['documents', /^documents\//],
  ['reader', /^reader\//],
  ['models', /^models\//],
  ['retrieval', /^retrieval\//],
  ['ingest', /^ingest\//],
  ['watch', /^watch\//],
  ['citations', /^citations\//],
  ['tools', /^tools\//],
  ['agent', /^agent\//],
  ['matter', /^matter\//],
  ['ports', /^ports\.ts$/],
  ['app', /^(engine|open-cases)\.ts$/],
];

/** Folders whose files others reach through their index.ts alone. */
const ENTRIES = ['domain', 'cases', 'text', 'documents', 'reader', 'ingest'];

/** The specifiers a file imports statically: imports, type imports and re-exports, not import(). */
function staticImportsOf(code: string): string[] {
  return importsOf(code.replace(/\bimport\(\s*['"][^'"]+['"]\s*\)/g, ''));
}

function layerOf(file: string): number {
  const r = rel(file);
  const i = LAYERS.findIndex(([, re]) => re.test(r));
  if (i < 0) throw new Error(`src/core/${r} is in no layer: add it to LAYERS`);
  return i;
}

const graph = importGraph(sourceFiles(SRC));

describe('core structure', () => {
  it('no import cycles in src/ (static, type and dynamic imports)', () => {
    expect(cycles(graph).map((c) => c.map((f) => path.relative(SRC, f)))).toEqual([]);
  });

  it('the cycle finder finds a cycle, and one through a dynamic import', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(cycles(g)).toEqual([['a', 'b', 'c']]);
    expect(importsOf(`const m = await import('./engine');`)).toEqual(['./engine']);
  });

  it('inside src/core, every import goes to the same layer or a lower one', () => {
    const up: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith(CORE + path.sep)) continue;
      for (const t of targets) {
        if (!t.startsWith(CORE + path.sep)) continue;
        // ports.ts is types the app hands down: any feature may name them.
        if (rel(t) === 'ports.ts' && LAYERS[layerOf(file)]![0] !== 'foundation') continue;
        if (layerOf(t) > layerOf(file))
          up.push(`${rel(file)} (${LAYERS[layerOf(file)]![0]}) → ${rel(t)} (${LAYERS[layerOf(t)]![0]})`);
      }
    }
    expect(up).toEqual([]);
  });

  it('domain/, cases/, text/, documents/, reader/ and ingest/ are entered through their index.ts alone', () => {
    const inside: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = rel(file).split('/')[0];
      for (const t of staticImportsOf(readFileSync(file, 'utf8')).map((s) => resolveSpec(file, s))) {
        if (!t?.startsWith(CORE + path.sep)) continue;
        const [folder, ...rest] = rel(t).split('/');
        if (!ENTRIES.includes(folder!) || folder === from || rest.join('/') === 'index.ts') continue;
        inside.push(`${path.relative(SRC, file)} → core/${rel(t)}`);
      }
    }
    expect(inside).toEqual([]);
    expect(staticImportsOf(`import { a } from './x';\nconst m = await import('./y');`)).toEqual(['./x']);
  });

  it('ports.ts holds types only', () => {
    const code = readFileSync(path.join(CORE, 'ports.ts'), 'utf8');
    const imports = [...code.matchAll(/^import\s+(type\s+)?/gm)];
    expect(imports.length).toBeGreaterThan(0);
    expect(imports.filter((m) => !m[1])).toEqual([]);
  });

  it('only the shells import the app (engine.ts, open-cases.ts); no feature keeps state keyed by the engine', () => {
    const app = new Set(['engine.ts', 'open-cases.ts'].map((f) => path.join(CORE, f)));
    const importers: string[] = [];
    for (const [file, targets] of graph) {
      if (app.has(file)) continue;
      if (targets.some((t) => app.has(t)) && file.startsWith(CORE + path.sep)) importers.push(rel(file));
    }
    expect(importers).toEqual([]);
    const keyed = sourceFiles(CORE)
      .filter((f) => /WeakMap<\s*Engine\b/.test(readFileSync(f, 'utf8')))
      .map(rel);
    expect(keyed).toEqual([]);
  });

  it("the embedding worker's bundle holds no model catalog, downloader or GGUF reader", () => {
    const bundle = [...reachable(graph, path.join(CORE, 'retrieval', 'embed-worker.ts'))].map(rel);
    expect(bundle).toContain('retrieval/embedder.ts');
    expect(
      bundle.filter(
        (f) => /^models\/(registry|download|gguf|handlers)\.ts$/.test(f) || /^(engine|open-cases)\.ts$/.test(f),
      ),
    ).toEqual([]);
    // And the embedder (transformers.js, onnxruntime) is the worker's alone: the engine's thread never imports it.
    const embedder = path.join(CORE, 'retrieval', 'embedder.ts');
    const importers = [...graph]
      .filter(([file, targets]) => file.startsWith(SRC) && targets.includes(embedder))
      .map(([file]) => rel(file));
    expect(importers).toEqual(['retrieval/embed-worker.ts']);
  });

  it('no function in src/ over 80 lines unless its comment says why', () => {
    const long: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        const fn =
          ts.isFunctionDeclaration(node) ||
          ts.isMethodDeclaration(node) ||
          ts.isArrowFunction(node) ||
          ts.isFunctionExpression(node) ||
          ts.isConstructorDeclaration(node);
        if (fn && (node as ts.FunctionLikeDeclaration).body) {
          const lines =
            src.getLineAndCharacterOfPosition(node.getEnd()).line -
            src.getLineAndCharacterOfPosition(node.getStart()).line +
            1;
          const comment =
            ts
              .getLeadingCommentRanges(src.text, node.getFullStart())
              ?.map((r) => src.text.slice(r.pos, r.end))
              .join('\n') ?? '';
          if (lines > 80 && !/Long on purpose/.test(comment))
            long.push(
              `${path.relative(SRC, file).split(path.sep).join('/')}:${src.getLineAndCharacterOfPosition(node.getStart()).line + 1} (${lines} lines)`,
            );
        }
        ts.forEachChild(node, visit);
      };
      visit(src);
    }
    expect(long).toEqual([]);
  });

  it('settings are read from the environment in config.ts only', () => {
    const readers = sourceFiles(CORE)
      .filter((f) => rel(f) !== 'config.ts')
      .filter((f) => readsEnv(readFileSync(f, 'utf8')))
      .map(rel);
    expect(readers).toEqual([]);
  });

  it('the environment rule sees every way of reading a setting', () => {
    for (const read of [
      'process.env.CASEFILE_HOME',
      'env.CASEFILE_HOME',
      "env['CASEFILE_HOME']",
      'const { CASEFILE_HOME } = process.env;',
      'const {\n  HF_HOME: home,\n} = process.env',
    ]) {
      expect(readsEnv(read), read).toBe(true);
    }
    // Setting LanceDB's log level for its own process is not reading a setting.
    expect(readsEnv('process.env.LANCEDB_LOG ??= "error"')).toBe(false);
  });
});
