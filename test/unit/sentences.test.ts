/**
 * Engine messages in sentences (#16): what a lawyer can get wrong by typing (a question, a title, a
 * model path, a search setting, a folder, a date, a document type) is refused with a sentence — a
 * capital letter, a full stop, plain words — and the app shows just that sentence.
 */
import { describe, expect, it } from 'vitest';
import { contract } from '../../src/shared/contract/index';
import { CasefileError } from '../../src/shared/errors';
import { parseInput } from '../../src/shared/validate';
import { ApiError, errorMessage } from '../../src/renderer/src/api/errors';

const SENTENCE = /^[A-Z“"].*[.?]$/;

/** Malformed inputs a person can produce through the app, the CLI or serve mode. */
const MALFORMED: Array<[keyof typeof contract, unknown]> = [
  ['cases.create', { name: '' }],
  ['chat.ask', { case_id: 'c1', question: '   ' }],
  ['chat.ask', { case_id: 'c1', question: 'x'.repeat(4001) }],
  ['chat.ask', { case_id: 'c1', question: 'When?', retrieval: { top_k: 0 } }],
  ['chat.ask', { case_id: 'c1', question: 'When?', retrieval: { score_threshold: 'high' } }],
  ['chat.ask', { case_id: 'c1', question: 'When?', retrieval: { rerank_top_n: 500 } }],
  ['chat.ask', { case_id: 'c1', question: 'When?', file_ids: [] }],
  ['chat.rename', { case_id: 'c1', session_id: 's1', title: ' ' }],
  ['search', { case_id: 'c1', query: '' }],
  ['models.import', { path: '' }],
  ['models.download', { source: 'x' }],
  ['models.download', { source: 'owner/repo/m.gguf', sha256: 'abc' }],
  ['models.setDefault', { model_id: '../qwen' }],
  ['ingest.start', { case_id: 'c1', paths: [] }],
  ['files.setType', { case_id: 'c1', file_id: 'f1', type: 'memo' }],
  ['cases.setWatch', { case_id: 'c1', folders: ['Cases/Smith'] }],
  ['cases.setOcr', { case_id: 'c1', language: 'English' }],
];

describe('validation messages – sentences a lawyer can act on', () => {
  it.each(MALFORMED.map(([name, input]) => [name, JSON.stringify(input).slice(0, 80), input] as const))(
    '%s %s',
    (name, _shown, input) => {
      let err: unknown;
      try {
        parseInput(contract[name].input, input, `input to ${name}`);
      } catch (e) {
        err = e;
      }
      expect(err, `${name} accepted it`).toBeInstanceOf(CasefileError);
      const e = err as CasefileError;
      expect(e.code).toBe('invalid_input');
      for (const f of e.fields ?? []) expect(f.message, f.field).toMatch(SENTENCE);
      // The app shows the sentences alone, not "Invalid input to … — field: …".
      const shown = errorMessage(
        new ApiError({ code: e.code, message: e.message, ...(e.fields ? { fields: e.fields } : {}) }),
      );
      expect(shown).toMatch(SENTENCE);
      expect(shown).not.toMatch(/Invalid input/);
      for (const f of e.fields ?? []) expect(shown).not.toContain(`${f.field}:`);
    },
  );
});
