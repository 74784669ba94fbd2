import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayHistory } from '../../src/core/agent/sessions';
import type { ChatMessage } from '../../src/shared/contract/chat';
import type { EngineEvents } from '../../src/shared/events';
import { useIngestedCase, scriptModel } from './helpers';

/** Chat memory through the real `chat.*` operations, with the scripted model as the only boundary. */
const c = useIngestedCase();

const FIND = { thought: 'Inventory.', action: 'findFiles', action_input: {} };
const GREP = {
  thought: 'Find the clause.',
  action: 'grepCase',
  action_input: { pattern: 'terminate this Agreement for convenience' },
};

describe('chat sessions', () => {
  it('follow-up – condensed into a standalone question; earlier sources re-open by their cite ids', async () => {
    const first = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice is needed to terminate the MSA for convenience?',
      model: scriptModel(c.root, {
        steps: [FIND, GREP, { final: "Sixty days' prior written notice [cite:{{cite}}]." }],
      }),
    });
    expect(first.grounded).toBe(true);
    const firstCite = first.citations[0]!.id;

    const turns: EngineEvents['agent.turn'][] = [];
    const off = c.engine.events.on('agent.turn', (e) => turns.push(e));
    const second = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      session_id: first.session_id,
      question: 'And for breach?',
      model: scriptModel(c.root, {
        condense: ['What notice is needed to terminate the MSA for material breach?'],
        steps: [
          { thought: 'Answering: {{question}}', action: 'findFiles', action_input: {} },
          { thought: 'Search.', action: 'grepCase', action_input: { pattern: 'material breach' } },
          // {{cite}} is the first cite id in the prompt: the earlier turn's source, listed for follow-ups.
          { final: "As before, termination needs sixty days' prior written notice [cite:{{cite}}]." },
        ],
      }),
    });
    off();
    expect(second.session_id).toBe(first.session_id);
    expect(second.standalone_question).toBe('What notice is needed to terminate the MSA for material breach?');
    expect(turns.find((t) => t.phase === 'condensed')).toMatchObject({
      turn_id: second.turn_id,
      standalone_question: second.standalone_question,
    });
    // The chat's memory shows the model the passages found for the first question first (step 1, no search); its own steps follow.
    expect(second.steps[0]!.action).toBe('earlier_passages');
    expect(second.steps[1]!.thought).toContain('What notice is needed to terminate the MSA for material breach?');
    expect(second.steps[1]!.thought).toContain('And for breach?');
    // The id issued in turn 1 is still valid in turn 2: the conversation's records persist with the session.
    expect(second.citations[0]).toMatchObject({ id: firstCite, status: 'verified' });

    const session = await c.engine.router.call('chat.session', { case_id: c.caseId, session_id: first.session_id });
    expect(session.messages_list.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const a1 = session.messages_list[1]!;
    expect(a1.refs?.[0]).toMatchObject({ cite: firstCite, file_name: 'contracts/msa.txt' });
    expect(a1.steps?.length).toBe(3);
  });

  it('replay – only clean user/assistant messages of finished turns, never traces', () => {
    const msgs: ChatMessage[] = [
      { id: '1', role: 'user', content: 'Q1', turn_id: 't1', created: '' },
      { id: '2', role: 'assistant', content: 'A1', turn_id: 't1', created: '', status: 'done', steps: [{} as never] },
      { id: '3', role: 'user', content: 'Q2', turn_id: 't2', created: '' },
      { id: '4', role: 'assistant', content: 'partial', turn_id: 't2', created: '', status: 'cancelled' },
      { id: '5', role: 'user', content: 'Q3', turn_id: 't3', created: '' },
      { id: '6', role: 'assistant', content: '', turn_id: 't3', created: '', status: 'failed' },
    ];
    expect(replayHistory(msgs)).toEqual([
      { role: 'user', content: 'Q1' },
      { role: 'assistant', content: 'A1' },
    ]);
  });

  it('events – a turn emits started, steps, tokens and done, each naming case, session and turn', async () => {
    const seen: string[] = [];
    const offs = (['agent.turn', 'agent.step', 'agent.token', 'agent.done'] as const).map((name) =>
      c.engine.events.on(name, (e) => {
        expect(e.case_id).toBe(c.caseId);
        seen.push(`${name}:${e.turn_id}`);
      }),
    );
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'Who is the provider?',
      model: scriptModel(c.root, { steps: [FIND, { final: 'Brightline.' }] }),
    });
    for (const off of offs) off();
    for (const name of ['agent.turn', 'agent.step', 'agent.token', 'agent.done'])
      expect(seen).toContain(`${name}:${r.turn_id}`);
    expect(seen.at(-1)).toBe(`agent.done:${r.turn_id}`);
  });

  it('list, rename, export as Markdown with citations, delete', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice ends the MSA?',
      model: scriptModel(c.root, {
        steps: [
          FIND,
          { ...GREP, action_input: { pattern: 'sixty \\(60\\) days' } },
          { final: 'Sixty days "upon sixty (60) days\' prior written notice" [cite:{{cite}}] [cite:bogus1].' },
        ],
      }),
    });
    const { sessions } = await c.engine.router.call('chat.sessions', { case_id: c.caseId });
    expect(sessions.map((s) => s.id)).toContain(r.session_id);
    expect(sessions.find((s) => s.id === r.session_id)).toMatchObject({
      title: 'What notice ends the MSA?',
      messages: 2,
    });

    const renamed = await c.engine.router.call('chat.rename', {
      case_id: c.caseId,
      session_id: r.session_id,
      title: 'Termination / notice ✉️',
    });
    expect(renamed.title).toBe('Termination / notice ✉️');

    const { markdown, filename } = await c.engine.router.call('chat.export', {
      case_id: c.caseId,
      session_id: r.session_id,
    });
    expect(filename).toMatch(/\.md$/);
    expect(markdown).toMatch(/^# Termination \/ notice ✉️/);
    expect(markdown).toContain('## Question\n\nWhat notice ends the MSA?');
    // Cite markers read as footnotes: where, the supporting words, the verdict.
    expect(markdown).not.toContain('[cite:');
    expect(markdown).toContain('prior written notice"[^1][^2].');
    expect(markdown).toMatch(/^\[\^1\]: .+, p\. 1: “[^”]*sixty \(60\) days[^”]*” — Quoted$/m);
    expect(markdown).toMatch(/^\[\^2\]: Unknown source \(id bogus1\) — Invented: no tool returned this citation id/m);
    expect(markdown).toMatch(/_Coverage: Looked at 4 files/);

    await c.engine.router.call('chat.delete', { case_id: c.caseId, session_id: r.session_id });
    const after = await c.engine.router.call('chat.sessions', { case_id: c.caseId });
    expect(after.sessions.map((s) => s.id)).not.toContain(r.session_id);
    await expect(
      c.engine.router.call('chat.session', { case_id: c.caseId, session_id: r.session_id }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('persistence – sessions live under <case>/chats as JSON; a leftover temp file is ignored', async () => {
    const dir = path.join(c.engine.cases.caseDir(c.caseId), 'chats');
    // Left by a writer that has ended (a crash): its process is gone.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(path.join(dir, `sx.json.tmp-${dead}-abcd`), '{"half written');
    const { sessions } = await c.engine.router.call('chat.sessions', { case_id: c.caseId });
    expect(sessions.length).toBeGreaterThan(0);
    expect(readdirSync(dir).some((n) => n.includes('.tmp-'))).toBe(false);
    for (const s of sessions)
      expect(JSON.parse(readFileSync(path.join(dir, `${s.id}.json`), 'utf8')).schemaVersion).toBe(1);
  });

  it('input – bad ids and max steps are refused with the field named', async () => {
    await expect(
      c.engine.router.call('chat.ask', { case_id: c.caseId, question: 'q', max_steps: 9 }),
    ).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringMatching(/max_steps/) });
    await expect(c.engine.router.call('chat.ask', { case_id: c.caseId, question: '  ' })).rejects.toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/question/),
    });
    await expect(c.engine.router.call('chat.session', { case_id: c.caseId, session_id: '../x' })).rejects.toMatchObject(
      { code: 'invalid_input' },
    );
  });

  it('no chat model installed – the answer is the best passages, quoted and verified, without a model call', async () => {
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice is needed to terminate for convenience?',
    });
    expect(r).toMatchObject({ status: 'done', answer_kind: 'extractive', model: 'none', grounded: true });
    expect(r.answer).toMatch(/^No chat model is installed, so here are the passages that match your question best:/);
    expect(r.citations.length).toBeGreaterThan(0);
    for (const cite of r.citations) expect(cite).toMatchObject({ support: 'quoted', verified: true });
    expect(r.citations[0]!.span!.text).toMatch(/sixty \(60\) days/i);
    // A model named but not installed is still an error that says how to install one, in each shell's words.
    await expect(
      c.engine.router.call('chat.ask', { case_id: c.caseId, question: 'q?', model: 'nope-7b' }),
    ).rejects.toMatchObject({
      code: 'not_found',
      message: expect.not.stringMatching(/casefile/),
      remedy: { app: expect.stringMatching(/Settings › Models/), cli: expect.stringMatching(/casefile models import/) },
    });
    await expect(
      c.engine.router.call('chat.ask', { case_id: c.caseId, question: 'q?', model: 'endpoint:llama3' }),
    ).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/CASEFILE_ENDPOINT_URL/) });
  });
});
