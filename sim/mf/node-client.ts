// The project's own MF client, run in Node against a fake MF over loopback HTTP (the demo uses it to
// check what MF holds at the end). Same code as in the bundle; only the ports differ.

import { type HttpPort, HttpTransportError, type KeyValuePort } from '../../src/core/ports';
import { ApiKeyAuth } from '../../src/mf/auth';
import { MfClient } from '../../src/mf/client';
import { syncHttpRequest } from '../gas/lib/sync-http';

const sleeper = new Int32Array(new SharedArrayBuffer(4));

export function nodeMfClient(baseUrl: string, apiKey: string, officeCode: string): MfClient {
  const http: HttpPort = {
    send(req) {
      const out = syncHttpRequest({
        method: req.method.toUpperCase(),
        url: req.url,
        headers: req.headers,
        body: req.payload,
      });
      if ('error' in out)
        throw new HttpTransportError(out.error === 'timeout' ? 'timeout' : 'network', out.message);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(out.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      return { status: out.status, headers, body: Buffer.from(out.body).toString('utf8') };
    },
  };
  const clock = {
    now: () => Date.now(),
    sleep: (ms: number) => void Atomics.wait(sleeper, 0, 0, ms),
    iso: () => new Date().toISOString(),
  };
  const store = new Map<string, string>();
  const cache: KeyValuePort = {
    get: (k) => store.get(k) ?? null,
    set: (k, v) => void store.set(k, v),
    delete: (k) => void store.delete(k),
  };
  const auth = new ApiKeyAuth({ authBaseUrl: baseUrl, apiKey, officeCode, http, clock, cache });
  return new MfClient({ apiBaseUrl: baseUrl, http, clock, auth });
}
