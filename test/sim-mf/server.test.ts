import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import { FakeMf, TEST_API_KEY } from '../../sim/mf/fake-mf';
import { serveFakeMf } from '../../sim/mf/server';
import { START } from './helpers';

describe('serveFakeMf over HTTP on 127.0.0.1', () => {
  test('round trip: exchange, list, journalize with raw ids on the wire, read back, close', async () => {
    const mf = new FakeMf({ now: () => START });
    const server = await serveFakeMf(mf);
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const exchange = await fetch(`${server.url}/auth/exchange`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_API_KEY}` },
      });
      assert.equal(exchange.status, 200);
      const { access_token: token } = (await exchange.json()) as { access_token: string };
      const auth = { Authorization: `Bearer ${token}` };
      const office = 'office_code=1234-5678';

      const card = mf.findConnectedAccount('三井住友カード');
      const list = await fetch(
        `${server.url}/api/v3/transactions?${office}&start_date=2026-04-01&end_date=2026-06-30&journalizing_statuses=none&connected_account_id=${card.id}`,
        { headers: auth },
      );
      assert.equal(list.status, 200);
      const lines = ((await list.json()) as { transactions: { id: string }[] }).transactions;
      const line = lines[0];
      assert.ok(line);

      const created = await fetch(`${server.url}/api/v3/transactions/journalize?${office}`, {
        method: 'POST',
        headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({
          transaction_id: line.id,
          account_id: mf.findAccount('消耗品費').id,
          tags: ['kc-http'],
        }),
      });
      assert.equal(created.status, 201);
      const { journal } = (await created.json()) as { journal: { id: string; transaction_id: string } };
      assert.equal(journal.transaction_id, line.id);

      // An id in a path is encoded once more: its %2B/%2F travel as %252B/%252F.
      for (const path of [encodeURIComponent(journal.id)]) {
        const read = await fetch(`${server.url}/api/v3/journals/${path}?${office}`, { headers: auth });
        assert.equal(read.status, 200);
      }
      const byLine = await fetch(
        `${server.url}/api/v3/journals?${office}&start_date=2026-04-01&transaction_ids=${line.id}`,
        {
          headers: auth,
        },
      );
      assert.equal(((await byLine.json()) as { metadata: { total_count: number } }).metadata.total_count, 1);

      const missing = await fetch(`${server.url}/api/v3/offices`);
      assert.equal(missing.status, 401);
      assert.deepEqual(await missing.json(), {
        errors: [{ code: 'no_authentication_information', message: 'No authorization header.' }],
      });
    } finally {
      await server.close();
    }
    await assert.rejects(fetch(`${server.url}/api/v3/offices`));
  });

  test('transport faults arrive as 504/502 with x-fake-mf-fault; 429 keeps Retry-After', async () => {
    const mf = new FakeMf({ now: () => START });
    const server = await serveFakeMf(mf, { port: 0, host: '127.0.0.1' });
    try {
      const token = mf.issueAccessToken();
      const get = () =>
        fetch(`${server.url}/api/v3/offices?office_code=1234-5678`, {
          headers: { Authorization: `Bearer ${token}` },
        });
      mf.injectFault({ kind: 'commit-then-timeout' });
      const timeout = await get();
      assert.equal(timeout.status, 504);
      assert.equal(timeout.headers.get('x-fake-mf-fault'), 'timeout');
      mf.injectFault({ kind: 'unreachable' });
      const unreachable = await get();
      assert.equal(unreachable.status, 502);
      assert.equal(unreachable.headers.get('x-fake-mf-fault'), 'unreachable');
      mf.injectFault({ kind: '429', retryAfterSeconds: 3 });
      const limited = await get();
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get('retry-after'), '3');
      assert.equal((await get()).status, 200);
    } finally {
      await server.close();
    }
  });

  test('the serve.ts CLI prints the URL and the test key, and stops on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'sim/mf/serve.ts', '--port', '0', '--seed', '2'],
      {
        cwd: new URL('../../', import.meta.url),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    try {
      let output = '';
      child.stdout.setEncoding('utf8');
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no banner: ${output}`)), 20_000);
        child.stdout.on('data', (chunk: string) => {
          output += chunk;
          if (output.includes('Ctrl-C')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.once('exit', () => reject(new Error(`exited early: ${output}`)));
      });
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      assert.ok(url, output);
      assert.match(output, new RegExp(TEST_API_KEY));
      const reply = await fetch(`${url}/auth/exchange`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TEST_API_KEY}` },
      });
      assert.equal(reply.status, 200);
      child.kill('SIGINT');
      const [code] = await once(child, 'exit');
      assert.equal(code, 0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
