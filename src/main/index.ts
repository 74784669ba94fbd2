/**
 * Electron main process: window, menu, lifecycle, and the IPC binding of the engine's router.
 * No business logic lives here — everything is a router call into src/core.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  app,
  BrowserWindow,
  dialog,
  ipcMain,
  Menu,
  safeStorage,
  screen,
  session,
  shell,
  type MenuItemConstructorOptions,
} from 'electron';
import { Engine } from '../core/engine';
import { applyOfflineEnv } from '../core/util/offline-env';
import {
  IPC_CHOOSE_FOLDER,
  IPC_CHOOSE_MATTER,
  IPC_CHOOSE_MODEL,
  IPC_EVENT,
  IPC_INVOKE,
  IPC_OPEN_ORIGINAL,
  type Result,
} from '../shared/bridge';
import { chooseMatterPath, type SaveDialog } from './choose-matter';
import { chooseFolderPath, chooseModelPath, type OpenDialog } from './choose-model';
import { followDroppedFolders } from './follow-dropped';
import { openedCopies, openOriginalInSystemViewer } from './open-original';
import { KeychainPasswords } from './passwords';
import { toApiError } from '../shared/errors';
import {
  CONTENT_SECURITY_POLICY,
  DEV_CONTENT_SECURITY_POLICY,
  isAllowedNavigation,
  isAllowedRequest,
  isTrustedSender,
  secureWebPreferences,
} from './security';
import { loadWindowState, saveWindowState } from './window-state';

// First thing the app does: onnxruntime's telemetry off in the real environment, which the
// embedding worker thread and every utility or child process read (see offline-env.ts).
applyOfflineEnv();

const here = path.dirname(fileURLToPath(import.meta.url));
const devServerUrl = process.env.ELECTRON_RENDERER_URL;
const rendererIndex = path.join(here, '../renderer/index.html');
const appUrl = devServerUrl ?? pathToFileURL(rendererIndex).href;

let engine: Engine | undefined;
let mainWindow: BrowserWindow | null = null;

function bundledModelDirs(): string[] {
  const candidates = app.isPackaged
    ? [path.join(process.resourcesPath, 'models')]
    : [path.join(app.getAppPath(), 'models')];
  return candidates.filter((d) => existsSync(d));
}

function applySecurity(): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  ses.webRequest.onBeforeRequest((details, callback) => callback({ cancel: !isAllowedRequest(details.url, appUrl) }));
  // Reaches pages served over http(s) only (the development server): the built page, a file:// page
  // that gets no headers, carries the policy in a <meta> element (cspMetaPlugin, electron.vite.config.ts).
  const policy = devServerUrl ? DEV_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY;
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] },
    });
  });
  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event, url) => {
      if (!isAllowedNavigation(url, appUrl)) event.preventDefault();
    });
    contents.on('will-redirect', (event, url) => {
      if (!isAllowedNavigation(url, appUrl)) event.preventDefault();
    });
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}

function bindRouter(eng: Engine): void {
  ipcMain.handle(IPC_INVOKE, async (event, name: unknown, input: unknown): Promise<Result<unknown>> => {
    if (!isTrustedSender(event.senderFrame?.url, appUrl)) {
      return { ok: false, error: { code: 'invalid_input', message: 'Request from an untrusted page was refused.' } };
    }
    try {
      const value = await eng.router.call(String(name), input);
      // A folder dropped into a case is followed from now on (switchable per case).
      if (name === 'ingest.start')
        void followDroppedFolders(eng, input, value).catch((err: unknown) =>
          console.error(`casefile: following the dropped folder failed: ${(err as Error).message}`),
        );
      return { ok: true, value };
    } catch (err) {
      return { ok: false, error: toApiError(err) };
    }
  });
  ipcMain.handle(IPC_OPEN_ORIGINAL, async (event, input: unknown): Promise<Result<{ opened: true }>> => {
    if (!isTrustedSender(event.senderFrame?.url, appUrl)) {
      return { ok: false, error: { code: 'invalid_input', message: 'Request from an untrusted page was refused.' } };
    }
    try {
      return { ok: true, value: await openOriginalInSystemViewer(eng, input, (file) => shell.openPath(file)) };
    } catch (err) {
      return { ok: false, error: toApiError(err) };
    }
  });
  // The system's dialogs (a model to import, a folder to follow, a matter file): the page's request is checked in choose-*.ts.
  const dialogs: [string, (input: unknown, open: OpenDialog, save: SaveDialog) => Promise<{ path: string | null }>][] =
    [
      [IPC_CHOOSE_MODEL, chooseModelPath],
      [IPC_CHOOSE_FOLDER, chooseFolderPath],
      [IPC_CHOOSE_MATTER, (input, open, save) => chooseMatterPath(input, { open, save })],
    ];
  for (const [channel, choose] of dialogs) {
    ipcMain.handle(channel, async (event, input: unknown): Promise<Result<{ path: string | null }>> => {
      if (!isTrustedSender(event.senderFrame?.url, appUrl)) {
        return { ok: false, error: { code: 'invalid_input', message: 'Request from an untrusted page was refused.' } };
      }
      try {
        const win = BrowserWindow.fromWebContents(event.sender);
        return {
          ok: true,
          value: await choose(
            input,
            (options) => (win ? dialog.showOpenDialog(win, options) : dialog.showOpenDialog(options)),
            (options) => (win ? dialog.showSaveDialog(win, options) : dialog.showSaveDialog(options)),
          ),
        };
      } catch (err) {
        return { ok: false, error: toApiError(err) };
      }
    });
  }
  eng.events.onAny((envelope) => {
    for (const win of BrowserWindow.getAllWindows()) {
      if (!win.isDestroyed()) win.webContents.send(IPC_EVENT, envelope);
    }
  });
}

function createWindow(): BrowserWindow {
  const stateFile = path.join(app.getPath('userData'), 'window-state.json');
  const state = loadWindowState(stateFile);
  const visible =
    state.x !== undefined &&
    state.y !== undefined &&
    screen.getAllDisplays().some((d) => {
      const b = d.workArea;
      return state.x! >= b.x - 50 && state.y! >= b.y - 50 && state.x! < b.x + b.width && state.y! < b.y + b.height;
    });
  const win = new BrowserWindow({
    ...(visible ? { x: state.x, y: state.y } : {}),
    width: state.width,
    height: state.height,
    minWidth: 900,
    minHeight: 600,
    show: false,
    title: 'Casefile',
    backgroundColor: '#1f2329',
    webPreferences: secureWebPreferences(path.join(here, '../preload/index.cjs')),
  });
  if (state.maximized) win.maximize();
  win.once('ready-to-show', () => win.show());
  const persist = () => {
    if (win.isDestroyed()) return;
    const b = win.getNormalBounds();
    void saveWindowState(stateFile, { x: b.x, y: b.y, width: b.width, height: b.height, maximized: win.isMaximized() });
  };
  win.on('close', persist);
  if (devServerUrl) void win.loadURL(devServerUrl);
  else void win.loadFile(rendererIndex);
  return win;
}

function buildMenu(): void {
  const isMac = process.platform === 'darwin';
  // Menu items replay the renderer's own keyboard shortcut, so there is one code path and no extra IPC channel.
  const shortcut = (key: string) => () => {
    const modifiers: ('meta' | 'control')[] = [isMac ? 'meta' : 'control'];
    mainWindow?.webContents.sendInputEvent({ type: 'keyDown', keyCode: key, modifiers });
  };
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        { label: 'New Case…', click: shortcut('N') },
        { label: 'Find Case…', click: shortcut('K') },
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [{ label: 'Open Data Folder', click: () => engine && void shell.openPath(engine.home) }],
    },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (mainWindow) {
      if (mainWindow.isMinimized()) mainWindow.restore();
      mainWindow.focus();
    }
  });
  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit();
  });
  let quitting = false;
  app.on('before-quit', (event) => {
    if (quitting || !engine) return;
    // Graceful quit: let the engine persist jobs and close tables first.
    event.preventDefault();
    quitting = true;
    // The copies opened in the system viewer go too: they are private, but they are copies of the case.
    void Promise.allSettled([engine.close(), openedCopies.clear()]).finally(() => app.quit());
  });
  void app.whenReady().then(async () => {
    applySecurity();
    // Copies a killed run opened in the system viewer never reached its quit: they go now.
    void openedCopies.sweep();
    const home = process.env.CASEFILE_HOME || app.getPath('userData');
    engine = await Engine.open({
      // CASEFILE_HOME lets tests (and power users) point the app at another data folder.
      home,
      // Passwords of protected PDFs, encrypted by the system keychain.
      passwords: new KeychainPasswords(home, safeStorage),
      bundledModelDirs: bundledModelDirs(),
      // The worker is its own electron-vite main entry; unfinished ingests resume at start.
      ingest: { workerPath: path.join(here, 'ingest-worker.js'), autoResume: true },
      // Cases that follow their folders catch up with what changed while the app was closed.
      watch: { start: true },
    });
    bindRouter(engine);
    // Cases whose passages wait for vectors (made before a model was installed) catch up in the background.
    void engine
      .startVectorCatchUp()
      .catch((err: unknown) =>
        console.error(`casefile: catching up the cases' vectors failed: ${(err as Error).message}`),
      );
    buildMenu();
    mainWindow = createWindow();
    app.on('activate', () => {
      if (BrowserWindow.getAllWindows().length === 0) mainWindow = createWindow();
    });
  });
}
