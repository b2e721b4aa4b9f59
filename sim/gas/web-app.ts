/**
 * Web-app executions (developers.google.com/apps-script/guides/web): a POST to the deployment's /exec
 * URL runs `doPost(e)` as the deploying user, with the documented event object —
 * `queryString`, `parameter` (first value of each), `parameters` (every value), `contextPath` (''),
 * `contentLength`, `postData {length, type, contents, name: 'postData'}`. A form-encoded body's fields are
 * request parameters too (Tanaike's echo of the event object, gist a72aab02…). The answer of a
 * TextOutput is not sent on the POST: Apps Script redirects the sender to script.googleusercontent.com,
 * which serves the content (TextOutput reference: "the browser is redirected to googleusercontent.com"),
 * so a sender that does not follow redirects sees a 302 and no JSON.
 *
 * What the sender sees when doPost throws or is killed at 6 minutes is not documented: modelled as an
 * HTML page with status 200 (switch `errorPageStatus`), i.e. no JSON — a sender must treat a body that
 * is not the JSON answer as "retry". Up to 30 executions of one user run at once (quotas page); a
 * wave of more is refused with the documented message, without running.
 */
import type { Emulator } from './index';
import {
  type InterleavedJob,
  type InterleavedResult,
  type Pick,
  runInterleaved,
  type WorkerPool,
} from './interleave';
import type { World } from './world';

export const SIMULTANEOUS_PER_USER = 30;
export const TOO_MANY_SIMULTANEOUS =
  'There are too many scripts running simultaneously for this Google user account.';

export interface WebRequest {
  /** The query string's parameters (e.g. { key }). */
  query?: Record<string, string | string[]>;
  body?: string;
  contentType?: string;
  /** Kill the execution instead of answering its n-th service call (interleaved only). */
  killAtCall?: number;
  /** Virtual ms after the wave starts. */
  startAt?: number;
}

export interface WebResponse {
  status: number;
  contentType: string;
  body: string;
  location?: string;
  /** How the execution ended ('refused': never started, over the simultaneous limit). */
  execution: 'ok' | 'error' | 'killed' | 'refused';
}

export interface WebOptions {
  /** Follow Apps Script's redirect to the output (curl -L, Zapier/Make/n8n follow by default). Default true. */
  followRedirects?: boolean;
  /** Status of the HTML error page a thrown or killed doPost gives (undocumented). Default 200. */
  errorPageStatus?: number;
}

