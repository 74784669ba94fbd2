/**
 * What the model reads and writes: the system prompt (policy and tools), the step format (JSON
 * steps constrained by a schema, or text ReAct), parsing, and the observations it is shown.
 */
import { z } from 'zod';
import type { AgentTool, PassageItem } from './types';

export const FINAL = 'final_answer';

/** One parsed step of the model. */
export interface ParsedStep {
  thought: string;
  action: string;
  input: Record<string, unknown>;
}

export type StepFormat = 'json' | 'text' | 'tools';

const EXHAUSTIVE_RE = /\b(every|all|each time|each|list|how many times|whenever|all occurrences)\b/i;

/** Questions that ask for all occurrences ("every", "all", "each time", "list"). */
export function isExhaustiveQuestion(question: string): boolean {
  return EXHAUSTIVE_RE.test(question);
}

function toolLine(t: AgentTool): string {
  const schema = z.toJSONSchema(t.inputSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { type?: unknown }>;
    required?: string[];
  };
  const props = Object.entries(schema.properties ?? {}).map(([k, v]) => {
    const req = schema.required?.includes(k) ? '' : '?';
    const type = typeof v.type === 'string' ? v.type : 'value';
    return `${k}${req}: ${type}`;
  });
  return `- ${t.name}(${props.join(', ')}): ${t.description}`;
}

export function systemPrompt(
  tools: AgentTool[],
  format: StepFormat,
  opts: { maxSteps: number; exhaustive: boolean; thoughtChars?: number; answerChars?: number },
): string {
  const names = tools.map((t) => t.name);
  const lines = [
    'You are Casefile, a careful paralegal assistant. You answer questions about ONE legal case using only the documents of that case, which you reach through tools.',
    '',
    'Tools:',
    ...tools.map(toolLine),
    '',
    'Rules:',
    names.includes('findFiles')
      ? '1. First call findFiles to see which files the case holds.'
      : '1. Start by looking at what the case holds.',
    `2. Prefer one or two retrieval calls (${names.filter((n) => ['retrieve', 'keyword_search', 'vector_search'].includes(n)).join(', ')}); reformulate the query when a search finds nothing useful.`,
    `3. Before quoting exact words, confirm them with ${names.some((n) => n === 'grepFile' || n === 'readFile') ? 'grepFile or readFile' : 'readSection or grepCase'}.`,
    opts.exhaustive
      ? '4. This question asks for every occurrence: use grepCase (or read the files) so the whole case is covered, and say plainly if you could not cover it.'
      : '4. For questions about every occurrence ("every", "all", "each time", "list"), use grepCase.',
    `5. You have at most ${opts.maxSteps} tool calls; then you must answer with what you have.`,
    '6. Answer only from the documents. Cite each statement with the cite id shown in the observations, written as [cite:ID]. Never invent ids. Put exact quotes in double quotes.',
    '7. If the documents do not contain the answer, say so plainly.',
    ...(names.includes('readSection')
      ? [
          '8. For a clause of a named document ("the cap in the Zounds marketing agreement"): search (it focuses on the documents the question names), then read the whole section of the best passage with readSection(file_id, section) — outline(file_id) lists the sections — and answer from it.',
        ]
      : []),
    '',
  ];
  if (format === 'json') {
    lines.push(
      'Reply with ONE JSON object per turn:',
      '{"thought": "<what you will do and why>", "action": "<tool name>", "action_input": {<tool arguments>}}',
      `or, to answer: {"thought": "<why you can answer>", "action": "${FINAL}", "action_input": {"answer": "<answer with [cite:ID] citations>"}}`,
      `Keep the thought under ${opts.thoughtChars ?? 400} characters and the answer under ${opts.answerChars ?? 1500}.`,
      '',
      'Example turn:',
      '{"thought": "First I list the files.", "action": "findFiles", "action_input": {}}',
      '{"thought": "Now I search for the lease end date.", "action": "retrieve", "action_input": {"query": "lease term ends"}}',
      '…and when the observations answer the question, the final_answer with their cite ids.',
    );
  } else if (format === 'tools') {
    lines.push(
      'Call the tools you need, one at a time. When you can answer, reply with the answer text only (no tool call), citing as [cite:ID].',
    );
  } else {
    lines.push(
      'Reply in exactly this format:',
      'Thought: <what you will do and why>',
      'Action: <tool name>',
      'Action Input: <JSON object with the tool arguments>',
      'Then wait for the Observation. When you can answer:',
      'Thought: <why you can answer>',
      'Final Answer: <answer with [cite:ID] citations>',
    );
  }
  return lines.join('\n');
}

