import { afterAll, describe, expect, it } from 'vitest';
import { RemoteEmbedder, sharedEmbedHost } from '../../src/core/retrieval/embed-host';
import type { EmbeddingCatalog } from '../../src/core/retrieval/models';
import { QueryModels, RECENT_QUERIES } from '../../src/core/retrieval/semantic';
import { MINILM_ID, testModels } from '../helpers/models';

// The real model in the real embedding worker; the worker's count of texts it embedded tells
// whether a query was made again or reused.
describe('query vectors', () => {
  const embedder = new RemoteEmbedder({ id: MINILM_ID, dir: testModels().miniLmDir });
  // Only embedQuery is used here: no model is looked up in a catalog.
  const models = new QueryModels({} as EmbeddingCatalog);
  const host = sharedEmbedHost();
  const embedded = async () => (await host.stats()).texts;
  afterAll(async () => {
    await models.dispose();
    await embedder.dispose();
  });

  it('a question asked again reuses its vector, the same one the model makes', async () => {
    const question = 'Which state’s law governs the agreement?';
    const before = await embedded();
    const first = await models.embedQuery(embedder, question);
    const again = await models.embedQuery(embedder, question);
    expect(await embedded()).toBe(before + 1);
    expect(Array.from(again)).toEqual(Array.from(first));
    expect(Array.from(first)).toEqual(Array.from(await embedder.embedOne(question)));
  });

  it(`keeps the latest ${RECENT_QUERIES} questions: the oldest is made again after that many others`, async () => {
    const oldest = 'How long does the confidentiality obligation last?';
    await models.embedQuery(embedder, oldest);
    for (let i = 0; i < RECENT_QUERIES; i++)
      await models.embedQuery(embedder, `Question ${i} about the termination notice period`);
    const before = await embedded();
    await models.embedQuery(embedder, oldest);
    expect(await embedded()).toBe(before + 1);
  });

  it('a cancelled query is not kept: asked again, it is made', async () => {
    const question = 'Who may assign the contract without consent?';
    const ctrl = new AbortController();
    ctrl.abort();
    await expect(models.embedQuery(embedder, question, ctrl.signal)).rejects.toMatchObject({ name: 'AbortError' });
    const before = await embedded();
    await models.embedQuery(embedder, question);
    expect(await embedded()).toBe(before + 1);
  });
});
