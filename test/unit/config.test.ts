import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/core/config';
import { Engine } from '../../src/core/engine';
import { tempHome } from '../helpers/home';

describe('settings from the environment (config.ts)', () => {
  it('reads each variable into its setting; unset or nonsense values leave the default', () => {
    const c = readConfig({
      CASEFILE_MAX_PAGES: '50',
      CASEFILE_PARSE_MEMORY_MB: '700',
      CASEFILE_LLAMA_CONTEXT: '4096',
      CASEFILE_LLAMA_THREADS: 'many',
      CASEFILE_AGENT_MAX_TOKENS: '300',
      CASEFILE_CHAT_MODEL: 'smollm2',
      CASEFILE_ENDPOINT_URL: 'http://127.0.0.1:8080/v1',
      CASEFILE_ENDPOINT_TOOLS: '0',
      HF_ENDPOINT: 'http://mirror.local/',
      CASEFILE_EMBED_THREADS: '2',
    });
    expect(c.limits).toEqual({ maxPages: 50, maxParseMemoryBytes: 700 * 1024 * 1024 });
    expect(c.llama).toEqual({ contextSize: 4096 });
    expect(c).toMatchObject({ agentMaxTokens: 300, defaultChatModel: 'smollm2', embedThreads: 2, pdfjsVerbose: false });
    expect(c.endpoint).toEqual({ baseURL: 'http://127.0.0.1:8080/v1', structuredOutputs: false, toolCalling: false });
    expect(c.hub).toEqual({ endpoint: 'http://mirror.local' });
    expect(readConfig({})).toEqual({
      limits: {},
      llama: {},
      hub: { endpoint: 'https://huggingface.co' },
      pdfjsVerbose: false,
      ocr: true,
    });
    // OCR of scanned pages is on unless CASEFILE_OCR=0 turns it off everywhere.
    expect(readConfig({ CASEFILE_OCR: '1' }).ocr).toBe(true);
    expect(readConfig({ CASEFILE_OCR: '0' }).ocr).toBe(false);
    // A scripted model (tests, demos) wins over the configured chat model.
    expect(readConfig({ CASEFILE_SCRIPTED_MODEL: '/tmp/s.json', CASEFILE_CHAT_MODEL: 'x' }).defaultChatModel).toBe(
      'scripted:/tmp/s.json',
    );
  });

  it('the engine passes them down, under explicit options', async () => {
    const engine = await Engine.open({
      home: tempHome(),
      env: { CASEFILE_MAX_PAGES: '50', CASEFILE_PAGE_TIMEOUT_S: '9' },
      ingest: { limits: { maxPages: 7 } },
    });
    try {
      const ingest = await engine.ingestService();
      expect(ingest.limits).toMatchObject({ maxPages: 7, pageTimeoutMs: 9000 });
    } finally {
      await engine.close();
    }
  });
});