/** A string property of bounded length, so a constrained step always closes within the token budget. */
function boundedString(max: number): Record<string, unknown> {
  return { type: 'string', maxLength: max };
}

/**
 * The JSON schema of one step for grammar-constrained generation: a choice between each tool
 * (with its required arguments) and the final answer. `finalOnly` allows only the answer.
 */
export function stepSchema(
  tools: AgentTool[],
  opts: { finalOnly?: boolean; thoughtChars?: number; answerChars?: number; argChars?: number } = {},
): Record<string, unknown> {
  const thought = boundedString(opts.thoughtChars ?? 400);
  const final = {
    type: 'object',
    properties: {
      thought,
      action: { const: FINAL },
      action_input: {
        type: 'object',
        properties: { answer: boundedString(opts.answerChars ?? 1500) },
        required: ['answer'],
      },
    },
    required: ['thought', 'action', 'action_input'],
  };
  if (opts.finalOnly) return final;
  const variants = tools.map((t) => ({
    type: 'object',
    properties: {
      thought,
      action: { const: t.name },
      action_input: {
        type: 'object',
        properties: t.grammarProperties ?? grammarPropertiesOf(t, opts.argChars),
        required: Object.keys(t.grammarProperties ?? grammarPropertiesOf(t, opts.argChars)),
      },
    },
    required: ['thought', 'action', 'action_input'],
  }));
  return { oneOf: [...variants, final] };
}

