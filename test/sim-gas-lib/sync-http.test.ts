import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { closeSyncHttp, isLoopbackHost, syncHttpRequest } from '../../sim/gas/lib/sync-http';

// The client blocks this thread, so the server must live elsewhere: a worker thread with its own loop.
const SERVER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const http = require('node:http');
let hits = 0;
const server = http.createServer((req, res) => {
  hits++;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const url = new URL(req.url, 'http://x');
    switch (url.pathname) {
      case '/echo':
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: body.toString('base64') }));
        return;
      case '/status':
        res.statusCode = Number(url.searchParams.get('code'));
        res.end('status ' + res.statusCode);
        return;
      case '/slow':
        setTimeout(() => res.end('late'), Number(url.searchParams.get('ms')));
        return;
      case '/cookies':
        res.setHeader('set-cookie', ['a=1', 'b=2']);
        res.setHeader('x-multi', 'v');
        res.end();
        return;
      case '/bytes': {
        const n = Number(url.searchParams.get('n'));
        const out = Buffer.alloc(n);
        for (let i = 0; i < n; i++) out[i] = i % 256;
        res.end(out);
        return;
      }
      case '/hits':
        res.end(String(hits));
        return;
      default:
        res.statusCode = 404;
        res.end('not found');
    }
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));
parentPort.on('message', (m) => { if (m === 'close') { server.closeAllConnections(); server.close(() => process.exit(0)); } });
`;

let server: Worker;
let base = '';
let freePort = 0;

async function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

const text = (b: Uint8Array): string => Buffer.from(b).toString('utf8');

function ok(res: ReturnType<typeof syncHttpRequest>) {
  if ('error' in res) assert.fail(`unexpected error ${res.error}: ${res.message}`);
  return res;
}

describe('syncHttpRequest', () => {
  before(async () => {
    server = new Worker(SERVER_SOURCE, { eval: true, execArgv: [] });
    const port = await new Promise<number>((resolve) => server.once('message', resolve));
    base = `http://127.0.0.1:${port}`;
    freePort = await unusedPort();
  });

  after(async () => {
    await closeSyncHttp();
    server.postMessage('close');
    await new Promise((resolve) => server.once('exit', resolve));
  });

  it('performs a GET and returns status, lowercase headers and body bytes', () => {
    const res = ok(
      syncHttpRequest({ method: 'get', url: `${base}/echo?q=%E6%97%A5`, headers: { 'X-Test': 'yes' } }),
    );
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'application/json');
    assert.ok(res.body instanceof Uint8Array);
    const echo = JSON.parse(text(res.body));
    assert.equal(echo.method, 'GET');
    assert.equal(echo.url, '/echo?q=%E6%97%A5');
    assert.equal(echo.headers['x-test'], 'yes');
    assert.equal(echo.body, '');
  });

  it('sends string and byte bodies with a Content-Length', () => {
    const res = ok(
      syncHttpRequest({
        method: 'POST',
        url: `${base}/echo`,
        headers: { 'Content-Type': 'application/json' },
        body: '{"摘要":"テスト"}',
      }),
    );
    const echo = JSON.parse(text(res.body));
    assert.equal(echo.method, 'POST');
    assert.equal(Buffer.from(echo.body, 'base64').toString('utf8'), '{"摘要":"テスト"}');
    assert.equal(echo.headers['content-length'], String(Buffer.byteLength('{"摘要":"テスト"}')));
    assert.equal(echo.headers['content-type'], 'application/json');

    const bytes = Uint8Array.from([0, 255, 128, 10]);
    const res2 = ok(syncHttpRequest({ method: 'PUT', url: `${base}/echo`, headers: {}, body: bytes }));
    assert.deepEqual([...Buffer.from(JSON.parse(text(res2.body)).body, 'base64')], [0, 255, 128, 10]);
  });

  it('returns HTTP error statuses as responses', () => {
    const res = ok(syncHttpRequest({ method: 'GET', url: `${base}/status?code=503`, headers: {} }));
    assert.equal(res.status, 503);
    assert.equal(text(res.body), 'status 503');
    assert.equal(ok(syncHttpRequest({ method: 'GET', url: `${base}/nope`, headers: {} })).status, 404);
  });

  it('keeps repeated set-cookie headers as an array', () => {
    const res = ok(syncHttpRequest({ method: 'GET', url: `${base}/cookies`, headers: {} }));
    assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2']);
    assert.equal(res.headers['x-multi'], 'v');
  });

  it('carries large binary bodies intact', () => {
    const res = ok(syncHttpRequest({ method: 'GET', url: `${base}/bytes?n=1000000`, headers: {} }));
    assert.equal(res.body.length, 1_000_000);
    assert.equal(res.body[0], 0);
    assert.equal(res.body[256 * 3 + 7], 7);
    assert.equal(res.body[999_999], 999_999 % 256);
  });

  it('reports a body over the size cap as other', () => {
    const res = syncHttpRequest({
      method: 'GET',
      url: `${base}/bytes?n=5000`,
      headers: {},
      maxResponseBytes: 1000,
    });
    assert.equal('error' in res && res.error, 'other');
  });

  it('resolves localhost to the loopback server without DNS', () => {
    const url = base.replace('127.0.0.1', 'localhost');
    assert.equal(
      ok(syncHttpRequest({ method: 'GET', url: `${url}/status?code=204`, headers: {} })).status,
      204,
    );
  });

  it('times out, and the next request still gets its own answer', () => {
    const t0 = Date.now();
    const res = syncHttpRequest({ method: 'GET', url: `${base}/slow?ms=1500`, headers: {}, timeoutMs: 200 });
    const took = Date.now() - t0;
    assert.equal('error' in res && res.error, 'timeout');
    assert.ok(took >= 190 && took < 1400, `took ${took} ms`);
    const next = ok(syncHttpRequest({ method: 'GET', url: `${base}/status?code=201`, headers: {} }));
    assert.equal(next.status, 201);
  });

  it('reports a closed port as refused', () => {
    const res = syncHttpRequest({
      method: 'GET',
      url: `http://127.0.0.1:${freePort}/`,
      headers: {},
      timeoutMs: 5000,
    });
    assert.equal('error' in res && res.error, 'refused');
  });

  it('reports TLS spoken to a plain HTTP server as other', () => {
    const res = syncHttpRequest({
      method: 'GET',
      url: base.replace('http:', 'https:'),
      headers: {},
      timeoutMs: 5000,
    });
    assert.equal('error' in res && res.error, 'other');
  });

  it('never leaves loopback: other hosts are a DNS error, with no request made', () => {
    const before = text(ok(syncHttpRequest({ method: 'GET', url: `${base}/hits`, headers: {} })).body);
    for (const url of [
      'https://example.com/',
      'http://10.0.0.1/',
      'http://192.168.1.1:8080/x',
      'http://[2001:db8::1]/',
      'http://128.0.0.1/',
      'http://localhost.example.com/',
      'http://127.0.0.1.nip.io/',
    ]) {
      const t0 = Date.now();
      const res = syncHttpRequest({ method: 'GET', url, headers: {} });
      assert.equal('error' in res && res.error, 'dns', url);
      assert.ok(Date.now() - t0 < 100, url);
    }
    const afterHits = text(ok(syncHttpRequest({ method: 'GET', url: `${base}/hits`, headers: {} })).body);
    assert.equal(Number(afterHits), Number(before) + 1);
  });

  it('rejects malformed URLs and non-HTTP schemes as other', () => {
    for (const url of ['not a url', 'ftp://127.0.0.1/', 'file:///etc/passwd']) {
      const res = syncHttpRequest({ method: 'GET', url, headers: {} });
      assert.equal('error' in res && res.error, 'other', url);
    }
    const res = syncHttpRequest({ method: 'GET', url: `${base}/echo`, headers: { 'X-Bad': 'a\nb' } });
    assert.equal('error' in res && res.error, 'other');
  });

  it('handles many sequential requests quickly', () => {
    const t0 = Date.now();
    for (let i = 0; i < 200; i++) {
      assert.equal(
        ok(syncHttpRequest({ method: 'GET', url: `${base}/status?code=200`, headers: {} })).status,
        200,
      );
    }
    assert.ok(Date.now() - t0 < 5000);
  });

  it('starts a fresh worker after closeSyncHttp', async () => {
    await closeSyncHttp();
    await closeSyncHttp();
    assert.equal(
      ok(syncHttpRequest({ method: 'GET', url: `${base}/status?code=200`, headers: {} })).status,
      200,
    );
  });
});

describe('isLoopbackHost', () => {
  it('accepts 127/8, localhost and ::1 only', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', 'LOCALHOST', '::1', '[::1]'])
      assert.ok(isLoopbackHost(h), h);
    for (const h of ['128.0.0.1', '127.0.0.256', '0.0.0.0', 'example.com', '10.0.0.1', '::', 'localhost.']) {
      assert.ok(!isLoopbackHost(h), h);
    }
  });
});

describe('process lifetime', () => {
  it('does not keep the process alive (the worker is unref-ed)', () => {
    const mod = fileURLToPath(new URL('../../sim/gas/lib/sync-http.ts', import.meta.url));
    const script = `import { syncHttpRequest } from ${JSON.stringify(mod)};
      const r = syncHttpRequest({ method: 'GET', url: 'http://127.0.0.1:${freePort}/', headers: {}, timeoutMs: 3000 });
      console.log(JSON.stringify(r.error));`;
    const t0 = Date.now();
    const out = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(out.status, 0, out.stderr);
    assert.equal(out.stdout.trim(), '"refused"');
    assert.ok(Date.now() - t0 < 15_000);
  });
});
