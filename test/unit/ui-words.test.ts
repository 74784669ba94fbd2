/**
 * The app names its own buttons and menus; `casefile …` commands belong to the CLI. Every string the
 * renderer shows, and every string the engine or the shared contract may send it (messages, reasons,
 * notes), is scanned for a command: only a remedy's `cli` wording and the engine's own log lines
 * (console.*) may name one. The CLI adds its commands in its own layer (src/cli).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { SRC, sourceFiles } from '../helpers/imports';

/** "casefile models import", "`casefile unlock`": the program's name followed by a subcommand. */
const COMMAND = /\bcasefile (?:[a-z]+)\b/;

/** The node is inside a remedy's CLI wording (`cli: '…'`) or an argument of console.*. */
function cliOnly(node: ts.Node): boolean {
  for (let n: ts.Node | undefined = node.parent; n; n = n.parent) {
    if (ts.isPropertyAssignment(n) && n.name.getText() === 'cli') return true;
    if (ts.isCallExpression(n) && /^console\./.test(n.expression.getText())) return true;
  }
  return false;
}

/** "file:line: text" for each string literal or JSX text of `code` that names a casefile command. */
function commandMentions(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const text =
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node) ||
      ts.isJsxText(node)
        ? node.text
        : null;
    if (text !== null && COMMAND.test(text) && !cliOnly(node)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      found.push(`${path.relative(SRC, file)}:${line}: ${text.trim()}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const SHOWN_BY_THE_APP = ['renderer', 'core', 'shared'].flatMap((d) => sourceFiles(path.join(SRC, d)));

describe('words the app shows', () => {
  it('name no casefile command (the CLI adds its own)', () => {
    expect(SHOWN_BY_THE_APP.length).toBeGreaterThan(100);
    const found = SHOWN_BY_THE_APP.flatMap((f) => commandMentions(f, readFileSync(f, 'utf8')));
    expect(found).toEqual([]);
  });

  it('the scan sees a command in a message, a template and JSX, and lets the CLI wording be', () => {
    const code = [
      "throw new Error('No model. Import one with: casefile models import <folder>');",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the source of a template literal, as text
      'const m = `Unlock ${name} (casefile unlock ${id})`;',
      'const el = <p>Run casefile serve first</p>;',
      "CasefileError.withRemedy('failed', 'Locked.', { app: 'Enter its password.', cli: 'casefile unlock <case>' });",
      'console.error(`casefile: catching up failed (casefile resume)`);',
      "const ipc = 'casefile:invoke'; const key = 'casefile.settings.v1';",
    ].join('\n');
    expect(commandMentions(path.join(SRC, 'x.tsx'), code).map((m) => m.replace(/^.*?:(\d+):.*$/, '$1'))).toEqual([
      '1',
      '2',
      '3',
    ]);
  });
});