function queryString(query: Record<string, string | string[]>): string {
  return Object.entries(query)
    .flatMap(([k, v]) =>
      (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`),
    )
    .join('&');
}

/** The event object doPost receives (the web-apps guide's table). */
export function webAppEvent(req: WebRequest): Record<string, unknown> {
  const query = req.query ?? {};
  const parameters: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(query)) parameters[k] = Array.isArray(v) ? [...v] : [v];
  const type = req.contentType ?? 'application/json';
  const contents = req.body ?? '';
  if (type.startsWith('application/x-www-form-urlencoded') && contents !== '') {
    for (const part of contents.split('&')) {
      const [k, v = ''] = part.split('=');
      const name = safeDecode(k);
      parameters[name] = [...(parameters[name] ?? []), safeDecode(v)];
    }
  }
  const parameter: Record<string, string> = {};
  for (const [k, v] of Object.entries(parameters)) parameter[k] = v[0];
  const length = Buffer.byteLength(contents, 'utf8');
  const qs = queryString(query);
  return {
    queryString: qs === '' ? null : qs,
    parameter,
    parameters,
    contextPath: '',
    contentLength: length,
    postData: { length, type, contents, name: 'postData' },
  };
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch (_e) {
    return s;
  }
}

const MIME: Record<string, string> = {
  JSON: 'application/json; charset=utf-8',
  TEXT: 'text/plain; charset=utf-8',
  CSV: 'text/csv; charset=utf-8',
  JAVASCRIPT: 'application/javascript; charset=utf-8',
  XML: 'application/xml; charset=utf-8',
  ATOM: 'application/atom+xml; charset=utf-8',
  RSS: 'application/rss+xml; charset=utf-8',
  ICAL: 'text/calendar; charset=utf-8',
  VCARD: 'text/vcard; charset=utf-8',
};

let echoCounter = 0;

/** What the sender receives for an execution that ended so. */
export function webResponse(
  status: 'ok' | 'error' | 'killed',
  value: unknown,
  error: string | undefined,
  options: WebOptions = {},
): WebResponse {
  const errorPage = (message: string): WebResponse => ({
    status: options.errorPageStatus ?? 200,
    contentType: 'text/html; charset=utf-8',
    body: `<!DOCTYPE html><html><head><title>Error</title></head><body><div>${escapeHtml(message)}</div></body></html>`,
    execution: status,
  });
  if (status === 'killed') return errorPage(error ?? 'Exceeded maximum execution time');
  if (status === 'error') return errorPage(`Error: ${error ?? ''}`);
  const out = (value as { $textOutput?: { content: string; mimeType: string } } | null)?.$textOutput;
  if (!out) return errorPage('The script completed but did not return anything.');
  const location = `https://script.googleusercontent.com/macros/echo?user_content_key=sim${++echoCounter}`;
  if (options.followRedirects === false)
    return {
      status: 302,
      contentType: 'text/html; charset=UTF-8',
      body: `<HTML><HEAD><TITLE>Moved Temporarily</TITLE></HEAD><BODY>The document has moved <A HREF="${location}">here</A>.</BODY></HTML>`,
      location,
      execution: 'ok',
    };
  return { status: 200, contentType: MIME[out.mimeType] ?? MIME.TEXT, body: out.content, execution: 'ok' };
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"]/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string,
  );
}

/** One POST, run to its end as one execution of the deploying user (the world's owner). */
export function postToWebApp(emu: Emulator, req: WebRequest, options: WebOptions = {}): WebResponse {
  const result = emu.run('doPost', { kind: 'webapp', user: emu.world.owner, args: [webAppEvent(req)] });
  return webResponse(result.status, result.value, result.error?.message, options);
}

export interface WaveResult {
  responses: WebResponse[];
  executions: (InterleavedResult | null)[];
}

/**
 * A wave of POSTs arriving together: each runs as a doPost execution, interleaved call by call in the
 * order the seed picks (interleave.ts), so the lock is really contended. The first 30 run; the rest of
 * a wave are refused as Apps Script refuses them.
 */
export function postConcurrently(
  world: World,
  requests: readonly WebRequest[],
  pick: Pick,
  options: WebOptions & { pool?: WorkerPool } = {},
): WaveResult {
  const running = requests.slice(0, SIMULTANEOUS_PER_USER);
  const jobs: InterleavedJob[] = running.map((r) => ({
    name: 'doPost',
    kind: 'webapp',
    user: world.owner,
    args: [webAppEvent(r)],
    ...(r.killAtCall ? { killAtCall: r.killAtCall } : {}),
    ...(r.startAt ? { startAt: world.clock.now() + r.startAt } : {}),
  }));
  const results = runInterleaved(world, jobs, pick, { pool: options.pool });
  const responses = results.map((x) => webResponse(x.status, x.value, x.error, options));
  const refused: WebResponse[] = requests.slice(SIMULTANEOUS_PER_USER).map(() => ({
    ...webResponse('error', undefined, TOO_MANY_SIMULTANEOUS, options),
    execution: 'refused' as const,
  }));
  return { responses: [...responses, ...refused], executions: [...results, ...refused.map(() => null)] };
}

/** The JSON answer in a response, or null when the sender got something else (an error page, a 302). */
export function answerOf(res: WebResponse): unknown {
  if (res.status !== 200 || !res.contentType.startsWith('application/json')) return null;
  try {
    return JSON.parse(res.body);
  } catch (_e) {
    return null;
  }
}
