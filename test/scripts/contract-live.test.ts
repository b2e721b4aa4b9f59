/**
 * `npm run contract:live` (test/contract/live.ts) against the fake MF served on 127.0.0.1 — the only place
 * it runs in the tests; a maintainer points it at a real office. It refuses without credentials, reads
 * only (unless --post), holds every exchange to MF's document, and prints what MF did where the fake has a
 * switch: the same as the fake's default, another value a switch models, or something new.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { FakeMf, type FakeMfOptions, TEST_API_KEY } from '../../sim/mf/fake-mf';
import { TEST_OFFICE_CODE } from '../../sim/mf/seed';
import { type RunningFakeMf, serveFakeMf } from '../../sim/mf/server';
import { ROOT } from '../helpers/emulator';

const SCRIPT = path.join(ROOT, 'test/contract/live.ts');
const WINDOW = ['--from', '2026-04-01', '--to', '2026-06-30'];

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The script as a maintainer runs it (a child process: its HTTP client blocks its own thread). */
function live(args: string[], env: Record<string, string>): Promise<Ran> {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', TZ: 'Asia/Tokyo', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const servers: RunningFakeMf[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function fake(options: FakeMfOptions = {}) {
  const mf = new FakeMf({ seed: 1, ...options });
  const server = await serveFakeMf(mf);
  servers.push(server);
  const env = {
    MF_API_BASE_URL: server.url,
    MF_AUTH_BASE_URL: server.url,
    MF_API_KEY: TEST_API_KEY,
    MF_OFFICE_CODE: TEST_OFFICE_CODE,
  };
  return { mf, env };
}

interface Report {
  exchanges: { method: string; path: string; status: number | null }[];
  unexplained: string[];
  named: Record<string, number>;
  observations: { name: string; live: string; verdict: string }[];
  posted?: { journalId: string; line: string };
}

function verdict(r: Report, name: RegExp): { live: string; verdict: string } {
  const o = r.observations.find((x) => name.test(x.name));
  assert.ok(o, `no observation ${name}`);
  return o;
}

