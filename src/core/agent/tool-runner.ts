/**
 * The tool runner: runs one tool step — the turn's defaults filled in, arguments validated against
 * the tool's schema, every failure turned into an observation the model can act on — and remembers
 * each call, so the loop can stop a model that asks for the same call again. With a tool check
 * (tool-check.ts), a result that contradicts its call is run once more, corrected, and never shown.
 */
import type { AgentStep } from '../../shared/contract/chat';
import type { CoverageAccumulator } from './coverage';
import type { ObservationBook } from './observations';
import type { ParsedStep } from './prompt';
import type { ToolCheck } from './tool-check';
import { CancelledError, type AgentTool, type SectionRef } from './types';

/** A call's identity (a repeat stops the loop): the tool and its arguments, keys sorted, strings trimmed. */
export function stableKey(action: string, input: Record<string, unknown>): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object')
      return Object.fromEntries(
        Object.entries(v)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, x]) => [k, sort(x)]),
      );
    return typeof v === 'string' ? v.trim() : v;
  };
  return `${action}\u0000${JSON.stringify(sort(input))}`;
}

/** The arguments a tool runs with: the model's, plus the tool's defaults for those it left out (named in `defaults`). */
export function withDefaults(
  tool: AgentTool | undefined,
  given: Record<string, unknown>,
): { input: Record<string, unknown>; defaults?: string[] } {
  const filled = Object.entries(tool?.defaults ?? {}).filter(([k, v]) => v !== undefined && !Object.hasOwn(given, k));
  return filled.length
    ? { input: { ...given, ...Object.fromEntries(filled) }, defaults: filled.map(([k]) => k) }
    : { input: given };
}

export class ToolRunner {
  private readonly byName: Map<string, AgentTool>;
  /** Calls made in this turn (by stableKey): the step that made each. */
  private readonly earlier = new Map<string, number>();
  /** Time spent in tools this turn. */
  toolMs = 0;
  /** The section of the best passage of the last search focused on a named document (the clause policy reads it). */
  sectionToRead: SectionRef | null = null;

  constructor(
    private readonly tools: AgentTool[],
    private readonly book: ObservationBook,
    private readonly coverage: CoverageAccumulator,
    private readonly signal: AbortSignal,
    private readonly check?: ToolCheck,
  ) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** The tool names, in the order given. */
  names(): string[] {
    return [...this.byName.keys()];
  }

  /** The arguments `parsed` would run with (the model's, plus defaults). */
  effective(parsed: ParsedStep): { input: Record<string, unknown>; defaults?: string[] } {
    return withDefaults(this.byName.get(parsed.action), parsed.input);
  }

  /**
   * The tools a constrained step may call: a tool whose constrained call takes no arguments can
   * only repeat itself once called, so it is left out of the grammar.
   */
  offered(): AgentTool[] {
    return this.tools.filter(
      (t) =>
        !(
          t.grammarProperties &&
          Object.keys(t.grammarProperties).length === 0 &&
          this.earlier.has(stableKey(t.name, {}))
        ),
    );
  }

  /** The call with its arguments checked before it runs (tool-check.ts); the trace's notes say what changed. */
  async checkArguments(parsed: ParsedStep): Promise<{ action: ParsedStep; notes: string[] }> {
    return this.check && this.byName.has(parsed.action) ? this.check.before(parsed) : { action: parsed, notes: [] };
  }

  /** The step that already made the call `parsed` would make (same tool, same arguments with defaults), or null. */
  earlierStep(parsed: ParsedStep): number | null {
    return this.earlier.get(stableKey(parsed.action, this.effective(parsed).input)) ?? null;
  }

  /** Run the step `parsed` (a known tool) as step `index`. Throws only CancelledError. */
  async run(index: number, parsed: ParsedStep, policy?: string): Promise<AgentStep> {
    const tool = this.byName.get(parsed.action)!;
    const { input, defaults } = this.effective(parsed);
    const step: AgentStep = {
      index,
      kind: 'action',
      thought: parsed.thought,
      action: parsed.action,
      input,
      ...(defaults ? { defaults } : {}),
      observation: '',
      timing: { model_ms: 0, tool_ms: 0 },
      tokens: { input: 0, output: 0 },
      ...(policy ? { policy } : {}),
    };
    const key = stableKey(parsed.action, input);
    const valid = tool.inputSchema.safeParse(input);
    if (!valid.success) {
      const fields = valid.error.issues.map((i) => `${i.path.join('.') || '(input)'}: ${i.message}`).join('; ');
      step.error = true;
      step.observation = `Error: invalid arguments for ${tool.name} — ${fields}. Fix the arguments and try again.`;
      step.summary = { tool: tool.name, count: 0 };
      this.earlier.set(key, index);
      return step;
    }
    await this.execute(tool, valid.data as Record<string, unknown>, step, key);
    return step;
  }

  /** Run the tool and fill in `step`'s observation, summary and time; caches the call under `key`. */
  private async execute(tool: AgentTool, input: Record<string, unknown>, step: AgentStep, key: string): Promise<void> {
    const t0 = performance.now();
    try {
      const ctx = { signal: this.signal, rejected: this.book.rejected };
      let outcome = await tool.run(input, ctx);
      if (this.check) {
        // A result that contradicts its call is run once more, corrected; the model sees only what holds.
        const rerun = async (again: Record<string, unknown>) => tool.run(tool.inputSchema.parse(again), ctx);
        const settled = await this.check.settle(tool.name, input, outcome, rerun);
        if (this.signal.aborted) throw new CancelledError();
        outcome = settled.outcome;
        if (settled.input) step.input = settled.input;
        if (settled.note) step.policy = step.policy ? `${step.policy}; ${settled.note}` : settled.note;
      }
      step.observation = this.book.observe(step.index, outcome);
      step.summary = {
        tool: tool.name,
        count: outcome.count,
        ...(outcome.best_label ? { best_label: outcome.best_label } : {}),
      };
      this.coverage.add(outcome.coverage);
      if (outcome.readNext) this.sectionToRead = outcome.readNext;
      this.earlier.set(key, step.index);
    } catch (err) {
      if (this.signal.aborted) throw new CancelledError();
      step.error = true;
      step.observation = `Error from ${tool.name}: ${(err as Error).message} Correct the call and try again.`;
      step.summary = { tool: tool.name, count: 0 };
      this.earlier.set(key, step.index);
    } finally {
      step.timing.tool_ms = performance.now() - t0;
      this.toolMs += step.timing.tool_ms;
    }
  }
}
