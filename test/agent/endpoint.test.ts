import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestedCase, type IngestedCase } from './helpers';

/**
 * The OpenAI-compatible endpoint backend against a local HTTP server that speaks the chat
 * completions protocol (the true boundary: a firm's llama.cpp server / vLLM / Ollama). The server
 * plays scripted replies; everything on our side — the SDK provider, the loop, the tools — is real.
 */
interface Reply {
  content?: string;
  toolCall?: { name: string; args: Record<string, unknown> };
}

let server: Server;
let baseURL: string;
let replies: Reply[] = [];
let refuseTools = false;
const requests: Array<Record<string, unknown>> = [];

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'r1', object: 'chat.completion.chunk', created: 1, model: 'firm-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

async function body(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const d of req) raw += String(d);
  return JSON.parse(raw) as Record<string, unknown>;
}

let c: IngestedCase;
beforeAll(async () => {
  server = createServer(async (req, res) => {
    const b = await body(req);
    requests.push(b);
    if (refuseTools && b.tools) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: 'this model does not support tools', type: 'invalid_request_error' } }),
      );
      return;
    }
    const r = replies.shift() ?? { content: 'No more replies.' };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }));
    if (r.content) for (const piece of r.content.match(/.{1,6}/gs) ?? []) res.write(chunk({ content: piece }));
    if (r.toolCall) {
      res.write(
        chunk({
          tool_calls: [
            {
              index: 0,
              id: `call_${requests.length}`,
              type: 'function',
              function: { name: r.toolCall.name, arguments: JSON.stringify(r.toolCall.args) },
            },
          ],
        }),
      );
    }
    res.write(chunk({}, r.toolCall ? 'tool_calls' : 'stop'));
    res.write('data: [DONE]\n\n');
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  c = await ingestedCase({ agent: { endpoint: { baseURL, apiKey: 'k-123' } } });
});
afterAll(async () => {
  await c?.engine.close();
  if (c) rmSync(c.root, { recursive: true, force: true });
  await new Promise((resolve) => server.close(resolve));
});

describe('OpenAI-compatible endpoint', () => {
  it('native tool calling – tools are offered, calls run, results go back as tool messages', async () => {
    requests.length = 0;
    refuseTools = false;
    replies = [
      { toolCall: { name: 'findFiles', args: {} } },
      { content: 'Looking for the clause.', toolCall: { name: 'grepCase', args: { pattern: 'sixty \\(60\\) days' } } },
      { content: 'PLACEHOLDER' },
    ];
    // The answer must cite an id the tools issue at run time: fill it in when the third request arrives.
    const origShift = replies.shift.bind(replies);
    replies.shift = () => {
      const next = origShift();
      if (next?.content === 'PLACEHOLDER') {
        const last = JSON.stringify(requests.at(-1));
        const cite = [...last.matchAll(/\[cite:(\w+)\]/g)].at(-1)?.[1];
        return { content: `Sixty days: "upon sixty (60) days' prior written notice" [cite:${cite}].` };
      }
      return next;
    };
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'What notice ends the MSA?',
      model: 'endpoint:firm-model',
    });
    expect(r.model).toBe('endpoint:firm-model');
    expect(r.steps.map((s) => s.action)).toEqual(['findFiles', 'grepCase', 'final_answer']);
    expect(r.steps[1]!.thought).toBe('Looking for the clause.');
    expect(r.grounded).toBe(true);
    expect(r.citations[0]).toMatchObject({ status: 'verified', file_name: 'contracts/msa.txt' });
    const first = requests[0]!;
    expect(first.model).toBe('firm-model');
    expect((first.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain('grepCase');
    const third = requests[2]!.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>;
    expect(third.filter((m) => m.role === 'tool')).toHaveLength(2);
    expect(JSON.stringify(third)).toMatch(/sixty \(60\) days/);
  });

  it('native tool calling – an early answer to an "every" question is sent back as a plain message, then grepCase runs', async () => {
    requests.length = 0;
    refuseTools = false;
    replies = [
      { toolCall: { name: 'findFiles', args: {} } },
      { content: 'He saw the doctor once.' },
      { toolCall: { name: 'grepCase', args: { pattern: 'Dr\\. Helen Park' } } },
      { content: 'Four visits with Dr. Park.' },
    ];
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'List every visit with Dr. Park.',
      model: 'endpoint:firm-model',
    });
    // The answer cites nothing, so the passages found are shown instead (find_passages).
    expect(r.steps.map((s) => s.action)).toEqual([
      'findFiles',
      'final_answer',
      'grepCase',
      'final_answer',
      'find_passages',
    ]);
    expect(r.steps[1]!.policy).toMatch(/exhaustive/);
    expect(r).toMatchObject({ answer_kind: 'extractive', fallback: { model_answer: 'Four visits with Dr. Park.' } });
    expect(r.coverage.whole_case_searched).toBe(true);
    const history = JSON.stringify(requests[2]!.messages);
    expect(history).not.toMatch(/"name":"final_answer"/);
    expect(history).toMatch(/every occurrence/);
  });

  it('no tool support – the turn falls back to text ReAct', async () => {
    requests.length = 0;
    refuseTools = true;
    replies = [
      { content: 'Thought: list files\nAction: findFiles\nAction Input: {}' },
      { content: 'Thought: search\nAction: grepCase\nAction Input: {"pattern": "signed"}' },
      { content: 'Thought: enough\nFinal Answer: The documents do not say.' },
    ];
    const r = await c.engine.router.call('chat.ask', {
      case_id: c.caseId,
      question: 'Who signed the MSA?',
      model: 'endpoint:firm-model',
    });
    expect(r.status).toBe('done');
    expect(r.steps.map((s) => s.action)).toEqual(['findFiles', 'grepCase', 'final_answer', 'find_passages']);
    // An answer with nothing cited is not shown as the answer; the closest passages are, and the model's words are kept for the record.
    expect(r).toMatchObject({ answer_kind: 'extractive', fallback: { model_answer: 'The documents do not say.' } });
    expect(requests[0]!.tools).toBeDefined();
    expect(requests[1]!.tools).toBeUndefined();
    expect(requests[1]!.stop).toEqual(['\nObservation:', 'Observation:']);
  });
});
