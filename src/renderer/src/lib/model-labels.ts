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
export function defaultChatChoice(list: Pick<ModelsList, 'default_chat_model' | 'chat_model_override'> | null): string {
  if (!list) return 'Default';
  if (list.chat_model_override) return `Default — ${list.chat_model_override} (set for this computer)`;
  return list.default_chat_model
    ? `Default — ${list.default_chat_model} (set in Settings)`
    : 'Default: none installed — answers list the passages found';
}

/** Settings → Models: what the default chat model does, in a sentence or two. */
export function defaultChatHelp(list: Pick<ModelsList, 'default_chat_model' | 'chat_model_override'>): string {
  if (list.chat_model_override) {
    return `Questions are answered by ${list.chat_model_override}, set for this computer outside the app (CASEFILE_CHAT_MODEL), unless you pick another in the chat’s “Model” menu; the default chosen here applies once that setting is removed.`;
  }
  const id = list.default_chat_model;
  return id
    ? `Questions are answered by the default chat model, ${id}, unless you pick another in the chat’s “Model” menu, where it is the “Default — ${id}” choice. Make another chat model the default with its “Make default” button.`
    : 'No chat model is installed: questions are answered with the passages found, quoted, without a model. Import a chat model below to get written answers.';
}
