/**
 * The conversation of one turn: the messages so far, the system prompt, and the model calls —
 * each step asked for through the turn's step channel, with one repair retry when a reply does
 * not parse, and a fall back to text ReAct when an endpoint refuses tool calling on the first call.
 */
import type { LanguageModelV4 } from '@ai-sdk/provider';
import { streamText, type ModelMessage, type TextStreamPart, type ToolSet } from 'ai';
import {
  refusesTools,
  stepChannel,
  type AgentTokenChannel,
  type ModelReply,
  type StepBounds,
  type StepChannel,
  type Streamer,
} from './channels';
import { isLooping } from './degenerate';
import { repairMessage, type ParsedStep, type StepFormat } from './prompt';
import { CancelledError, type AgentTool } from './types';

export interface ConversationOptions {
  model: LanguageModelV4;
  format: StepFormat;
  tools: AgentTool[];
  /** The system prompt for a format (it changes when the turn falls back to text). */
  systemPrompt: (format: StepFormat) => string;
  question: string;
  history?: { role: 'user' | 'assistant'; content: string }[];
  priorRefs?: string;
  /** The passages found earlier that the chat's memory reuses for this follow-up, as the model is shown them. */
  earlierPassages?: string;
  bounds: StepBounds;
  signal: AbortSignal;
  temperature?: number;
  maxOutputTokens?: number;
  onToken?: (step: number, channel: AgentTokenChannel, text: string) => void;
}

/** A step the model asked for. */
export interface ModelStep {
  step: ParsedStep;
  /** Set when the reply did not parse even after the repair and was read as the answer. */
  policy?: string;
  /** Both calls together when a repair was asked for. */
  reply: ModelReply;
  repaired: boolean;
  /** The reply failed the step format for the second time in the turn: no repair was asked for, the turn stops. */
  formatStop?: boolean;
}

export class Conversation {
  private readonly messages: ModelMessage[] = [];
  private channel: StepChannel;
  private system: string;
  /** Model calls of the turn, and its replies that did not follow the step format. */
  calls = 0;
  formatFailures = 0;
  /** Time and tokens of every model call of the turn. */
  modelMs = 0;
  tokensIn = 0;
  tokensOut = 0;

  constructor(private readonly o: ConversationOptions) {
    this.channel = stepChannel(o.format, o.tools, o.bounds);
    this.system = o.systemPrompt(o.format);
    for (const m of o.history ?? []) this.messages.push({ role: m.role, content: m.content });
    this.messages.push({
      role: 'user',
      content: `Question: ${o.question}${o.priorRefs ? `\n\nSources used earlier in this conversation (re-open them with getAdjacentChunks or readFile if needed):\n${o.priorRefs}` : ''}${o.earlierPassages ? `\n\n${o.earlierPassages}` : ''}`,
    });
  }

  /** The format steps travel in now. */
  get format(): StepFormat {
    return this.channel.format;
  }

  /**
   * Ask the model for step `index` (`offered`: the tools it may call; `finalOnly`: only the answer).
   * One repair retry when the reply does not parse; a reply that still does not parse is read as
   * the answer. `first`: no step has been taken yet, so a refusal of tools may fall back to text.
   */
  async next(index: number, finalOnly: boolean, offered: AgentTool[], first: boolean): Promise<ModelStep> {
    const reply = await this.callWithFallback(index, finalOnly, offered, first);
    if (reply.looped) return { ...this.channel.salvage(reply.text), policy: LOOP_STOPPED, reply, repaired: false };
    try {
      return { step: this.channel.parse(reply), reply, repaired: false };
    } catch (err) {
      // A second failure in the turn is not repaired: the model is not following the format.
      if (++this.formatFailures >= 2)
        return { ...this.channel.salvage(reply.text), reply, repaired: false, formatStop: true };
      const second = await this.call(index, finalOnly, offered, [
        { role: 'assistant', content: reply.text || '(empty reply)' },
        { role: 'user', content: repairMessage((err as Error).message, this.channel.format) },
      ]);
      const both = {
        text: second.text,
        toolCalls: second.toolCalls,
        inputTokens: reply.inputTokens + second.inputTokens,
        outputTokens: reply.outputTokens + second.outputTokens,
        ms: reply.ms + second.ms,
      };
      try {
        return { step: this.channel.parse(second), reply: both, repaired: true };
      } catch {
        this.formatFailures++;
        return { ...this.channel.salvage(second.text || reply.text), reply: both, repaired: true };
      }
    }
  }

