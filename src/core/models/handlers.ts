import type { Engine } from '../engine';
import type { HandlerMap } from '../router/router';
import { ModelRegistry } from './registry';

/** The model registry of an engine: `<home>/models` plus the app's bundled model folders. */
export function modelRegistryOf(engine: Engine): ModelRegistry {
  return new ModelRegistry({
    modelsDir: engine.modelsDir,
    bundledModelDirs: engine.bundledModelDirs,
    casesDir: engine.cases.casesDir,
  });
}

export function modelHandlers(engine: Engine): HandlerMap {
  const registry = modelRegistryOf(engine);
  return {
    'models.list': async ({ kind }) => registry.list(kind),
    'models.import': async ({ path, id, mode }, { signal }) => {
      const result = await registry.import(path, { ...(id ? { id } : {}), mode, signal });
      if (!result.alreadyInstalled) engine.events.emit('models.changed', { modelId: result.model.id, kind: 'imported' });
      return result;
    },
    'models.download': async ({ source, id, sha256 }, { signal }) => {
      const result = await registry.download(source, {
        ...(id ? { id } : {}),
        ...(sha256 ? { sha256 } : {}),
        signal,
        onProgress: (modelId, p) => engine.events.emit('models.progress', { modelId, ...p }),
      });
      if (!result.alreadyInstalled) engine.events.emit('models.changed', { modelId: result.model.id, kind: 'imported' });
      return result;
    },
    'models.setDefault': async ({ modelId }) => {
      const list = await registry.setDefault(modelId);
      engine.events.emit('models.changed', { modelId, kind: 'default' });
      return list;
    },
  };
}
