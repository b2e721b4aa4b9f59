/**
 * `npm run contract:live` — a maintainer's check of a real MF office against MF's OpenAPI document and
 * against what the fake MF assumes (sim/mf; the table of unknowns in sim/gas/README.md). Never run in CI.
 *
 * Read-only by default: kicho's own MF client (src/mf/client.ts) reads the office, its periods, masters,
 * statement lines and journals of a window, journals by transaction_ids and one by id, plus two harmless
 * probes (an unknown journal id, GET /transactions with the document's per_page maximum). Every exchange
 * is held to the document with test/contract/contract.ts, and what MF did where the fake has a switch is
 * printed beside the fake's value. With `--post --line <transaction id> --account <勘定科目>`, it also
 * journalizes that one 未仕訳 line with kicho's tag (never twice) and reports whether the tag was kept,
 * how long MF took to list the journal, and the line's status.
 *
 * Credentials come from the environment only: MF_API_KEY + MF_OFFICE_CODE (API key) or MF_ACCESS_TOKEN
 * (an OAuth access token); MF_API_BASE_URL / MF_AUTH_BASE_URL point elsewhere (the fake on 127.0.0.1 in
 * test/scripts/contract-live.test.ts). Nothing secret is printed.
 *
 * Exit code: 0 when MF did only what the document or the fake's switches model; 1 when it did something
 * neither does (each such difference is printed); 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { syncHttpRequest } from '../../sim/gas/lib/sync-http';
import type { DifferenceName } from '../../sim/mf/differences';
import { mfKey, remoteTag } from '../../src/core/keys';
import { type HttpPort, type HttpRequest, type HttpResponse, HttpTransportError } from '../../src/core/ports';
import { redactSecrets } from '../../src/core/redact';
import { ApiKeyAuth, type AuthProvider } from '../../src/mf/auth';
import { MfClient } from '../../src/mf/client';
import { MfApiError } from '../../src/mf/errors';
import { canonicalId, sameMfId } from '../../src/mf/ids';
import type { MfJournal, MfTransaction } from '../../src/mf/types';
import { addDays } from '../../src/mf/windows';
import { Contract, type Finding } from './contract';

const DEFAULT_API = 'https://api-accounting.moneyforward.com';
const DEFAULT_AUTH = 'https://api.biz.moneyforward.com';

interface Exchange {
  method: string;
  url: string;
  status: number | null;
  ms: number;
  findings: Finding[];
}

/** One line of the report: what the fake assumes, what this MF did, and whether a switch models it. */
export interface Observation {
  name: string;
  fake: string;
  live: string;
  /** same: as the fake's default; modelled: another value the fake has a switch for; new: neither. */
  verdict: 'same' | 'modelled' | 'new' | 'not observed';
}

