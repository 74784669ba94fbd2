import type { CasefileBridge } from '../shared/bridge';

declare global {
  interface Window {
    /** Present in the Electron app only; serve mode uses HTTP. */
    casefile?: CasefileBridge;
  }
}
