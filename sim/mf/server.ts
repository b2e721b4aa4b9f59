// FakeMf over real HTTP on 127.0.0.1, for clients that cannot call `handle` in-process (a browser demo,
// curl, a client under manual test). Transport faults become 504/502 with `x-fake-mf-fault` so the
// client side can map them back to a timeout or an unreachable host.

import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FakeMf } from './fake-mf';
import type { HttpRequest } from './types';

export interface ServeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Loopback only: the fake has no real authentication and must never face a network. */
  host?: '127.0.0.1';
}

export interface RunningFakeMf {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

export function serveFakeMf(mf: FakeMf, opts: ServeOptions = {}): Promise<RunningFakeMf> {
  const host = opts.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => {
        // req.url is the path and query exactly as the client sent them: id encoding must survive.
        const request: HttpRequest = {
          method: req.method ?? 'GET',
          url: `http://${host}${req.url ?? '/'}`,
          headers: headersOf(req),
          body,
        };
        const response = mf.handle(request);
        res.writeHead(response.status, response.headers);
        res.end(response.body);
      })
      .catch((error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`fake-mf server error: ${String(error)}`);
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${port}`,
        close: () =>
          new Promise<void>((done, fail) => {
            server.closeAllConnections();
            server.close((error) => (error ? fail(error) : done()));
          }),
      });
    });
  });
}
