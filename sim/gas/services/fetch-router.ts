/**
 * Where UrlFetchApp's requests go: in-process handlers by host (the fake MF, AI fakes), or a real
 * HTTP server on loopback (the fake MF started by `npm start`). Nothing else is reachable.
 */
import type { HttpRequest, HttpResponse } from '../../mf/types';

export type FetchHandler = (req: HttpRequest) => HttpResponse;

export interface FetchRecord {
  exec: number;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  status?: number;
  error?: string;
  /** Whether the calling execution held the script lock during the request (it never should). */
  heldScriptLock: boolean;
}

export class FetchRouter {
  private readonly handlers = new Map<string, FetchHandler>();
  readonly log: FetchRecord[] = [];
  /** Allow real HTTP to 127.0.0.0/8, localhost and ::1 (off by default: tests stay in-process). */
  allowLoopback = false;
  /** The next N requests are refused with Apps Script's bandwidth message (nothing is sent). */
  bandwidthExceeded = 0;

  /** Routes requests for `host` (e.g. `api-accounting.moneyforward.com`, or `*` for any host) to `handler`. */
  route(host: string, handler: FetchHandler): void {
    this.handlers.set(host.toLowerCase(), handler);
  }

  handlerFor(host: string): FetchHandler | undefined {
    return this.handlers.get(host.toLowerCase()) ?? this.handlers.get('*');
  }
}
