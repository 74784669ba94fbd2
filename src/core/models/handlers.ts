import type { EventsPort, ModelCatalogPort } from '../ports';
import type { HandlerMap } from '../router/router';

/**
 * The `models.*` operations over the engine's model catalog. `chat_model_override`: the chat model
 * the environment sets for questions that name none (it wins over the default set in the app).
 */
export async function modelHandlers(
  ports: ModelCatalogPort & { events: EventsPort },
  chatModelOverride?: string,
): Promise<HandlerMap> {
  const registry = await ports.catalog();
  const { events } = ports;
  return {
    'models.list': async ({ kind }) => ({
      ...(await registry.list(kind)),
      ...(chatModelOverride ? { chat_model_override: chatModelOverride } : {}),
    }),
    'models.import': async ({ path, id, mode }, { signal }) => {
      const result = await registry.import(path, { ...(id ? { id } : {}), mode, signal });
      if (!result.already_installed) events.emit('models.changed', { model_id: result.model.id, kind: 'imported' });
      return result;
    },
    'models.download': async ({ source, id, sha256 }, { signal }) => {
      const result = await registry.download(source, {
        ...(id ? { id } : {}),
        ...(sha256 ? { sha256 } : {}),
        signal,
        onProgress: (modelId, p) => events.emit('models.progress', { model_id: modelId, ...p }),
      });
      if (!result.already_installed) events.emit('models.changed', { model_id: result.model.id, kind: 'imported' });
      return result;
    },
    'models.setDefault': async ({ model_id: modelId }) => {
      const list = await registry.setDefault(modelId);
      events.emit('models.changed', { model_id: modelId, kind: 'default' });
      return { ...list, ...(chatModelOverride ? { chat_model_override: chatModelOverride } : {}) };
    },
  };
}
