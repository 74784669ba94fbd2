/**
 * A deterministic language model that plays a JSON script, so end-to-end tests and model-less demos
 * get a predictable timeline; it implements the `ai` SDK interface, so the loop, tools and
 * verification run for real. Select it with model id `scripted:<path>` or CASEFILE_SCRIPTED_MODEL.
 * Script: {"steps": [{thought, action, action_input} | {"final": …} | "raw text"], "condense"?,
 * "chunkChars"?, "delayMs"?}; strings may use {{cite[:N]}}, {{quote[:N]}}, {{file_id}}, {{question}}.
 */
import { readFileSync } from 'node:fs';
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
} from '@ai-sdk/provider';
import { z } from 'zod';
import { CasefileError } from '../../shared/errors';

const Entry = z.union([z.string(), z.record(z.string(), z.unknown())]);
export const ModelScript = z.object({
  steps: z.array(Entry).default([]),
  condense: z.array(z.string()).default([]),
  chunkChars: z.number().int().min(1).max(10_000).default(8),
  delayMs: z.number().min(0).max(60_000).default(0),
});
export type ModelScript = z.infer<typeof ModelScript>;

/** Provider option a caller sets on condensation calls so a scripted model can tell them apart. */
export const PURPOSE_OPTION = 'casefile';

export function loadScript(file: string): ModelScript {
  // Neither message quotes the file: JSON.parse's own message does, and the file may be anything.
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CasefileError(
      'invalid_input',
      `The model script ${file} could not be read (${(err as NodeJS.ErrnoException).code ?? 'read error'}).`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CasefileError('invalid_input', `The model script ${file} is not valid JSON.`);
  }
  const parsed = ModelScript.safeParse(raw);
  if (!parsed.success)
    throw new CasefileError(
      'invalid_input',
      `The model script ${file} is not valid: ${parsed.error.issues[0]?.message}.`,
    );
  return parsed.data;
}

function promptText(options: LanguageModelV4CallOptions, withSystem = true): string {
  return options.prompt
    .filter((m) => withSystem || m.role !== 'system')
    .map((m) => {
      if (m.role === 'system') return m.content;
      return m.content
        .map((p) => (p.type === 'text' ? p.text : p.type === 'tool-result' ? JSON.stringify(p.output) : ''))
        .join('');
    })
    .join('\n');
}

function entryText(entry: string | Record<string, unknown>): string {
  if (typeof entry === 'string') return entry;
  if ('final' in entry)
    return JSON.stringify({
      thought: String(entry.thought ?? 'I can answer now.'),
      action: 'final_answer',
      action_input: { answer: String(entry.final) },
    });
  if ('action' in entry)
    return JSON.stringify({
      thought: String(entry.thought ?? ''),
      action: entry.action,
      action_input: entry.action_input ?? {},
    });
  return JSON.stringify(entry);
}

/** The scripted `ai` SDK model. One instance plays one turn (each call takes the next step). */
export class ScriptedLanguageModel implements LanguageModelV4 {
  readonly specificationVersion = 'v4';
  readonly provider = 'casefile.scripted';
  readonly modelId: string;
  readonly supportedUrls: Record<string, RegExp[]> = {};
  private step = 0;
  private condensed = 0;
  /** Every call's options, for tests. */
  readonly calls: LanguageModelV4CallOptions[] = [];

  constructor(
    readonly script: ModelScript,
    modelId = 'scripted',
  ) {
    this.modelId = modelId;
  }

  static fromFile(file: string): ScriptedLanguageModel {
    return new ScriptedLanguageModel(loadScript(file), `scripted:${file}`);
  }

