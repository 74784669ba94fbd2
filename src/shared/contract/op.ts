import type { z } from 'zod';

declare const outputMarker: unique symbol;

/** One operation of the API: its zod input schema, a one-line summary, and (type-only) its output. */
export interface OpSpec<I extends z.ZodType = z.ZodType, O = unknown> {
  readonly input: I;
  readonly summary: string;
  /** Type-level only: the handler's result type. Never present at runtime. */
  readonly [outputMarker]?: O;
}

/** `op<Output>()(inputSchema, summary)`: declare an operation whose handler returns `Output`. */
export function op<O>() {
  return function define<I extends z.ZodType>(input: I, summary: string): OpSpec<I, O> {
    return { input, summary };
  };
}

export type OutputOf<S> = S extends OpSpec<z.ZodType, infer O> ? O : never;
