import type { LanguageModelV4 } from '@ai-sdk/provider';
import { jsonSchema, Output, streamText } from 'ai';
import type { HistoryMessage } from './loop';
import type { StepFormat } from './prompt';
import { PURPOSE_OPTION } from './scripted';

const SYSTEM =
  'Rewrite the follow-up question as one standalone question that can be understood without the conversation. Resolve pronouns and references ("it", "the second one", "that clause") from the conversation. Do not answer it.';

/**
 * Condense a follow-up into a standalone question using the conversation so far. Without
 * history the question is returned as is; an empty or unusable reply falls back to it too.
 */
export async function condenseQuestion(opts: {
  model: LanguageModelV4;
  format: StepFormat;
  history: HistoryMessage[];
  question: string;
  signal?: AbortSignal;
  maxOutputTokens?: number;
}): Promise<string> {
  if (!opts.history.length) return opts.question;
  const convo = opts.history
    .map((m) => `${m.role === 'user' ? 'User' : 'Assistant'}: ${m.content.replace(/\s+/g, ' ').slice(0, 600)}`)
    .join('\n');
  const prompt = `Conversation:\n${convo}\n\nFollow-up: ${opts.question}\n\n${opts.format === 'json' ? 'Reply with {"question": "<standalone question>"}.' : 'Standalone question:'}`;
  const schema = {
    type: 'object',
    properties: { question: { type: 'string', maxLength: 300 } },
    required: ['question'],
  };
  const result = streamText({
    model: opts.model,
    system: SYSTEM,
    messages: [{ role: 'user', content: prompt }],
    maxRetries: 0,
    onError: () => {},
    temperature: 0,
    maxOutputTokens: opts.maxOutputTokens ?? 128,
    ...(opts.signal ? { abortSignal: opts.signal } : {}),
    providerOptions: { [PURPOSE_OPTION]: { purpose: 'condense' } },
    ...(opts.format === 'json' ? { output: Output.object({ schema: jsonSchema(schema) }) } : { stopSequences: ['\n'] }),
  });
  let text = '';
  let failure: unknown;
  for await (const part of result.fullStream) {
    if (part.type === 'text-delta') text += part.text;
    else if (part.type === 'error') failure = part.error;
  }
  opts.signal?.throwIfAborted();
  if (failure) throw failure;
  let q = text.trim();
  if (opts.format === 'json') {
    try {
      const v = JSON.parse(q.slice(q.indexOf('{'), q.lastIndexOf('}') + 1)) as { question?: unknown };
      q = typeof v.question === 'string' ? v.question.trim() : '';
    } catch {
      q = '';
    }
  }
  return q.length >= 3 ? q : opts.question;
}