  /** Write a completed step back into the conversation; `stepCount` counts the turn's steps, this one included. */
  record(action: ParsedStep, observation: string, stepCount: number): void {
    this.channel.record(this.messages, action, observation, stepCount);
  }

  private async callWithFallback(
    index: number,
    finalOnly: boolean,
    offered: AgentTool[],
    first: boolean,
  ): Promise<ModelReply> {
    try {
      return await this.call(index, finalOnly, offered);
    } catch (err) {
      if (this.channel.format !== 'tools' || this.o.signal.aborted || !refusesTools(err) || !first) throw err;
      // The endpoint refuses tools: the turn continues as text ReAct.
      this.channel = stepChannel('text', this.o.tools, this.o.bounds);
      this.system = this.o.systemPrompt('text');
      return this.call(index, finalOnly, offered);
    }
  }

  /** One model call, streamed; its time and tokens count even when it fails. A reply that starts to loop is stopped there. */
  private async call(
    index: number,
    finalOnly: boolean,
    offered: AgentTool[],
    extra: ModelMessage[] = [],
  ): Promise<ModelReply> {
    const t0 = performance.now();
    const { signal } = this.o;
    this.calls++;
    const call = new AbortController();
    const onAbort = () => call.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const result = streamText({
      model: this.o.model,
      system: this.system,
      messages: [...this.messages, ...extra],
      maxRetries: 0,
      // Errors arrive as stream parts and are handled below; the SDK's default logging would print aborts.
      onError: () => {},
      abortSignal: call.signal,
      temperature: this.o.temperature ?? 0,
      ...(this.o.maxOutputTokens ? { maxOutputTokens: this.o.maxOutputTokens } : {}),
      ...this.channel.callOptions(offered, finalOnly),
    });
    const streamed = await readStream(
      result.fullStream,
      this.channel.streamer((channel, text) => this.o.onToken?.(index, channel, text)),
      () => call.abort(new Error('the reply was looping')),
    ).finally(() => signal.removeEventListener('abort', onAbort));
    const ms = performance.now() - t0;
    this.modelMs += ms;
    this.tokensIn += streamed.inputTokens;
    this.tokensOut += streamed.outputTokens;
    if (signal.aborted) throw new CancelledError();
    if (streamed.looped)
      return {
        text: streamed.text,
        toolCalls: [],
        inputTokens: streamed.inputTokens,
        outputTokens: streamed.outputTokens,
        ms,
        looped: true,
      };
    if (streamed.failure) throw streamed.failure;
    return {
      text: streamed.text,
      toolCalls: streamed.toolCalls,
      inputTokens: streamed.inputTokens,
      outputTokens: streamed.outputTokens,
      ms,
    };
  }
}

export const LOOP_STOPPED = 'the model started repeating itself: generation was stopped';

/** Characters of new text between two loop checks of a stream. */
const LOOP_CHECK_CHARS = 48;

/** Read a call's stream to its end (or until it loops: `stop` is called): text, tool calls, usage, and the failure if one arrived. */
async function readStream(
  stream: AsyncIterable<TextStreamPart<ToolSet>>,
  onText: Streamer,
  stop: () => void,
): Promise<Omit<ModelReply, 'ms'> & { failure?: unknown }> {
  let text = '';
  let checked = 0;
  const toolCalls: ModelReply['toolCalls'] = [];
  let inputTokens = 0;
  let outputTokens = 0;
  let failure: unknown;
  for await (const part of stream) {
    if (part.type === 'text-delta') {
      text += part.text;
      onText(part.text, text);
      if (text.length - checked >= LOOP_CHECK_CHARS) {
        checked = text.length;
        if (isLooping(text)) {
          stop();
          return { text, toolCalls, inputTokens, outputTokens, looped: true };
        }
      }
    } else if (part.type === 'tool-call') {
      toolCalls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
    } else if (part.type === 'finish') {
      inputTokens = part.totalUsage.inputTokens ?? 0;
      outputTokens = part.totalUsage.outputTokens ?? 0;
    } else if (part.type === 'error') failure = part.error;
    else if (part.type === 'abort') failure = new CancelledError();
  }
  return { text, toolCalls, inputTokens, outputTokens, failure };
}
