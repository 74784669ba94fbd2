import { create } from 'zustand';
import type { OpOutput } from '../../../shared/contract/index';
import type { ModelsList } from '../../../shared/contract/models';
import { api, errorMessage } from '../api/index';

interface ModelsState {
  /** The installed and recommended models, the defaults and where models are kept; null until first loaded. */
  list: ModelsList | null;
  error: string | null;
  load(): Promise<void>;
  /** Make a model the default (for questions, or for new cases' embeddings); the list updates. */
  setDefault(modelId: string): Promise<void>;
  /** Check and import the model at a path (a file or a folder). */
  importModel(path: string): Promise<OpOutput<'models.import'>>;
  /** Download a model from a web address or a Hugging Face name (progress arrives as events). */
  download(source: string): Promise<OpOutput<'models.download'>>;
}

export const useModels = create<ModelsState>((set) => ({
  list: null,
  error: null,
  async load() {
    try {
      set({ list: await api.call('models.list', {}), error: null });
    } catch (err) {
      set({ error: errorMessage(err) });
    }
  },
  async setDefault(modelId) {
    set({ list: await api.call('models.setDefault', { model_id: modelId }) });
  },
  importModel(path) {
    return api.call('models.import', { path });
  },
  download(source) {
    return api.call('models.download', { source });
  },
}));
