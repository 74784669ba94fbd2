/** The chat-model picker's "Default" choice says what it is (#16). */
import { describe, expect, it } from 'vitest';
import { defaultChatChoice, defaultChatHelp } from '../../src/renderer/src/lib/model-labels';

describe('defaultChatChoice – the "Default" choice names the model a question uses', () => {
  it('the default chat model, one set for the computer, none installed, not loaded yet', () => {
    expect(defaultChatChoice({ defaultChatModel: 'smollm2-135m-instruct' })).toBe('Default — smollm2-135m-instruct (set in Settings)');
    expect(defaultChatChoice({ defaultChatModel: 'smollm2-135m-instruct', chatModelOverride: 'qwen2.5-1.5b' })).toBe('Default — qwen2.5-1.5b (set for this computer)');
    expect(defaultChatChoice({ defaultChatModel: null })).toBe('Default: none installed — answers list the passages found');
    expect(defaultChatChoice(null)).toBe('Default');
  });

  it('the Settings help names the same model, in sentences', () => {
    for (const list of [{ defaultChatModel: 'stories260K' }, { defaultChatModel: null }, { defaultChatModel: 'a', chatModelOverride: 'b' }]) {
      expect(defaultChatHelp(list)).toMatch(/^[A-Z].*\.$/);
    }
    expect(defaultChatHelp({ defaultChatModel: 'stories260K' })).toContain('“Default — stories260K” choice');
  });
});