export interface LiveReport {
  base: string;
  mode: 'apikey' | 'oauth';
  office: string;
  exchanges: { method: string; path: string; status: number | null }[];
  /** Exchanges the document would not accept and no named difference explains. */
  unexplained: string[];
  /** Named differences (sim/mf/differences.ts) this MF showed, with counts. */
  named: Record<string, number>;
  observations: Observation[];
  posted?: { journalId: string; line: string };
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\n\n使い方: npm run contract:live -- [--from YYYY-MM-DD] [--to YYYY-MM-DD] [--json]\n` +
      '                       [--post --line <明細ID> --account <勘定科目名> [--wait 秒]]\n' +
      '環境変数: MF_API_KEY と MF_OFFICE_CODE（API キー）、または MF_ACCESS_TOKEN（OAuth のアクセストークン）。\n' +
      '          MF_API_BASE_URL / MF_AUTH_BASE_URL で接続先を変えられます。CI では実行しません。\n',
  );
  process.exit(2);
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
const clock = {
  now: () => Date.now(),
  sleep: (ms: number) => void Atomics.wait(sleeper, 0, 0, ms),
  iso: () => new Date().toISOString(),
};

/** A synchronous port to any host (kicho's client is synchronous, like UrlFetchApp), recording each exchange. */
function recordingPort(log: { req: HttpRequest; res: HttpResponse | null; ms: number }[]): HttpPort {
  return {
    send(req) {
      const started = Date.now();
      const out = syncHttpRequest({
        method: req.method.toUpperCase(),
        url: req.url,
        headers: req.headers,
        body: req.payload,
        remoteAllowed: true,
      });
      if ('error' in out) {
        log.push({ req, res: null, ms: Date.now() - started });
        throw new HttpTransportError(out.error === 'timeout' ? 'timeout' : 'network', out.message);
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(out.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      const res = { status: out.status, headers, body: Buffer.from(out.body).toString('utf8') };
      log.push({ req, res, ms: Date.now() - started });
      return res;
    },
  };
}

/** MF_ACCESS_TOKEN: a token obtained elsewhere (OAuth); no refresh. */
function staticToken(token: string): AuthProvider {
  return { accessToken: () => token, invalidate: () => {}, officeCode: null, refresh: () => false };
}

function pathOf(url: string): string {
  return url.replace(/^[a-z]+:\/\/[^/]+/i, '').replace(/\?.*$/, '');
}

function tryRead<T>(read: () => T): T | MfApiError {
  try {
    return read();
  } catch (e) {
    if (e instanceof MfApiError) return e;
    throw e;
  }
}

export function runLive(argv: string[], env: NodeJS.ProcessEnv, contract: Contract): LiveReport {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      post: { type: 'boolean' },
      line: { type: 'string' },
      account: { type: 'string' },
      wait: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
  });
  const apiKey = env.MF_API_KEY?.trim();
  const officeCode = env.MF_OFFICE_CODE?.trim();
  const token = env.MF_ACCESS_TOKEN?.trim();
  if (!(apiKey && officeCode) && !token)
    usage('MF の認証情報がありません（MF_API_KEY と MF_OFFICE_CODE、または MF_ACCESS_TOKEN）。');
  if (values.post && !(values.line && values.account))
    usage('--post には、登録する 1 件の明細ID（--line）と勘定科目（--account）が要ります。');
  const base = (env.MF_API_BASE_URL ?? DEFAULT_API).replace(/\/+$/, '');
  const log: { req: HttpRequest; res: HttpResponse | null; ms: number }[] = [];
  const http = recordingPort(log);
  const store = new Map<string, string>();
  const auth: AuthProvider =
    apiKey && officeCode
      ? new ApiKeyAuth({
          authBaseUrl: env.MF_AUTH_BASE_URL ?? DEFAULT_AUTH,
          apiKey,
          officeCode,
          http,
          clock,
          cache: {
            get: (k) => store.get(k) ?? null,
            set: (k, v) => void store.set(k, v),
            delete: (k) => void store.delete(k),
          },
        })
      : staticToken(token ?? '');
  const client = new MfClient({ apiBaseUrl: base, http, clock, auth });
  const observations: Observation[] = [];
  const observe = (name: string, fake: string, live: string, verdict: Observation['verdict']) =>
    observations.push({ name, fake, live, verdict });

  // The office and its periods, the masters kicho reads.
  const office = client.office();
  const periods = office.accounting_periods;
  for (const read of [() => client.accounts(), () => client.taxes(), () => client.tradePartners()]) read();
  client.connectedAccounts();

  // A window: --from/--to, else the last 30 days of the newest period (clipped to today).
  const todayText = new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10);
  const newest = periods[0];
  const to = values.to ?? (newest && newest.end_date < todayText ? newest.end_date : todayText);
  const from = values.from ?? addDays(to, -30);
  const lines: MfTransaction[] = client.listTransactions({ startDate: from, endDate: to });
  const journals: MfJournal[] = client.journalsBetween(from, to);
  observe(
    'journalsPerPageMax (GET /journals per_page)',
    '10000 (switch: 100)',
    String(client.journalsPageSize),
    client.journalsPageSize === 10_000 ? 'same' : client.journalsPageSize === 100 ? 'modelled' : 'new',
  );

  // Journals by transaction_ids: does the filter hold, and is journal.transaction_id the line's id byte for byte?
  const linked = journals.filter((j) => j.transaction_id).slice(0, 50);
  if (linked.length > 0) {
    const ids = linked.map((j) => String(j.transaction_id));
    const byIds = client.journalsBetween(from, to, { transactionIds: ids });
    const stray = byIds.filter((j) => !ids.some((id) => sameMfId(id, j.transaction_id)));
    observe(
      'GET /journals?transaction_ids= returns only those lines’ journals',
      'yes',
      stray.length === 0 ? 'yes' : `no (${stray.length} others)`,
      stray.length === 0 ? 'same' : 'new',
    );
    const listed = new Map(lines.map((t) => [canonicalId(t.id), t.id]));
    const forms = linked
      .map((j) => ({
        journal: String(j.transaction_id),
        line: listed.get(canonicalId(String(j.transaction_id))),
      }))
      .filter((p): p is { journal: string; line: string } => p.line !== undefined);
    // kicho compares ids by canonical form (src/mf/ids.ts), so any spelling that decodes alike is still
    // found; but only the case of %XX is a switch the tests run.
    const form = forms.every((p) => p.journal === p.line)
      ? 'as-listed'
      : forms.every((p) => p.journal.toUpperCase() === p.line.toUpperCase())
        ? 'lowercase-hex (case of %XX only)'
        : 'different';
    observe(
      'transactionIdForm (journal.transaction_id vs the line id)',
      "'as-listed' (switch: 'lowercase-hex')",
      forms.length === 0 ? 'no line of these journals in the window' : form,
      forms.length === 0
        ? 'not observed'
        : form === 'as-listed'
          ? 'same'
          : form === 'different'
            ? 'new'
            : 'modelled',
    );
    const one = client.journal(linked[0].id);
    observe('GET /journals/{id} reads a listed journal', 'yes', one ? 'yes' : 'no', one ? 'same' : 'new');
  } else {
    observe(
      'transactionIdForm (journal.transaction_id vs the line id)',
      "'as-listed'",
      'no statement-line journal in the window',
      'not observed',
    );
  }

  // Probes: harmless reads whose answers the fake has named differences for.
  const unknown = tryRead(() => client.journal('kicho-contract-live-no-such-id'));
  observe(
    'an unknown journal id',
    'null (400 invalid_request_path_parameter, difference unknown-id-text)',
    unknown === null
      ? 'null (400 invalid_request_path_parameter)'
      : unknown instanceof MfApiError
        ? `${unknown.status} ${unknown.code}`
        : 'a journal',
    unknown === null ? 'same' : 'new',
  );
  const wide = http.send({
    method: 'get',
    url: `${base}/api/v3/transactions?start_date=${to}&end_date=${to}&per_page=1000${auth.officeCode ? `&office_code=${encodeURIComponent(auth.officeCode)}` : ''}`,
    headers: { Authorization: `Bearer ${auth.accessToken()}`, Accept: 'application/json' },
  });
  observe(
    'GET /transactions per_page=1000 (the document’s maximum)',
    '400 (difference transactions-per-page-500)',
    String(wide.status),
    wide.status === 400 ? 'same' : wide.status === 200 ? 'modelled' : 'new',
  );
  let posted: LiveReport['posted'];
  if (values.post) posted = postOne(client, values, observe, from, to, lines);
  else {
    observe(
      'journalize keeps tags (tagsOnJournalize)',
      "'kept' (switch: 'dropped')",
      'not checked (add --post)',
      'not observed',
    );
    observe(
      'listing lag after a create (listingLagMs)',
      '0 (switch: any)',
      'not checked (add --post)',
      'not observed',
    );
  }
  // Never asked live: a second journalize could make a second journal (permissiveJournalize).
  observe(
    'a second journalize of one line (secondJournalize)',
    "'generic' 400 (switches: 'invented', permissive)",
    'not asked (it could make a second journal)',
    'not observed',
  );
  const limited = log.filter((e) => e.res?.status === 429);
  observe(
    '429 carries Retry-After',
    'with or without (difference retry-after)',
    limited.length === 0
      ? 'no 429 seen'
      : limited.some((e) => e.res?.headers['retry-after'])
        ? 'with'
        : 'without',
    limited.length === 0 ? 'not observed' : 'modelled',
  );

  // Every exchange against the document.
  const named: Record<string, number> = {};
  const unexplained: string[] = [];
  const secrets = [apiKey, token, ...log.map((e) => e.req.headers.Authorization?.replace(/^Bearer /, ''))];
  const exchanges: Exchange[] = log.map((e) => {
    const findings = contract.check(
      { method: e.req.method.toUpperCase(), url: e.req.url, headers: e.req.headers, body: e.req.payload },
      e.res ?? { status: 0, headers: {}, body: '', fault: 'timeout' },
    );
    for (const f of findings) {
      if (f.difference) named[f.difference] = (named[f.difference] ?? 0) + 1;
      else
        unexplained.push(
          redactSecrets(`${f.part} ${f.method} ${f.path} [${f.operation ?? '?'}]: ${f.detail}`, secrets),
        );
    }
    return {
      method: e.req.method.toUpperCase(),
      url: e.req.url,
      status: e.res?.status ?? null,
      ms: e.ms,
      findings,
    };
  });
  return {
    base,
    mode: auth.officeCode ? 'apikey' : 'oauth',
    office: `${office.name}（${office.code}）`,
    exchanges: exchanges.map((x) => ({ method: x.method, path: pathOf(x.url), status: x.status })),
    unexplained,
    named: named as Record<DifferenceName, number>,
    observations,
    ...(posted ? { posted } : {}),
  };
}

/** The one-line posting check: journalize --line once with kicho's tag, then watch MF list it. */
function postOne(
  client: MfClient,
  values: { line?: string; account?: string; wait?: string },
  observe: (name: string, fake: string, live: string, verdict: Observation['verdict']) => void,
  from: string,
  to: string,
  lines: MfTransaction[],
): LiveReport['posted'] {
  const lineId = String(values.line);
  const line = lines.find((t) => sameMfId(t.id, lineId));
  if (!line)
    throw new Error(
      `明細 ${lineId} が ${from}〜${to} にありません（--from / --to で期間を指定してください）。`,
    );
  if (line.journalizing_status !== 'none')
    throw new Error(
      `明細 ${lineId} は「${line.journalizing_status}」です。未仕訳（none）の明細を指定してください。`,
    );
  const account = client.accounts().find((a) => a.name === values.account);
  if (!account) throw new Error(`勘定科目「${values.account}」が MF にありません。`);
  const tag = remoteTag(mfKey(line.id));
  const outcome = client.journalize({ transaction_id: line.id, account_id: account.id, tags: [tag] });
  if (outcome.kind !== 'created')
    throw new Error(
      `登録できませんでした（${JSON.stringify(outcome)}）。もう一度送る前に、MF の画面で確かめてください。`,
    );
  const postedAt = Date.now();
  const waitMs = Math.max(1, Number(values.wait ?? 120)) * 1000;
  let listedAt: number | null = null;
  let status = 'none';
  let seen: MfJournal | null = null;
  for (let wait = 1000; ; wait = Math.min(wait * 2, 15_000)) {
    seen ??= client.journal(outcome.journalId);
    if (listedAt === null) {
      const byLine = client.journalsBetween(line.date, line.date, { transactionIds: [line.id] });
      if (byLine.some((j) => j.id === outcome.journalId)) listedAt = Date.now();
    }
    status =
      client
        .listTransactions({ startDate: line.date, endDate: line.date })
        .find((t) => sameMfId(t.id, line.id))?.journalizing_status ?? 'missing';
    if ((listedAt !== null && status !== 'none') || Date.now() - postedAt >= waitMs) break;
    clock.sleep(Math.min(wait, waitMs - (Date.now() - postedAt)));
  }
  const kept = seen?.tags.includes(tag);
  observe(
    'journalize keeps tags (tagsOnJournalize)',
    "'kept' (switch: 'dropped')",
    seen ? (kept ? 'kept' : 'dropped') : 'journal not readable by id',
    !seen ? 'new' : kept ? 'same' : 'modelled',
  );
  observe(
    'listing lag after a create (listingLagMs)',
    '0 (switch: any)',
    listedAt === null ? `not listed within ${waitMs / 1000} s` : `${listedAt - postedAt} ms`,
    listedAt === null ? 'modelled' : listedAt - postedAt < 1000 ? 'same' : 'modelled',
  );
  observe(
    'the line’s journalizing_status after journalize',
    "'registered'",
    status,
    status === 'registered' ? 'same' : status === 'none' ? 'modelled' : 'new',
  );
  return { journalId: outcome.journalId, line: line.id };
}

export function formatReport(r: LiveReport): string {
  const out = [
    `MF contract (live): ${r.base}, ${r.office}, ${r.mode === 'apikey' ? 'API key' : 'OAuth token'}`,
    `${r.exchanges.length} exchanges; ${r.unexplained.length} the document does not accept and no named difference explains`,
    ...r.unexplained.map((u) => `  ! ${u}`),
    `named differences seen: ${
      Object.entries(r.named)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ') || 'none'
    }`,
    'what this MF did where the fake assumes (fake → live):',
    ...r.observations.map(
      (o) =>
        `  ${o.verdict === 'new' ? '!' : o.verdict === 'modelled' ? '~' : o.verdict === 'same' ? '=' : '?'} ${o.name}: ${o.fake} → ${o.live}${o.verdict === 'new' ? '  (the fake has no switch for this)' : o.verdict === 'modelled' ? '  (another value of a switch the tests run)' : ''}`,
    ),
  ];
  if (r.posted)
    out.push(`posted: journal ${r.posted.journalId} for line ${r.posted.line} (kicho's tag; not sent again)`);
  return out.join('\n');
}

/** What fails the run: something neither the document nor a switch of the fake models. */
export function differs(r: LiveReport): boolean {
  return r.unexplained.length > 0 || r.observations.some((o) => o.verdict === 'new');
}

async function main(): Promise<void> {
  const contract = await Contract.load();
  let report: LiveReport;
  try {
    report = runLive(process.argv.slice(2), process.env, contract);
  } catch (e) {
    const secrets = [process.env.MF_API_KEY, process.env.MF_ACCESS_TOKEN];
    process.stderr.write(`${redactSecrets(e instanceof Error ? e.message : String(e), secrets)}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `${process.argv.includes('--json') ? JSON.stringify(report, null, 2) : formatReport(report)}\n`,
  );
  process.exit(differs(report) ? 1 : 0);
}

if (process.argv[1] && /contract[\\/]live\.ts$/.test(process.argv[1])) await main();
