import vm from 'node:vm';
import { CasefileError } from '../../shared/errors';

/** Time one regex may spend on one document before it is stopped. */
export const REGEX_TIME_LIMIT_MS = 1000;

export interface RegexHit {
  start: number;
  end: number;
  match: string;
}

/** Validate a user's pattern and flags: a clear `invalid_input` error instead of a SyntaxError. */
export function compileUserRegex(pattern: string, flags = ''): RegExp {
  if (!/^[imsu]*$/.test(flags)) {
    throw new CasefileError('invalid_input', `Regex flags may only be i, m, s and u (got "${flags}").`, [
      { field: 'flags', message: 'only i, m, s, u' },
    ]);
  }
  try {
    return new RegExp(pattern, `${[...new Set(flags)].join('')}g`);
  } catch (err) {
    throw new CasefileError(
      'invalid_input',
      `The pattern is not a valid regular expression: ${(err as Error).message}.`,
      [{ field: 'pattern', message: (err as Error).message }],
    );
  }
}

const context = vm.createContext(Object.create(null) as object);
const runner = new vm.Script(`(function (pattern, flags, text, max) {
  var re = new RegExp(pattern, flags);
  var out = [];
  var total = 0;
  var m;
  while ((m = re.exec(text)) !== null) {
    if (out.length < max * 2) out.push(m.index, m.index + m[0].length);
    total++;
    if (m[0].length === 0) re.lastIndex++;
  }
  return { hits: out.join(','), total: total };
})`);
const findAll = runner.runInContext(context) as (
  pattern: string,
  flags: string,
  text: string,
  max: number,
) => { hits: string; total: number };

/**
 * Every match of `re` in `text`, the first `max` returned with offsets and `total` counted.
 * Runs under a V8 execution time limit, so a catastrophically backtracking pattern
 * (e.g. `(a+)+$`) is stopped with a clear error instead of freezing the engine.
 */
export function guardedMatchAll(
  re: RegExp,
  text: string,
  max: number,
  timeLimitMs = REGEX_TIME_LIMIT_MS,
): { hits: RegexHit[]; total: number } {
  const call = new vm.Script('findAll(p, f, t, m)');
  const sandbox = context as Record<string, unknown>;
  sandbox.findAll = findAll;
  sandbox.p = re.source;
  sandbox.f = re.flags.includes('g') ? re.flags : `${re.flags}g`;
  sandbox.t = text;
  sandbox.m = max;
  let result: { hits: string; total: number };
  try {
    result = call.runInContext(context, { timeout: timeLimitMs }) as { hits: string; total: number };
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new CasefileError(
        'failed',
        `The pattern /${re.source}/ took longer than ${timeLimitMs / 1000} s on one document and was stopped (it backtracks too much). Simplify it: avoid nested repeats like (a+)+ or (.*)*.`,
        [{ field: 'pattern', message: 'too slow (catastrophic backtracking)' }],
      );
    }
    throw err;
  } finally {
    sandbox.t = undefined;
  }
  const nums = result.hits ? result.hits.split(',').map(Number) : [];
  const hits: RegexHit[] = [];
  for (let i = 0; i < nums.length; i += 2) {
    const start = nums[i]!;
    const end = nums[i + 1]!;
    hits.push({ start, end, match: text.slice(start, end) });
  }
  return { hits, total: result.total };
}
