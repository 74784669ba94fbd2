export { startServer, isLoopbackHost, SERVE_CSP, cookieName, type ServeOptions, type RunningServer } from './server';
