/**
 * The ports the MF client needs, so it runs the same over UrlFetchApp (src/gas) and in unit tests.
 */
export interface HttpRequest {
  method: 'get' | 'post' | 'put' | 'delete';
  url: string;
  headers: Record<string, string>;
  /** JSON text or form-encoded text. */
  payload?: string;
  contentType?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A request whose outcome is unknown (timeout, connection failure): the server may have acted on it. */
export class HttpTransportError extends Error {
  constructor(
    readonly reason: 'timeout' | 'network',
    message: string,
  ) {
    super(message);
    this.name = 'HttpTransportError';
  }
}

/** Sends one request; HTTP error statuses are returned, transport failures throw HttpTransportError. */
export interface HttpPort {
  send(request: HttpRequest): HttpResponse;
}

export interface ClockPort {
  now(): number;
  sleep(ms: number): void;
}

/** A small string store (Apps Script properties) for cached tokens. */
export interface KeyValuePort {
  get(key: string): string | null;
  set(key: string, value: string): void;
  delete(key: string): void;
}

/**
 * Apps Script refused the request before anything left (a permission not granted, the day's UrlFetch
 * calls or bandwidth spent): the server never saw it, so it is safe to send again later. `message` is
 * Japanese and quotes nothing from the request.
 */
export class HttpNotSentError extends Error {
  constructor(
    readonly reason: 'permission' | 'quota' | 'bandwidth',
    message: string,
  ) {
    super(message);
    this.name = 'HttpNotSentError';
  }
}
