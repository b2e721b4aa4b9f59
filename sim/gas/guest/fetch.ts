/** UrlFetchApp and HTTPResponse. */
import type { FetchParams, FetchReply } from '../services/fetch';
import { call } from './channel';
import { base64ToBytes, signed, utf8Decode } from './codec';
import { Blob } from './utilities';

class HTTPResponse {
  private readonly bytes: number[];
  constructor(private readonly reply: FetchReply) {
    this.bytes = base64ToBytes(reply.body);
  }
  getResponseCode(): number {
    return this.reply.status;
  }
  getContentText(charset?: string): string {
    if (!charset || /^utf-?8$/i.test(charset)) return utf8Decode(this.bytes);
    return call<string>('utilities', 'decode', signed(this.bytes), charset);
  }
  getContent(): number[] {
    return signed(this.bytes);
  }
  getBlob(): Blob {
    const type = this.getHeaders()['Content-Type'] ?? this.getHeaders()['content-type'] ?? null;
    return new Blob(signed(this.bytes), typeof type === 'string' ? type : null);
  }
  getAs(contentType: string): Blob {
    return this.getBlob().setContentType(contentType);
  }
  getHeaders(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(this.reply.headers)) out[k] = Array.isArray(v) ? v[v.length - 1] : v;
    return out;
  }
  getAllHeaders(): Record<string, string | string[]> {
    return { ...this.reply.headers };
  }
}

type Options = Omit<FetchParams, 'url' | 'payload'> & { payload?: unknown };

function params(url: string, options: Options = {}): FetchParams {
  const { payload, ...rest } = options;
  let p: FetchParams['payload'];
  if (payload instanceof Blob) p = { bytes: payload.getBytes() };
  else if (Array.isArray(payload)) p = { bytes: payload as number[] };
  else p = payload as FetchParams['payload'];
  return { ...rest, url, payload: p };
}

export function makeUrlFetchApp() {
  return {
    fetch: (url: string, options?: Options) =>
      new HTTPResponse(call<FetchReply>('fetch', 'fetch', params(url, options))),
    fetchAll: (requests: (string | (Options & { url: string }))[]) =>
      call<FetchReply[]>(
        'fetch',
        'fetchAll',
        requests.map((r) => (typeof r === 'string' ? params(r) : params(r.url, r))),
      ).map((reply) => new HTTPResponse(reply)),
    getRequest: (url: string, options?: Options) => call('fetch', 'getRequest', params(url, options)),
  };
}