/** Required properties of a tool's input as bounded JSON-schema properties. */
export function grammarPropertiesOf(t: AgentTool, argChars = 200): Record<string, unknown> {
  const schema = z.toJSONSchema(t.inputSchema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const out: Record<string, unknown> = {};
  for (const key of schema.required ?? []) {
    const p = schema.properties?.[key] ?? {};
    if (p.type === 'string') out[key] = boundedString(Math.min(Number(p.maxLength ?? argChars), argChars));
    else if (p.type === 'integer' || p.type === 'number') out[key] = { type: 'integer' };
    else if (p.type === 'boolean') out[key] = { type: 'boolean' };
    else out[key] = boundedString(argChars);
  }
  return out;
}

/** Parse a JSON step. Throws with a reason the model can act on. */
export function parseJsonStep(text: string): ParsedStep {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('the reply is not a JSON object');
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch (err) {
    throw new Error(`the reply is not valid JSON (${(err as Error).message})`);
  }
  if (typeof value !== 'object' || value === null) throw new Error('the reply is not a JSON object');
  const v = value as Record<string, unknown>;
  const action = typeof v.action === 'string' ? v.action.trim() : '';
  if (!action) throw new Error('the reply has no "action"');
  const input = v.action_input ?? {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    if (action === FINAL && typeof input === 'string')
      return { thought: String(v.thought ?? ''), action, input: { answer: input } };
    throw new Error('"action_input" must be a JSON object');
  }
  return { thought: typeof v.thought === 'string' ? v.thought : '', action, input: input as Record<string, unknown> };
}

/** Parse a text ReAct step (Thought / Action / Action Input, or Final Answer). */
export function parseTextStep(text: string): ParsedStep {
  const thought = /Thought:\s*([\s\S]*?)(?=\n\s*(?:Action:|Final Answer:)|$)/i.exec(text)?.[1]?.trim() ?? '';
  const final = /Final Answer:\s*([\s\S]*)$/i.exec(text);
  if (final) return { thought, action: FINAL, input: { answer: final[1]!.trim() } };
  const action = /Action:\s*([A-Za-z_][\w-]*)/i.exec(text)?.[1];
  if (!action) throw new Error('the reply has neither "Action:" nor "Final Answer:"');
  const inputText = /Action Input:\s*([\s\S]*)$/i.exec(text)?.[1]?.trim() ?? '{}';
  const objStart = inputText.indexOf('{');
  const objEnd = inputText.lastIndexOf('}');
  if (objStart < 0 || objEnd < objStart) {
    if (!inputText || inputText === 'None') return { thought, action, input: {} };
    throw new Error('"Action Input:" must be a JSON object');
  }
  try {
    const input = JSON.parse(inputText.slice(objStart, objEnd + 1)) as unknown;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('not an object');
    return { thought, action, input: input as Record<string, unknown> };
  } catch (err) {
    throw new Error(`"Action Input:" is not a valid JSON object (${(err as Error).message})`);
  }
}

/** How the model's own step is written back into the conversation. */
export function renderStep(step: ParsedStep, format: StepFormat): string {
  if (format === 'json')
    return JSON.stringify({ thought: step.thought, action: step.action, action_input: step.input });
  if (step.action === FINAL) return `Thought: ${step.thought}\nFinal Answer: ${String(step.input.answer ?? '')}`;
  return `Thought: ${step.thought}\nAction: ${step.action}\nAction Input: ${JSON.stringify(step.input)}`;
}

export function repairMessage(reason: string, format: StepFormat): string {
  if (format === 'tools')
    return `Your reply could not be used: ${reason}. Call one tool, or reply with the final answer text.`;
  return format === 'json'
    ? `Your reply could not be read: ${reason}. Reply again with exactly one JSON object {"thought": ..., "action": ..., "action_input": {...}}.`
    : `Your reply could not be read: ${reason}. Reply again in exactly this format:\nThought: ...\nAction: <tool name>\nAction Input: {...}\nor\nThought: ...\nFinal Answer: ...`;
}

/**
 * The value of a JSON string property in a possibly incomplete JSON text (for streaming the
 * thought and answer while the step is generated). Returns undefined until the key appears.
 */
export function partialJsonString(text: string, key: string): string | undefined {
  const m = new RegExp(`"${key}"\\s*:\\s*"`).exec(text);
  if (!m) return undefined;
  let out = '';
  for (let i = m.index + m[0].length; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return out;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const n = text[i + 1];
    if (n === undefined) return out;
    if (n === 'u') {
      const hex = text.slice(i + 2, i + 6);
      if (hex.length < 4) return out;
      out += String.fromCharCode(parseInt(hex, 16) || 0x3f);
      i += 5;
      continue;
    }
    out += ({ n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' } as Record<string, string>)[n] ?? n;
    i++;
  }
  return out;
}

/** The streamed part of a text step: thought so far, and the answer once "Final Answer:" appears. */
export function partialTextStep(text: string): { thought?: string; answer?: string } {
  const thought = /Thought:\s*([\s\S]*?)(?=\n\s*(?:Action|Final Answer)|$)/i.exec(text)?.[1];
  const answer = /Final Answer:\s*([\s\S]*)$/i.exec(text)?.[1];
  return { ...(thought !== undefined ? { thought } : {}), ...(answer !== undefined ? { answer } : {}) };
}

export function trimText(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

export function pagesLabel(pages: number[]): string {
  if (!pages.length) return '';
  const lo = Math.min(...pages);
  const hi = Math.max(...pages);
  return lo === hi ? `p.${lo}` : `pp.${lo}-${hi}`;
}

/** One passage line for the model: cite id, file and page, quality label, trimmed text. */
export function formatPassage(item: PassageItem, maxChars: number): string {
  const label = item.label ? ` (${item.label})` : '';
  const chunk = item.chunk_id ? ` chunk_id=${item.chunk_id}` : '';
  const file = item.file_id ? ` file_id=${item.file_id}` : '';
  const section = item.section ? ` § ${item.section}` : '';
  return `[cite:${item.cite}] ${item.file_name} ${pagesLabel(item.pages)}${section}${label}${file}${chunk}: "${trimText(item.text, maxChars)}"`;
}
