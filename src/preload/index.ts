import { contextBridge, ipcRenderer, webUtils } from 'electron';
import { buildBridge } from './bridge';

contextBridge.exposeInMainWorld('casefile', buildBridge(ipcRenderer, webUtils));
