import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { jsonSchema, Output, streamText } from 'ai';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { LlamaHost } from '../../src/core/agent/llama-host';
import { stories260kGguf, tinyRandomGguf } from '../helpers/models';

/**
 * The local model in its own process (llama-worker.ts), reached through the engine's proxy model
 * (LlamaHost): the same results as in-process generation — stream parts, JSON under a grammar,
 * stop sequences, cancel — while the engine's process does no model work and the model's threads
 * run below the app. Real node-llama-cpp with tiny GGUFs: mechanics, never content.
 */

/** The nice value of every thread of process `pid` (Linux: field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): number[] {
  const out: number[] = [];
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces, inside parentheses): state is field 3.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.push(Number(fields[19 - 3]));
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}

/** Whether llama.cpp's libraries are mapped into process `pid`. */
function hasLlamaLibrary(pid: number | 'self'): boolean {
  return /libllama|libggml/.test(readFileSync(`/proc/${pid}/maps`, 'utf8'));
}

describe('the local model in its own process', () => {
  const host = new LlamaHost({ threads: 1, contextSize: 1024, idleUnloadMs: 0 });
  afterAll(async () => {
    await host.close();
  });

  it('streams tokens, honours max tokens and reports usage; the model stays loaded in one process between calls', async () => {
    const model = host.languageModel(tinyRandomGguf);
    const deltas: string[] = [];
    const result = streamText({ model, prompt: 'Hello', maxOutputTokens: 12, maxRetries: 0 });
    for await (const d of result.textStream) deltas.push(d);
    expect(deltas.length).toBeGreaterThan(1);
    expect(await result.finishReason).toBe('length');
    const usage = await result.usage;
    expect(usage.outputTokens).toBe(12);
    expect(usage.inputTokens).toBeGreaterThan(0);
    // The process reports its counts and models when the call's stream has ended.
    await vi.waitFor(() => expect(host.usage.output).toBeGreaterThanOrEqual(12), { timeout: 30_000, interval: 20 });
    expect(host.isLoaded(tinyRandomGguf)).toBe(true);
    const pid = host.pid;
    expect(pid).toBeTypeOf('number');
    expect(pid).not.toBe(process.pid);
    await streamText({ model, prompt: 'Hi', maxOutputTokens: 4, maxRetries: 0 }).text;
    expect(host.pid).toBe(pid);
  });

  it('JSON-schema output – the grammar makes random weights produce valid JSON of the schema', async () => {
    const schema = {
      type: 'object',
      properties: { action: { enum: ['findFiles', 'final_answer'] }, note: { type: 'string', maxLength: 20 } },
      required: ['action', 'note'],
    };
    const result = streamText({
      model: host.languageModel(tinyRandomGguf),
      prompt: 'Pick an action.',
      maxOutputTokens: 120,
      maxRetries: 0,
      output: Output.object({ schema: jsonSchema(schema) }),
    });
    const value = JSON.parse(await result.text) as { action: string; note: string };
    expect(['findFiles', 'final_answer']).toContain(value.action);
    expect(value.note.length).toBeLessThanOrEqual(20);
  });

  it('stop sequences – generation ends at the first stop sequence', async () => {
    const result = streamText({
      model: host.languageModel(stories260kGguf),
      prompt: 'Once upon a time',
      maxOutputTokens: 200,
      maxRetries: 0,
      stopSequences: ['.'],
    });
    const text = await result.text;
    expect(await result.finishReason).toBe('stop');
    expect(text).not.toContain('.');
  });

  it('cancel – an aborted call stops at once, and the process is free for the next call', async () => {
    const controller = new AbortController();
    let chunks = 0;
    let failed: unknown;
    const result = streamText({
      model: host.languageModel(tinyRandomGguf),
      prompt: 'Go on',
      maxOutputTokens: 2000,
      maxRetries: 0,
      abortSignal: controller.signal,
      onError: ({ error }) => {
        failed = error;
      },
    });
    let pid: number | undefined;
    for await (const _ of result.textStream) {
      pid ??= host.pid;
      if (++chunks === 3) controller.abort();
    }
    expect(chunks).toBeLessThan(20);
    expect(failed ?? (await result.finishReason)).toBeDefined();
    // The 2000-token call was stopped in the process: the next one runs there at once, to its own end.
    const next = streamText({
      model: host.languageModel(tinyRandomGguf),
      prompt: 'a',
      maxOutputTokens: 5,
      maxRetries: 0,
    });
    await next.text;
    expect(await next.finishReason).toBe('length');
    expect(host.pid).toBe(pid);
  });

  it('a broken model file – the call fails with the reason and the remedy the process gave', async () => {
    const { mkdtempSync, writeFileSync } = await import('node:fs');
    const junk = `${mkdtempSync(`${os.tmpdir()}/casefile-llama-proc-`)}/broken.gguf`;
    writeFileSync(junk, 'GGUF but not really a model');
    const model = host.languageModel(junk);
    await expect(
      model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }] }),
    ).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/broken\.gguf could not be loaded/),
      remedy: { app: expect.stringMatching(/Settings › Models/) },
    });
  });

  it('a crashed model process – the running call fails with a clear reason, and the next call works in a new process', async () => {
    let failed: unknown;
    const result = streamText({
      model: host.languageModel(tinyRandomGguf),
      prompt: 'Go on',
      maxOutputTokens: 2000,
      maxRetries: 0,
      onError: ({ error }) => {
        failed = error;
      },
    });
    let crashed = 0;
    let chunks = 0;
    for await (const _ of result.textStream) {
      if (++chunks === 2) {
        crashed = host.pid!;
        process.kill(crashed, 'SIGKILL');
      }
    }
    expect(crashed).toBeGreaterThan(0);
    expect(failed).toMatchObject({
      code: 'failed',
      message: expect.stringMatching(/The local model stopped unexpectedly/),
      remedy: { app: expect.stringMatching(/Ask again/) },
    });
    const next = streamText({
      model: host.languageModel(tinyRandomGguf),
      prompt: 'a',
      maxOutputTokens: 5,
      maxRetries: 0,
    });
    await next.text;
    expect(await next.finishReason).toBe('length');
    expect(host.pid).not.toBe(crashed);
  });

  it.runIf(process.platform === 'linux')(
    'while the model writes, the engine process has no llama.cpp in it, and every thread of the model process runs at the lowest priority',
    async () => {
      const result = streamText({
        model: host.languageModel(tinyRandomGguf),
        prompt: 'Go on',
        maxOutputTokens: 300,
        maxRetries: 0,
      });
      let nice: number[] = [];
      for await (const _ of result.textStream) {
        if (!nice.length) nice = threadNiceValues(host.pid!);
      }
      expect(nice.length).toBeGreaterThan(1);
      expect(new Set(nice)).toEqual(new Set([os.constants.priority.PRIORITY_LOW]));
      expect(hasLlamaLibrary(host.pid!)).toBe(true);
      expect(hasLlamaLibrary('self')).toBe(false);
    },
  );
});
