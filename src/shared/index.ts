export * from './contract/index';
export * from './events';
export * from './errors';
export * from './validate';
export * from './citation-text';
