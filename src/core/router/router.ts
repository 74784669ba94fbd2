import { contract, isOpName, type OpName, type OpOutput, type OpParsed } from '../../shared/contract/index';
import { CasefileError } from '../../shared/errors';
import { parseInput } from '../../shared/validate';

/** What every handler receives besides its validated input. */
export interface CallContext {
  /** Aborted when the caller cancels (window closed, Ctrl+C, HTTP client gone). */
  signal: AbortSignal;
}

export type Handler<N extends OpName> = (input: OpParsed<N>, ctx: CallContext) => Promise<OpOutput<N>>;
export type HandlerMap = { [N in OpName]?: Handler<N> };

/**
 * Joins core handlers to the contract. Registering a name twice, or a name the contract does not
 * declare, throws; `call` validates input with the contract's schema before any handler runs.
 */
export class Router {
  private readonly handlers = new Map<OpName, Handler<OpName>>();

  register(map: HandlerMap): this {
    for (const [name, handler] of Object.entries(map)) {
      if (!isOpName(name)) throw new Error(`Router: "${name}" is not an operation of the contract`);
      if (this.handlers.has(name)) throw new Error(`Router: duplicate handler for "${name}"`);
      this.handlers.set(name, handler as Handler<OpName>);
    }
    return this;
  }

  /** Operations of the contract that have no handler yet. */
  missing(): OpName[] {
    return (Object.keys(contract) as OpName[]).filter((n) => !this.handlers.has(n));
  }

  has(name: string): boolean {
    return isOpName(name) && this.handlers.has(name);
  }

  /** Call an operation by name with untrusted input, as every shell does. */
  async call<N extends OpName>(name: N, input: unknown, ctx?: Partial<CallContext>): Promise<OpOutput<N>>;
  async call(name: string, input: unknown, ctx?: Partial<CallContext>): Promise<unknown>;
  async call(name: string, input: unknown, ctx: Partial<CallContext> = {}): Promise<unknown> {
    if (!isOpName(name)) throw new CasefileError('invalid_input', `Unknown operation "${name}".`);
    const handler = this.handlers.get(name);
    if (!handler) throw new CasefileError('unavailable', `Operation "${name}" is not available in this build.`);
    const parsed = parseInput(contract[name].input, input ?? {}, `input to ${name}`);
    const signal = ctx.signal ?? new AbortController().signal;
    return handler(parsed as never, { signal });
  }
}
