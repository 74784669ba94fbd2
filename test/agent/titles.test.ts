/** A chat's title says what differs from the case's other chats; an export's file name is whole words. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatStore } from '../../src/core/agent/sessions';
import { chatTitle, cutAtWord, fileNameFrom } from '../../src/core/agent/titles';

const FIRST =
  'What is the governing law of the Water Now distributor agreement signed with Hydraspin in 2019, and which courts hear disputes?';
const LATER =
  'What is the governing law of the Water Now distributor agreement signed with Hydraspin in 2019, and may either party end it early?';
const SECOND = 'What is the governing law of the Water Now distributor agreement in the Texas addendum?';

describe('chat titles', () => {
  it('a short question is the title, whole; a long one is cut at a word', () => {
    expect(chatTitle('  When does the   lease end? ')).toBe('When does the lease end?');
    const t = chatTitle(FIRST);
    expect(t).toBe('What is the governing law of the Water Now distributor agreement signed with…');
    expect(t.length).toBeLessThanOrEqual(80);
  });

  it('two chats that would share a title get titles that differ, with the words where they differ', () => {
    const first = { title: chatTitle(FIRST), question: FIRST };
    // The later one's plain title is the first's: it keeps the start and shows the words that differ.
    expect(chatTitle(LATER)).toBe(first.title);
    const later = chatTitle(LATER, [first]);
    expect(later).toBe('What is the governing law of the Water Now … may either party end it early?');
    expect(later.length).toBeLessThanOrEqual(80);
    // Different enough already: the plain title.
    expect(chatTitle(SECOND, [first])).toBe(
      'What is the governing law of the Water Now distributor agreement in the Texas…',
    );
  });

  it('the same question asked again is numbered', () => {
    const q = 'When does the lease end?';
    expect(chatTitle(q, [{ title: q, question: q }])).toBe(`${q} (2)`);
    expect(
      chatTitle(q, [
        { title: q, question: q },
        { title: `${q} (2)`, question: q },
      ]),
    ).toBe(`${q} (3)`);
  });
});

describe('export file names', () => {
  it('whole words, safe characters, no "…", at most 80 characters', () => {
    expect(fileNameFrom('Termination / notice ✉️')).toBe('Termination notice');
    expect(fileNameFrom('What is the governing law of the Water Now distributor agre…')).toBe(
      'What is the governing law of the Water Now distributor agre',
    );
    const name = fileNameFrom(FIRST);
    expect(name).toBe('What is the governing law of the Water Now distributor agreement signed with');
    expect(name.length).toBeLessThanOrEqual(80);
    expect(fileNameFrom('“?!”')).toBe('');
  });

  it('cutAtWord keeps whole words and drops a trailing comma', () => {
    expect(cutAtWord('one two, three', 9)).toBe('one two');
    expect(cutAtWord('Supercalifragilistic', 5)).toBe('Super');
  });
});

describe('the list of chats', () => {
  const Q1 =
    'What is the governing law of the Water Now distributor agreement signed with Hydraspin in 2019, and which courts hear disputes?';
  const Q2 =
    'What is the governing law of the Water Now distributor agreement signed with Hydraspin in 2019, and may either party end it early?';

  /** A chat saved as it was before titles were told apart: its title its question's first 59 characters and "…". */
  function saved(dir: string, id: string, question: string, created: string) {
    const file = {
      schemaVersion: 1,
      id,
      caseId: 'c1',
      title: `${question.slice(0, 59)}…`,
      created,
      updated: created,
      messages: [{ id: `u-${id}`, role: 'user', content: question, turn_id: 't1', created }],
      ledger: [],
    };
    writeFileSync(path.join(dir, 'chats', `${id}.json`), JSON.stringify(file));
  }

  it('chats saved alike are listed told apart, the later one with the words that differ; a new chat differs too', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'casefile-titles-'));
    mkdirSync(path.join(dir, 'chats'));
    saved(dir, 's_one', Q1, '2026-11-20T10:00:00.000Z');
    saved(dir, 's_two', Q2, '2026-11-21T10:00:00.000Z');
    const store = new ChatStore('c1', dir);
    const listed = await store.list();
    expect(listed.map((s) => [s.id, s.title])).toEqual([
      ['s_two', 'What is the governing law of the Water Now … may either party end it early?'],
      ['s_one', 'What is the governing law of the Water Now distributor agre…'],
    ]);
    // A new chat on the later question: a title unlike those listed.
    const again = await store.create(Q2);
    expect(again.title).toBe(chatTitle(Q2));
    expect(new Set((await store.list()).map((s) => s.title)).size).toBe(3);
  });
});
