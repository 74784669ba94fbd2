import type { HandlerMap } from '../router/router';
import { exportCase } from './export';
import { importMatter } from './import';
import type { MatterPorts } from './ports';

/** The `cases.export` and `cases.import` ops. */
export function matterHandlers(ports: MatterPorts): HandlerMap {
  return {
    'cases.export': async ({ case_id: caseId, out, passphrase }) => exportCase(ports, caseId, out, passphrase),
    'cases.import': async ({ path, passphrase }) => importMatter(ports, path, passphrase),
  };
}
