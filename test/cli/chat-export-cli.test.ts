import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import JSZip from 'jszip';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCasefile } from '../helpers/cli';
import { tempHome } from '../helpers/home';

/**
 * `casefile chat <case> export` (child process): Markdown and Word, one turn. The session is
 * written where the app keeps it (`<case>/chats/<id>.json`), so no model or ingest is needed.
 */
let home: string;
let caseId: string;

const session = {
  schemaVersion: 1,
  id: 's_cli',
  title: 'Notice questions',
  created: '2026-11-05T14:00:00.000Z',
  updated: '2026-11-05T14:00:00.000Z',
  ledger: [],
  messages: [
    { id: 'm1', role: 'user', turnId: 't1', created: '2026-11-05T14:00:00.000Z', content: 'What notice ends the MSA?' },
    {
      id: 'm2',
      role: 'assistant',
      turnId: 't1',
      created: '2026-11-05T14:00:01.000Z',
      status: 'done',
      grounded: true,
      content: 'Sixty days’ prior written notice [cite:c1].',
      citations: [
        {
          id: 'c1',
          status: 'verified',
          verified: true,
          support: 'quoted',
          reason: 'quoted text found',
          file_name: 'contracts/msa.txt',
          pages: [2],
          span: { start: 0, end: 40, pages: [2], text: 'upon sixty (60) days’ prior written notice' },
          title: 'Master Services Agreement',
        },
      ],
    },
    { id: 'm3', role: 'user', turnId: 't2', created: '2026-11-05T14:01:00.000Z', content: 'And for breach?' },
    {
      id: 'm4',
      role: 'assistant',
      turnId: 't2',
      created: '2026-11-05T14:01:01.000Z',
      status: 'done',
      grounded: false,
      content: 'Thirty days to cure.',
      citations: [],
    },
  ],
};

beforeAll(async () => {
  home = tempHome();
  const created = await runCasefile(home, ['cases', 'create', 'Rivera v. Acme', '--json']);
  caseId = (JSON.parse(created.stdout) as { id: string }).id;
  const dir = path.join(home, 'cases', caseId, 'chats');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 's_cli.json'), JSON.stringify({ ...session, caseId }));
});

describe('casefile chat export (child process)', () => {
  it('--format docx --out – writes a Word file whose footnote holds the citation', async () => {
    const out = path.join(home, 'chat.docx');
    const r = await runCasefile(home, ['chat', 'Rivera v. Acme', 'export', 's_cli', '--format', 'docx', '--out', out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('');
    const zip = await JSZip.loadAsync(readFileSync(out));
    const footnotes = await zip.file('word/footnotes.xml')!.async('string');
    expect(footnotes).toContain('Master Services Agreement, p. 2');
    expect(footnotes).toContain('upon sixty (60) days’ prior written notice');
    const document = await zip.file('word/document.xml')!.async('string');
    expect(document).toContain('<w:footnoteReference w:id="1"/>');
    expect(document).not.toContain('[cite:');
  });

  it('--format docx without --out is a usage error; so is an unknown format', async () => {
    const r = await runCasefile(home, ['chat', caseId, 'export', 's_cli', '--format', 'docx']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/chat export --format docx writes a Word file: add --out FILE/);
    const pdf = await runCasefile(home, ['chat', caseId, 'export', 's_cli', '--format', 'pdf']);
    expect(pdf.code).toBe(2);
    expect(pdf.stderr).toMatch(/--format must be md or docx \(got "pdf"\)/);
  });

  it('Markdown to stdout with footnotes; --turn exports one turn; an unknown turn fails in plain words', async () => {
    const all = await runCasefile(home, ['chat', caseId, 'export', 's_cli']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain('Sixty days’ prior written notice[^1].');
    expect(all.stdout).toContain(
      '[^1]: Master Services Agreement, p. 2: “upon sixty (60) days’ prior written notice” — Quoted',
    );
    expect(all.stdout).toContain('And for breach?');

    const one = await runCasefile(home, [
      'chat',
      caseId,
      'export',
      's_cli',
      '--turn',
      't2',
      '--out',
      path.join(home, 't2.md'),
    ]);
    expect(one.code, one.stderr).toBe(0);
    const md = readFileSync(path.join(home, 't2.md'), 'utf8');
    expect(md).toMatch(/^# And for breach\?\n/);
    expect(md).not.toContain('What notice ends the MSA?');

    const missing = await runCasefile(home, ['chat', caseId, 'export', 's_cli', '--turn', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/No question nope in the chat session s_cli/);
  });
});