  private nextText(options: LanguageModelV4CallOptions): string {
    const prompt = promptText(options, false);
    const purpose = (options.providerOptions?.[PURPOSE_OPTION] as { purpose?: string } | undefined)?.purpose;
    const cites = [...new Set([...prompt.matchAll(/\[cite:([A-Za-z0-9_-]+)\]/g)].map((m) => m[1]!))];
    const fileId = /\bid=([^\s,;)]+)/.exec(prompt)?.[1] ?? '';
    const question = /Question:\s*(.*)/.exec(prompt)?.[1] ?? '';
    const quoteOf = (id: string | undefined) => {
      const text = id ? new RegExp(`\\[cite:${id}\\][^\\n]*?: "([^\\n]*)"`).exec(prompt)?.[1] : undefined;
      return text
        ? text
            .replace(/…$/, '')
            .split(/\s+/)
            .filter(Boolean)
            .slice(0, 12)
            .join(' ')
            .replace(/[,;:.]+$/, '')
        : '';
    };
    const fill = (s: string) =>
      s
        .replace(
          /\{\{cite(?::(\d+))?\}\}/g,
          (_m, n: string | undefined) => cites[(n ? Number(n) : 1) - 1] ?? cites[0] ?? 'none',
        )
        .replace(/\{\{quote(?::(\d+))?\}\}/g, (_m, n: string | undefined) =>
          quoteOf(cites[(n ? Number(n) : 1) - 1] ?? cites[0]),
        )
        .replace(/\{\{file_id\}\}/g, fileId)
        .replace(/\{\{question\}\}/g, question);
    if (purpose === 'condense') {
      const q = this.script.condense[this.condensed++];
      const last = [...options.prompt].reverse().find((m) => m.role === 'user');
      const fallback =
        last && last.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
      return JSON.stringify({ question: fill(q ?? /Follow-up:\s*(.*)/.exec(fallback)?.[1] ?? fallback) });
    }
    const entry = this.script.steps[this.step++];
    if (entry === undefined) {
      return entryText({
        final: cites.length
          ? `The scripted model has no more steps; see [cite:${cites[0]}].`
          : 'The scripted model has no more steps.',
      });
    }
    // Fill templates inside the JSON text; escape values so they stay valid JSON.
    const text = entryText(entry);
    return text.replace(/\{\{[^}]+\}\}/g, (m) => JSON.stringify(fill(m)).slice(1, -1));
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    this.calls.push(options);
    const text = this.nextText(options);
    return {
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: usage(promptText(options).length, text.length),
      warnings: [],
    };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    this.calls.push(options);
    const text = this.nextText(options);
    const signal = options.abortSignal;
    const { chunkChars, delayMs } = this.script;
    const inputLen = promptText(options).length;
    const stream = new ReadableStream<LanguageModelV4StreamPart>({
      async start(controller) {
        const wait = (ms: number) =>
          new Promise<void>((resolve) => {
            if (ms <= 0) return resolve();
            const onAbort = () => {
              clearTimeout(t);
              resolve();
            };
            const t = setTimeout(() => {
              signal?.removeEventListener('abort', onAbort);
              resolve();
            }, ms);
            signal?.addEventListener('abort', onAbort, { once: true });
          });
        controller.enqueue({ type: 'stream-start', warnings: [] });
        controller.enqueue({ type: 'text-start', id: 't0' });
        let sent = 0;
        for (let i = 0; i < text.length; i += chunkChars) {
          if (signal?.aborted) {
            controller.enqueue({ type: 'error', error: signal.reason ?? new DOMException('Aborted', 'AbortError') });
            controller.close();
            return;
          }
          controller.enqueue({ type: 'text-delta', id: 't0', delta: text.slice(i, i + chunkChars) });
          sent++;
          await wait(delayMs);
        }
        controller.enqueue({ type: 'text-end', id: 't0' });
        controller.enqueue({
          type: 'finish',
          usage: usage(Math.ceil(inputLen / 4), sent),
          finishReason: { unified: 'stop', raw: 'stop' },
        });
        controller.close();
      },
    });
    return { stream };
  }
}

function usage(input: number, output: number): LanguageModelV4GenerateResult['usage'] {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: output, text: output, reasoning: undefined },
  };
}
