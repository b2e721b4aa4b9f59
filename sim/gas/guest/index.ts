/**
 * Guest bootstrap, run first in every execution's vm context: installs the Apps Script globals,
 * the virtual Date, and `__kichoInvoke`, through which the runner calls entry points by name.
 */
import { decode, encode } from '../protocol';
import { connect } from './channel';
import { makeContentService, TextOutput } from './content';
import { installVirtualDate } from './date';
import { makeUrlFetchApp } from './fetch';
import { makeHtmlService } from './html';
import { makeConsole, makeLogger } from './logger';
import { makeOAuth2 } from './oauth2';
import { makeScriptApp, makeSession } from './script';
import { makeCharts, makeSpreadsheetApp } from './spreadsheet';
import { makeCacheService, makeLockService, makePropertiesService } from './stores';
import { makeUtilities } from './utilities';

type Global = Record<string, unknown>;
const g = globalThis as unknown as Global;

const hostFn = g.__kichoHost as (request: string) => string;
const startTime = g.__kichoStart as number;
delete g.__kichoHost;
delete g.__kichoStart;
connect(hostFn, startTime);
installVirtualDate(g);

const UrlFetchApp = makeUrlFetchApp();
const ScriptApp = makeScriptApp();
const Utilities = makeUtilities();

Object.assign(g, {
  SpreadsheetApp: makeSpreadsheetApp(),
  Charts: makeCharts(),
  LockService: makeLockService(),
  PropertiesService: makePropertiesService(),
  CacheService: makeCacheService(),
  ScriptApp,
  Session: makeSession(),
  UrlFetchApp,
  Utilities,
  HtmlService: makeHtmlService(),
  ContentService: makeContentService(),
  Logger: makeLogger(),
  console: makeConsole(),
  OAuth2: makeOAuth2({
    fetch: (url, options) => UrlFetchApp.fetch(url, options),
    scriptId: () => ScriptApp.getScriptId(),
    stateToken: (method, args, timeout) => {
      let b = ScriptApp.newStateToken().withMethod(method).withTimeout(timeout);
      for (const [k, v] of Object.entries(args)) b = b.withArgument(k, v);
      return b.createToken();
    },
    base64: (text) => Utilities.base64Encode(text),
  }),
});

/** Event objects that hold live Apps Script objects are described by the runner and built here. */
function eventArg(arg: unknown): unknown {
  if (arg && typeof arg === 'object' && (arg as Global).$event === 'open') {
    const { $event: _, ...rest } = arg as Global;
    const SpreadsheetApp = g.SpreadsheetApp as { getActiveSpreadsheet(): unknown };
    const Session = g.Session as { getActiveUser(): unknown };
    return { ...rest, source: SpreadsheetApp.getActiveSpreadsheet(), user: Session.getActiveUser() };
  }
  return arg;
}

/**
 * Calls the global function `name` with JSON arguments; answers JSON so no object crosses realms.
 * Guest exceptions are caught here and reported; the runner decides what a kill means.
 */
g.__kichoInvoke = (name: string, argsJson: string): string => {
  const fn = g[name];
  if (typeof fn !== 'function') {
    return encode({ ok: false, message: `Script function not found: ${name}`, name: 'Exception' });
  }
  try {
    const args = (decode(argsJson) as unknown[]).map(eventArg);
    const value = (fn as (...a: unknown[]) => unknown)(...args);
    // A web app's answer (doGet/doPost) is served by the runner, not serialised as an object.
    return encode({ ok: true, value: value instanceof TextOutput ? value.toWire() : value });
  } catch (e) {
    const err = e as { message?: unknown; name?: unknown; stack?: unknown };
    return encode({
      ok: false,
      message: String(err?.message ?? e),
      name: String(err?.name ?? 'Error'),
      stack: String(err?.stack ?? ''),
    });
  }
};

/** Evaluates source in the context (tests poke at an open execution this way). */
g.__kichoEval = (source: string): string => {
  try {
    // biome-ignore lint/security/noGlobalEval: the emulator's own test hook, run inside the sandboxed context
    const indirectEval = eval;
    return encode({ ok: true, value: indirectEval(source) });
  } catch (e) {
    const err = e as { message?: unknown; name?: unknown };
    return encode({ ok: false, message: String(err?.message ?? e), name: String(err?.name ?? 'Error') });
  }
};
