import type { Engine } from '../../core/engine';
import { UsageError, type CliIO } from '../io';
import type { Parsed } from './cases';

const DEFAULT_PORT = 7411;

/**
 * `casefile serve [--port N] [--host 127.0.0.1] [--allow-remote]`: the app in a browser on this
 * machine. Prints the sign-in URL (with its one-time token) and runs until Ctrl+C / SIGTERM.
 */
export async function serveCommand(engine: Engine, args: Parsed, io: CliIO): Promise<number> {
  if (args.positionals.length) throw new UsageError('serve takes no arguments, only --port, --host and --allow-remote');
  const { isLoopbackHost, startServer } = await import('../../server/server');
  const portFlag = args.values.port;
  const port = portFlag === undefined ? DEFAULT_PORT : Number(portFlag);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${String(portFlag)}"`);
  const host = typeof args.values.host === 'string' ? args.values.host : '127.0.0.1';
  const allowRemote = args.values['allow-remote'] === true;
  if (!isLoopbackHost(host) && !allowRemote) {
    throw new UsageError(`--host ${host} would expose your cases to the network; add --allow-remote if you really mean it`);
  }
  const server = await startServer({ engine, host, port, allowRemote });
  if (!isLoopbackHost(host)) {
    io.err(
      `WARNING: listening on ${host}: anyone who can reach this address and has the token can read every case in ${engine.home}. Traffic is not encrypted.`,
    );
  }
  if (args.values.json === true) {
    io.out(JSON.stringify({ url: server.url, loginUrl: server.loginUrl, token: server.token, port: server.port, home: engine.home }));
  } else {
    io.out(`Casefile is serving ${engine.home}`);
    io.out(`Open: ${server.loginUrl}`);
    io.out(`Token: ${server.token}   (API clients: Authorization: Bearer <token>)`);
    io.out('Press Ctrl+C to stop.');
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await server.close();
  return 0;
}
