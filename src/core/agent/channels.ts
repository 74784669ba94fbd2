/**
 * A step channel per format: how one step travels between the loop and the model (what it adds to a
 * call, how it streams, parses and salvages a reply, and writes the step back). `json`: one
 * schema-constrained object per step (local models); `text`: text ReAct; `tools`: native tool
 * calling (endpoints).
 */
import { jsonSchema, Output, tool, type ModelMessage, type OutputInterface, type ToolSet } from 'ai';
import { z } from 'zod';
import {
  FINAL,
  parseJsonStep,
  parseTextStep,
  partialJsonString,
  partialTextStep,
  renderStep,
  stepSchema,
  type ParsedStep,
  type StepFormat,
} from './prompt';
import type { AgentTool } from './types';

export type AgentTokenChannel = 'thought' | 'answer';

export interface ModelReply {
  text: string;
  /** Native tool calls (format `tools`). */
  toolCalls: { toolCallId: string; toolName: string; input: unknown }[];
  inputTokens: number;
  outputTokens: number;
  ms: number;
  /** Generation was stopped because the text had started to loop. */
  looped?: boolean;
}

/** What a channel adds to a model call. */
export interface ChannelCallOptions {
  stopSequences?: string[];
  output?: OutputInterface;
  tools?: ToolSet;
  toolChoice?: 'none' | 'auto';
}

/** Streams one call's thought and answer: called with each text delta and the text so far. */
export type Streamer = (delta: string, text: string) => void;

export interface StepChannel {
  readonly format: StepFormat;
  /** Options of one model call; `offered` are the tools the step may call, `finalOnly` allows only the answer. */
  callOptions(offered: AgentTool[], finalOnly: boolean): ChannelCallOptions;
  streamer(emit: (channel: AgentTokenChannel, text: string) => void): Streamer;
  /** The reply as a step. Throws with a reason the model can act on (the repair message quotes it). */
  parse(reply: ModelReply): ParsedStep;
  /** A reply that did not parse even after a repair, read as the answer (never crash). */
  salvage(raw: string): { step: ParsedStep; policy: string };
  /** Write a completed step and its observation back into the conversation; `stepCount` counts steps so far, this one included. */
  record(messages: ModelMessage[], action: ParsedStep, observation: string, stepCount: number): void;
}

/** Bounds of the constrained JSON step. */
export interface StepBounds {
  thoughtChars?: number;
  answerChars?: number;
  argChars?: number;
}

export function stepChannel(format: StepFormat, tools: AgentTool[], bounds: StepBounds = {}): StepChannel {
  if (format === 'json') return jsonChannel(bounds);
  if (format === 'text') return textChannel();
  return toolsChannel(tools);
}

/** An endpoint's error on a call with tools that says it does not do tool calling. */
export function refusesTools(err: unknown): boolean {
  const e = err as { statusCode?: number; message?: string };
  return (
    (e.statusCode !== undefined && [400, 404, 422, 500, 501].includes(e.statusCode)) ||
    /tool|function/i.test(e.message ?? '')
  );
}

const CANNOT_PARSE = 'the reply could not be parsed after one repair; its text is taken as the answer';

/** Streams the growing thought and answer that `extract` reads from the text so far. */
function partialStreamer(
  extract: (text: string) => { thought?: string | undefined; answer?: string | undefined },
  emit: (channel: AgentTokenChannel, text: string) => void,
): Streamer {
  let sentThought = 0;
  let sentAnswer = 0;
  return (_delta, text) => {
    const p = extract(text);
    if (p.thought !== undefined && p.thought.length > sentThought) {
      emit('thought', p.thought.slice(sentThought));
      sentThought = p.thought.length;
    }
    if (p.answer !== undefined && p.answer.length > sentAnswer) {
      emit('answer', p.answer.slice(sentAnswer));
      sentAnswer = p.answer.length;
    }
  };
}

/** JSON and text steps go back as the model's own step and a user "Observation:" message. */
function recordAsText(format: StepFormat) {
  return (messages: ModelMessage[], action: ParsedStep, observation: string): void => {
    messages.push(
      { role: 'assistant', content: renderStep(action, format) },
      { role: 'user', content: `Observation: ${observation}` },
    );
  };
}

