/** The registry of emulated services: service name → method name → handler. */
import { CACHE_SERVICE } from './cache';
import { FETCH_SERVICE } from './fetch';
import { HTML_SERVICE } from './html';
import { LOCK_SERVICE } from './lock';
import { LOG_SERVICE } from './log';
import type { ServiceTable } from './method';
import { PROPERTIES_SERVICE } from './properties';
import { SCRIPT_SERVICE } from './script';
import { SESSION_SERVICE } from './session';
import { SHEETS_SERVICE } from './sheets';
import { UI_SERVICE } from './ui';
import { UTILITIES_SERVICE } from './utilities';

export type { ServiceContext, ServiceMethod, ServiceTable } from './method';

export const SERVICES: Record<string, ServiceTable> = {
  sheets: SHEETS_SERVICE,
  ui: UI_SERVICE,
  lock: LOCK_SERVICE,
  properties: PROPERTIES_SERVICE,
  cache: CACHE_SERVICE,
  script: SCRIPT_SERVICE,
  session: SESSION_SERVICE,
  fetch: FETCH_SERVICE,
  utilities: UTILITIES_SERVICE,
  html: HTML_SERVICE,
  log: LOG_SERVICE,
};
