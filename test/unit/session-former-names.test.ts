import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ChatStore, replayHistory, SESSION_SCHEMA_VERSION, toSession } from '../../src/core/agent/sessions';
import { tempHome } from '../helpers/home';

describe('a chat session saved before the wire names were snake_case', () => {
  it('reads its messages’ `turnId` as `turn_id`', async () => {
    const caseDir = tempHome('casefile-session-');
    mkdirSync(path.join(caseDir, 'chats'));
    const saved = {
      schemaVersion: SESSION_SCHEMA_VERSION,
      id: 's_old',
      caseId: 'c1',
      title: 'Notice',
      created: '2026-01-01T00:00:00.000Z',
      updated: '2026-01-01T00:00:00.000Z',
      messages: [
        { id: 'm1', role: 'user', content: 'What notice?', turnId: 't1', created: '2026-01-01T00:00:00.000Z' },
        {
          id: 'm2',
          role: 'assistant',
          content: 'Sixty days.',
          turnId: 't1',
          created: '2026-01-01T00:00:01.000Z',
          status: 'done',
        },
      ],
      ledger: [],
    };
    writeFileSync(path.join(caseDir, 'chats', 's_old.json'), JSON.stringify(saved));
    const session = await new ChatStore('c1', caseDir).read('s_old');
    expect(session.messages.map((m) => m.turn_id)).toEqual(['t1', 't1']);
    expect(session.messages[0]).not.toHaveProperty('turnId');
    expect(toSession(session)).toMatchObject({
      id: 's_old',
      case_id: 'c1',
      messages_list: [{ turn_id: 't1' }, { turn_id: 't1' }],
    });
    // The follow-up's history pairs the question with its answer by the turn.
    expect(replayHistory(session.messages)).toEqual([
      { role: 'user', content: 'What notice?' },
      { role: 'assistant', content: 'Sixty days.' },
    ]);
  });
});
