import os from 'node:os';
import path from 'node:path';

/** The same folder Electron uses as userData for the app named "Casefile". */
export function defaultHome(): string {
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Casefile');
    case 'win32':
      return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Casefile');
    default:
      return path.join(process.env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'Casefile');
  }
}

/** `--home` wins, then CASEFILE_HOME, then the app's own data folder. */
export function resolveHome(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(flag ?? env.CASEFILE_HOME ?? defaultHome());
}
