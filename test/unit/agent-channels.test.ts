import type { ModelMessage } from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { refusesTools, stepChannel, type ModelReply } from '../../src/core/agent/channels';
import { Conversation } from '../../src/core/agent/conversation';
import { FINAL } from '../../src/core/agent/prompt';
import { defineTool, type AgentTool } from '../../src/core/agent/types';
import { textReplyModel } from '../helpers/mock-model';

/** The step channels (json / text / tools) and the conversation's repair retry. */
const TOOLS: AgentTool[] = [
  defineTool({
    name: 'retrieve',
    description: 'Search.',
    inputSchema: z.object({ query: z.string() }),
    async run() {
      return { text: '', count: 0, citations: [] };
    },
  }),
];
const reply = (text: string, toolCalls: ModelReply['toolCalls'] = []): ModelReply => ({
  text,
  toolCalls,
  inputTokens: 0,
  outputTokens: 0,
  ms: 0,
});

describe('step channels', () => {
  it('json – a reply cut at the token limit keeps the part of the answer that was written', () => {
    const ch = stepChannel('json', TOOLS);
    const cut =
      '{"thought": "Answering.", "action": "final_answer", "action_input": {"answer": "Sixty days of written no';
    expect(() => ch.parse(reply(cut))).toThrow(/not a JSON object|not valid JSON/);
    expect(ch.salvage(cut)).toEqual({
      step: { thought: 'Answering.', action: FINAL, input: { answer: 'Sixty days of written no' } },
      policy: 'the reply was cut off; the part of the answer that was written is kept',
    });
    expect(ch.salvage('  just prose  ').step.input).toEqual({ answer: 'just prose' });
    expect(ch.salvage('just prose').policy).toMatch(/could not be parsed after one repair/);
  });

  it('json – streams the thought, then the answer, each piece once', () => {
    const tokens: string[] = [];
    const stream = stepChannel('json', TOOLS).streamer((channel, text) => tokens.push(`${channel}:${text}`));
    let text = '';
    for (const piece of [
      '{"thought": "Fi',
      'nd it.", "action": "final_answer", "action_input": {"answer": "Six',
      'ty days."}}',
    ])
      stream(piece, (text += piece));
    expect(tokens).toEqual(['thought:Fi', 'thought:nd it.', 'answer:Six', 'answer:ty days.']);
  });

  it('text – stops before the model writes its own observation; steps go back as text', () => {
    const ch = stepChannel('text', TOOLS);
    expect(ch.callOptions(TOOLS, false)).toEqual({ stopSequences: ['\nObservation:', 'Observation:'] });
    const messages: ModelMessage[] = [];
    ch.record(messages, { thought: 'look', action: 'retrieve', input: { query: 'q' } }, '2 passages.', 1);
    expect(messages).toEqual([
      { role: 'assistant', content: 'Thought: look\nAction: retrieve\nAction Input: {"query":"q"}' },
      { role: 'user', content: 'Observation: 2 passages.' },
    ]);
  });

  it("tools – the model's call id is answered by the tool result; an answer sent back goes as plain messages", () => {
    const ch = stepChannel('tools', TOOLS);
    expect(ch.callOptions(TOOLS, true)).toMatchObject({ toolChoice: 'none' });
    const step = ch.parse(reply('Looking.', [{ toolCallId: 'call_abc', toolName: 'retrieve', input: { query: 'q' } }]));
    expect(step).toEqual({ thought: 'Looking.', action: 'retrieve', input: { query: 'q' } });
    const messages: ModelMessage[] = [];
    ch.record(messages, step, '1 passage.', 2);
    expect(JSON.stringify(messages)).toMatch(/"toolCallId":"call_abc".*"toolCallId":"call_abc"/);
    // A step the policy made (no call of the model's): a fresh id.
    ch.record(messages, { thought: '', action: 'findFiles', input: {} }, '4 files.', 3);
    expect(JSON.stringify(messages.slice(2))).toMatch(/"toolCallId":"call_4"/);
    ch.record(messages, { thought: '', action: FINAL, input: { answer: 'Once.' } }, 'Search every file first.', 4);
    expect(messages.slice(4)).toEqual([
      { role: 'assistant', content: 'Once.' },
      { role: 'user', content: 'Search every file first.' },
    ]);
    expect(() => ch.parse(reply('  '))).toThrow('the reply was empty');
  });

  it('refusesTools – an endpoint that says it cannot call tools, not any failure', () => {
    expect(refusesTools({ statusCode: 400, message: 'bad request' })).toBe(true);
    expect(refusesTools({ message: 'this model does not support tools' })).toBe(true);
    expect(refusesTools({ statusCode: 429, message: 'rate limited' })).toBe(false);
    expect(refusesTools(new Error('socket hang up'))).toBe(false);
  });
});

describe('Conversation', () => {
  const conversation = (model: MockLanguageModelV4) =>
    new Conversation({
      model,
      format: 'text',
      tools: TOOLS,
      systemPrompt: (f) => `system (${f})`,
      question: 'What notice?',
      bounds: {},
      signal: new AbortController().signal,
    });

  it('a reply that does not parse is asked again once, with the reason; both calls count', async () => {
    const model = textReplyModel([
      'I think I will search.',
      'Thought: search\nAction: retrieve\nAction Input: {"query": "notice"}',
    ]);
    const c = conversation(model);
    const next = await c.next(1, false, TOOLS, true);
    expect(next).toMatchObject({
      step: { thought: 'search', action: 'retrieve', input: { query: 'notice' } },
      repaired: true,
    });
    expect(next.reply).toMatchObject({ inputTokens: 20, outputTokens: 10 });
    expect(c.tokensIn).toBe(20);
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toMatch(
      /I think I will search\..*could not be read: the reply has neither/,
    );
  });

  it('a reply that still does not parse is read as the answer', async () => {
    const c = conversation(textReplyModel(['no format', 'still no format']));
    const next = await c.next(1, false, TOOLS, true);
    expect(next).toMatchObject({
      step: { action: FINAL, input: { answer: 'still no format' } },
      repaired: true,
      policy: expect.stringMatching(/could not be parsed/),
    });
  });

  it('the question and earlier messages open the conversation; recorded steps follow', async () => {
    const model = textReplyModel(['Thought: ok\nFinal Answer: Sixty days.']);
    const c = new Conversation({
      model,
      format: 'text',
      tools: TOOLS,
      systemPrompt: () => 'sys',
      question: 'And the fees?',
      history: [
        { role: 'user', content: 'What notice?' },
        { role: 'assistant', content: 'Sixty days.' },
      ],
      priorRefs: 'abc123: msa.txt p.1',
      bounds: {},
      signal: new AbortController().signal,
    });
    c.record({ thought: 'look', action: 'retrieve', input: { query: 'fees' } }, 'Fees: 45 days.', 1);
    await c.next(2, false, TOOLS, false);
    const prompt = JSON.stringify(model.doStreamCalls[0]!.prompt);
    expect(prompt).toMatch(
      /What notice\?.*Sixty days\..*Question: And the fees\?.*abc123: msa\.txt p\.1.*Observation: Fees: 45 days\./,
    );
  });
});
