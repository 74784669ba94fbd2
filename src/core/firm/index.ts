/** A firm server's accounts and matter membership (`<home>/firm/`), password hashing, and the `firm.*` ops. */
export { FirmStore } from './store';
export { firmHandlers } from './handlers';