function jsonChannel(bounds: StepBounds): StepChannel {
  return {
    format: 'json',
    callOptions: (offered, finalOnly) => ({
      output: Output.object({
        schema: jsonSchema(
          stepSchema(offered, {
            finalOnly,
            thoughtChars: bounds.thoughtChars,
            answerChars: bounds.answerChars,
            argChars: bounds.argChars,
          }),
        ),
      }),
    }),
    streamer: (emit) =>
      partialStreamer(
        (text) => ({ thought: partialJsonString(text, 'thought'), answer: partialJsonString(text, 'answer') }),
        emit,
      ),
    parse: (reply) => parseJsonStep(reply.text),
    salvage: (raw) => {
      // A step cut at the token limit: keep the part of the answer that was written.
      const partial = partialJsonString(raw, 'answer');
      return {
        step: {
          thought: partialJsonString(raw, 'thought') ?? '',
          action: FINAL,
          input: { answer: (partial ?? raw).trim() },
        },
        policy:
          partial !== undefined
            ? 'the reply was cut off; the part of the answer that was written is kept'
            : CANNOT_PARSE,
      };
    },
    record: recordAsText('json'),
  };
}

function textChannel(): StepChannel {
  return {
    format: 'text',
    callOptions: () => ({ stopSequences: ['\nObservation:', 'Observation:'] }),
    streamer: (emit) => partialStreamer(partialTextStep, emit),
    parse: (reply) => parseTextStep(reply.text),
    salvage: (raw) => ({ step: { thought: '', action: FINAL, input: { answer: raw.trim() } }, policy: CANNOT_PARSE }),
    record: recordAsText('text'),
  };
}

function toolsChannel(tools: AgentTool[]): StepChannel {
  const nativeTools: ToolSet = Object.fromEntries(
    tools.map((t) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema(z.toJSONSchema(t.inputSchema, { io: 'input', unrepresentable: 'any' }) as never),
      }),
    ]),
  );
  /** The model's own tool call id of the step in progress. */
  let pendingCallId: string | undefined;
  return {
    format: 'tools',
    callOptions: (_offered, finalOnly) => ({ tools: nativeTools, toolChoice: finalOnly ? 'none' : 'auto' }),
    // Native replies carry no thought: their text is the answer.
    streamer: (emit) => (delta) => emit('answer', delta),
    /** The first tool call, or (no call) the text as the final answer. */
    parse: (reply) => {
      const call = reply.toolCalls[0];
      if (call) {
        pendingCallId = call.toolCallId;
        const input =
          typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input)
            ? (call.input as Record<string, unknown>)
            : {};
        return { thought: reply.text.trim(), action: call.toolName, input };
      }
      if (!reply.text.trim()) throw new Error('the reply was empty');
      return { thought: '', action: FINAL, input: { answer: reply.text.trim() } };
    },
    salvage: (raw) => ({ step: { thought: '', action: FINAL, input: { answer: raw.trim() } }, policy: CANNOT_PARSE }),
    record: (messages, action, observation, stepCount) => {
      if (action.action === FINAL) {
        // An answer sent back by policy: plain messages (final_answer is not a tool the server knows).
        pendingCallId = undefined;
        messages.push(
          { role: 'assistant', content: String(action.input.answer ?? '') || '(answer)' },
          { role: 'user', content: observation },
        );
        return;
      }
      const toolCallId = pendingCallId ?? `call_${stepCount + 1}`;
      pendingCallId = undefined;
      messages.push(
        {
          role: 'assistant',
          content: [
            ...(action.thought ? [{ type: 'text' as const, text: action.thought }] : []),
            { type: 'tool-call' as const, toolCallId, toolName: action.action, input: action.input },
          ],
        },
        {
          role: 'tool',
          content: [
            {
              type: 'tool-result' as const,
              toolCallId,
              toolName: action.action,
              output: { type: 'text' as const, value: observation },
            },
          ],
        },
      );
    },
  };
}
