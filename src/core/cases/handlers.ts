import type { Engine } from '../engine';
import type { HandlerMap } from '../router/router';

export function caseHandlers(engine: Engine): HandlerMap {
  const { cases, events } = engine;
  return {
    'app.info': async () => ({ name: 'casefile', version: engine.version, home: engine.home }),
    'cases.list': async ({ query }) => ({ cases: await cases.list(query) }),
    'cases.get': async ({ caseId }) => cases.get(caseId),
    'cases.create': async ({ name }) => {
      const created = await cases.create(name);
      events.emit('cases.changed', { caseId: created.id, kind: 'created' });
      return created;
    },
    'cases.rename': async ({ caseId, name }) => {
      const renamed = await cases.rename(caseId, name);
      events.emit('cases.changed', { caseId, kind: 'renamed' });
      return renamed;
    },
    'cases.delete': async ({ caseId }) => {
      await engine.beforeCaseDelete(caseId);
      await cases.delete(caseId);
      events.emit('cases.changed', { caseId, kind: 'deleted' });
      return { id: caseId, deleted: true as const };
    },
  };
}
