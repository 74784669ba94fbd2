/** The chat-model picker's "Default" choice says what it is (#16). */
import { describe, expect, it } from 'vitest';
import { defaultChatChoice, defaultChatHelp } from '../../src/renderer/src/lib/model-labels';

describe('defaultChatChoice – the "Default" choice names the model a question uses', () => {
  it('the default chat model, one set for the computer, none installed, not loaded yet', () => {
    expect(defaultChatChoice({ default_chat_model: 'smollm2-135m-instruct' })).toBe(
      'Default — smollm2-135m-instruct (set in Settings)',
    );
    expect(
      defaultChatChoice({ default_chat_model: 'smollm2-135m-instruct', chat_model_override: 'qwen2.5-1.5b' }),
    ).toBe('Default — qwen2.5-1.5b (set for this computer)');
    expect(defaultChatChoice({ default_chat_model: null })).toBe(
      'Default: none installed — answers list the passages found',
    );
    expect(defaultChatChoice(null)).toBe('Default');
  });

  it('the Settings help names the same model, in sentences', () => {
    for (const list of [
      { default_chat_model: 'stories260K' },
      { default_chat_model: null },
      { default_chat_model: 'a', chat_model_override: 'b' },
    ]) {
      expect(defaultChatHelp(list)).toMatch(/^[A-Z].*\.$/);
    }
    expect(defaultChatHelp({ default_chat_model: 'stories260K' })).toContain('“Default — stories260K” choice');
  });
});
