/** The registry of emulated services: service name → method name → handler. */
import type { ExecutionState, ServiceKind, World } from '../world';
import { CACHE_SERVICE } from './cache';
import { FETCH_SERVICE } from './fetch';
import { HTML_SERVICE } from './html';
import { LOCK_SERVICE } from './lock';
import { LOG_SERVICE } from './log';
import { PROPERTIES_SERVICE } from './properties';
import { SCRIPT_SERVICE } from './script';
import { SESSION_SERVICE } from './session';
import { SHEETS_SERVICE } from './sheets';
import { UI_SERVICE } from './ui';
import { UTILITIES_SERVICE } from './utilities';

export interface ServiceContext {
  world: World;
  exec: ExecutionState;
}

export interface ServiceMethod {
  kind: ServiceKind;
  // biome-ignore lint/suspicious/noExplicitAny: arguments arrive as decoded JSON from the guest
  fn: (ctx: ServiceContext, ...args: any[]) => unknown;
}

export type ServiceTable = Record<string, ServiceMethod>;

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

/** Shorthand for declaring a method. */
export function method(kind: ServiceKind, fn: ServiceMethod['fn']): ServiceMethod {
  return { kind, fn };
}