describe('contract:live', () => {
  test('without credentials: a usage message naming the variables, exit 2, nothing sent', async () => {
    const { mf, env } = await fake();
    const r = await live(WINDOW, { MF_API_BASE_URL: env.MF_API_BASE_URL });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /MF_API_KEY と MF_OFFICE_CODE、または MF_ACCESS_TOKEN/);
    assert.equal(mf.requestLog.length, 0);
  });

  test('the fake as it is: read-only, every exchange within the document or a named difference, exit 0', async () => {
    const { mf, env } = await fake();
    const r = await live([...WINDOW, '--json'], env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as Report;
    assert.deepEqual(report.unexplained, []);
    assert.ok(report.exchanges.length >= 10);
    assert.ok(report.named['api-key-exchange'] >= 1);
    assert.ok(report.named['api-key-office-code'] >= 1);
    assert.ok(
      report.named['transactions-per-page-500'] === undefined || report.named['observed-400-text'] >= 1,
    );
    assert.equal(verdict(report, /journalsPerPageMax/).verdict, 'same');
    assert.equal(verdict(report, /transactionIdForm/).verdict, 'same');
    assert.equal(verdict(report, /unknown journal id/).verdict, 'same');
    assert.equal(verdict(report, /per_page=1000/).verdict, 'same');
    assert.equal(verdict(report, /keeps tags/).verdict, 'not observed');
    // Nothing written: the only POST is the API-key exchange.
    const writes = mf.requestLog.filter((e) => e.method !== 'GET');
    assert.deepEqual([...new Set(writes.map((e) => e.path))], ['/auth/exchange']);
    assert.equal(mf.journals().filter((j) => j.tags.length > 0).length, 0);
    // The readable report says the same, and carries no secret.
    const text = await live(WINDOW, env);
    assert.match(text.stdout, /0 the document does not accept and no named difference explains/);
    assert.match(text.stdout, /= journalsPerPageMax/);
    assert.doesNotMatch(text.stdout + text.stderr, new RegExp(TEST_API_KEY));
  });

  test('another world: per_page capped at 100 and transaction ids in lower-case hex are reported as modelled', async () => {
    const { env } = await fake({ journalsPerPageMax: 100, transactionIdForm: 'lowercase-hex' });
    const r = await live([...WINDOW, '--json'], env);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as Report;
    assert.deepEqual(
      [verdict(report, /journalsPerPageMax/).live, verdict(report, /journalsPerPageMax/).verdict],
      ['100', 'modelled'],
    );
    assert.equal(verdict(report, /transactionIdForm/).verdict, 'modelled');
    assert.ok(
      report.exchanges.some((e) => e.path === '/api/v3/journals' && e.status === 400),
      'asked 10000 first',
    );
  });

  test('--post: one line journalized once with kicho’s tag; tags dropped and the listing lag are reported', async () => {
    const { mf, env } = await fake({ tagsOnJournalize: 'dropped', listingLagMs: 2500 });
    const line = mf
      .transactions()
      .find((t) => t.journalizing_status === 'none' && t.date >= '2026-04-01' && t.date <= '2026-06-30');
    assert.ok(line);
    const missing = await live([...WINDOW, '--post'], env);
    assert.equal(missing.code, 2, 'the line and the account must be named');
    const r = await live(
      [...WINDOW, '--post', '--line', line.id, '--account', '雑費', '--wait', '10', '--json'],
      env,
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const report = JSON.parse(r.stdout) as Report;
    assert.equal(report.posted?.line, line.id);
    assert.deepEqual(
      [verdict(report, /keeps tags/).live, verdict(report, /keeps tags/).verdict],
      ['dropped', 'modelled'],
    );
    const lag = verdict(report, /listing lag/);
    assert.equal(lag.verdict, 'modelled');
    assert.ok(Number.parseInt(lag.live, 10) >= 2500, lag.live);
    assert.equal(mf.journalsForTransaction(line.id).length, 1);
    assert.equal(
      mf.requestLog.filter((e) => e.method === 'POST' && e.path === '/api/v3/transactions/journalize').length,
      1,
    );
    // A line that is no longer 未仕訳 is refused before anything is sent.
    const again = await live([...WINDOW, '--post', '--line', line.id, '--account', '雑費'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /未仕訳（none）の明細を指定してください/);
    assert.equal(mf.journalsForTransaction(line.id).length, 1);
  });

  test('something no switch models (journal.transaction_id spelled decoded) fails the run and is printed', async () => {
    const { mf, env } = await fake();
    // A line journalized already (as MF's screen would), whose journal MF then lists with its id decoded.
    const line = mf
      .transactions()
      .find(
        (t) =>
          t.journalizing_status === 'none' &&
          t.date >= '2026-05-01' &&
          t.date <= '2026-05-31' &&
          /%[0-9A-F]{2}/.test(t.id),
      );
    assert.ok(line);
    const token = mf.issueAccessToken('oauth');
    const made = mf.handle({
      method: 'POST',
      url: 'https://api-accounting.moneyforward.com/api/v3/transactions/journalize',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ transaction_id: line.id, account_id: mf.findAccount('雑費').id }),
    });
    assert.equal(made.status, 201);
    const original = mf.handle.bind(mf);
    mf.handle = (req) => {
      const res = original(req);
      if (!/\/api\/v3\/journals\?/.test(req.url) || res.status !== 200) return res;
      const body = JSON.parse(res.body) as { journals: { transaction_id: string | null }[] };
      for (const j of body.journals)
        if (j.transaction_id === line.id) j.transaction_id = decodeURIComponent(line.id);
      return { ...res, body: JSON.stringify(body) };
    };
    const r = await live(['--from', '2026-05-01', '--to', '2026-05-31'], env);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stdout, /! transactionIdForm .* → different {2}\(the fake has no switch for this\)/);
  });
});
