export { Engine, type EngineOptions } from './engine';
export { Router, type CallContext, type Handler, type HandlerMap } from './router/router';
