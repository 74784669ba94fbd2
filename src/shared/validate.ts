import type { z } from 'zod';
import { CasefileError, type FieldIssue } from './errors';

/** Parse `input` with `schema`; on failure throw an `invalid_input` error whose message names every bad field. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, what = 'input'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const fields: FieldIssue[] = result.error.issues.map((issue) => ({
    field: issue.path.length ? issue.path.map(String).join('.') : '(input)',
    message: issue.message,
  }));
  const summary = fields.map((f) => `${f.field}: ${f.message}`).join('; ');
  throw new CasefileError('invalid_input', `Invalid ${what} — ${summary}`, fields);
}
