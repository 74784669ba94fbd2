import { contract, isOpName, type OpName, type OpOutput, type OpParsed } from '../../shared/contract/index';
import { CasefileError } from '../../shared/errors';
import { parseInput } from '../../shared/validate';

/** What every handler receives besides its validated input. */
export interface CallContext {
  /** Aborted when the caller cancels (window closed, Ctrl+C, HTTP client gone). */
  signal: AbortSignal;
  /**
   * Which cases the caller may see (a firm server's member cases); every case when absent. An
   * operation over several cases (`cases.detect`) looks only at these.
   */
  visible?: (caseId: string) => boolean;
}

export type Handler<N extends OpName> = (input: OpParsed<N>, ctx: CallContext) => Promise<OpOutput<N>>;
export type HandlerMap = { [N in OpName]?: Handler<N> };

/**
 * Joins core handlers to the contract. Registering a name twice, or a name the contract does not
 * declare, throws; `call` validates input with the contract's schema before any handler runs.
 * A feature may register lazily: its operations are reserved up front and its handlers loaded on
 * the first call of any of them, so a shell that never calls them never loads the feature's code.
 */
export class Router {
  private readonly handlers = new Map<OpName, Handler<OpName>>();
  /** Reserved operations whose handlers are not loaded yet, each with its feature's loader. */
  private readonly lazy = new Map<OpName, () => Promise<void>>();

  register(map: HandlerMap): this {
    for (const [name, handler] of Object.entries(map)) {
      this.claim(name);
      this.handlers.set(name as OpName, handler as Handler<OpName>);
    }
    return this;
  }

  /**
   * Reserve `names` for handlers that `load` returns, loaded (once) on the first call of any of
   * them. The loaded map must handle exactly `names`. A failed load is retried by the next call.
   */
  registerLazy(names: readonly OpName[], load: () => Promise<HandlerMap>): this {
    for (const name of names) this.claim(name);
    let loading: Promise<void> | undefined;
    const ensure = () =>
      (loading ??= load().then(
        (map) => {
          const expected = [...names].sort().join(', ');
          const got = Object.keys(map).sort().join(', ');
          if (got !== expected)
            throw new Error(`Router: a lazily loaded feature handles [${got}], not the reserved [${expected}]`);
          for (const name of names) this.lazy.delete(name);
          this.register(map);
        },
        (err: unknown) => {
          loading = undefined;
          throw err;
        },
      ));
    for (const name of names) this.lazy.set(name, ensure);
    return this;
  }

  private claim(name: string): void {
    if (!isOpName(name)) throw new Error(`Router: "${name}" is not an operation of the contract`);
    if (this.handlers.has(name) || this.lazy.has(name)) throw new Error(`Router: duplicate handler for "${name}"`);
  }

  /** Operations of the contract that have no handler yet (reserved lazy ones count as handled). */
  missing(): OpName[] {
    return (Object.keys(contract) as OpName[]).filter((n) => !this.has(n));
  }

  has(name: string): boolean {
    return isOpName(name) && (this.handlers.has(name) || this.lazy.has(name));
  }

  /** Load every lazily registered feature now (a shell warming up, or a check that all of them load). */
  async loadAll(): Promise<void> {
    await Promise.all([...new Set(this.lazy.values())].map((load) => load()));
  }

  /** Call an operation by name with untrusted input, as every shell does. */
  async call<N extends OpName>(name: N, input: unknown, ctx?: Partial<CallContext>): Promise<OpOutput<N>>;
  async call(name: string, input: unknown, ctx?: Partial<CallContext>): Promise<unknown>;
  async call(name: string, input: unknown, ctx: Partial<CallContext> = {}): Promise<unknown> {
    if (!isOpName(name))
      throw new CasefileError('invalid_input', `Unknown operation "${name}".`, undefined, 'unknown_operation');
    if (!this.has(name)) throw new CasefileError('unavailable', `Operation "${name}" is not available in this build.`);
    const parsed = parseInput(contract[name].input, input ?? {}, `input to ${name}`);
    await this.lazy.get(name)?.(); // bad input is refused before a feature is loaded for it
    const handler = this.handlers.get(name)!;
    const signal = ctx.signal ?? new AbortController().signal;
    return handler(parsed as never, { signal, ...(ctx.visible ? { visible: ctx.visible } : {}) });
  }
}
