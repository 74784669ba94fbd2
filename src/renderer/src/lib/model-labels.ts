/**
 * How the app names the default chat model wherever a chat model is picked, so "Default" always
 * says what it is: the model a question uses when none is picked (set in Settings → Models), or
 * that none is installed and answers are the passages found.
 */
import type { ModelsList } from '../../../shared/contract/models';

/**
 * The "Default" choice of a chat-model picker, from models.list (null: not loaded yet): the model
 * set for this computer outside the app, else the default chat model, else none.
 */
export function defaultChatChoice(list: Pick<ModelsList, 'defaultChatModel' | 'chatModelOverride'> | null): string {
  if (!list) return 'Default';
  if (list.chatModelOverride) return `Default — ${list.chatModelOverride} (set for this computer)`;
  return list.defaultChatModel ? `Default — ${list.defaultChatModel} (set in Settings)` : 'Default: none installed — answers list the passages found';
}

/** Settings → Models: what the default chat model does, in a sentence or two. */
export function defaultChatHelp(list: Pick<ModelsList, 'defaultChatModel' | 'chatModelOverride'>): string {
  if (list.chatModelOverride) {
    return `Questions are answered by ${list.chatModelOverride}, set for this computer outside the app (CASEFILE_CHAT_MODEL), unless you pick another in the chat’s “Model” menu; the default chosen here applies once that setting is removed.`;
  }
  const id = list.defaultChatModel;
  return id
    ? `Questions are answered by the default chat model, ${id}, unless you pick another in the chat’s “Model” menu, where it is the “Default — ${id}” choice. Make another chat model the default with its “Make default” button.`
    : 'No chat model is installed: questions are answered with the passages found, quoted, without a model. Import a chat model below to get written answers.';
}
