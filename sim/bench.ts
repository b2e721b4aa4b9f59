/**
 * `npm run bench`: the whole posting job — import, classify, postApproved until nothing is 送信待ち —
 * for N new MF lines on a 台帳 that already holds E rows, in the Apps Script emulator with its
 * modelled latencies, for kicho (the built dist/) and for a naive per-line script (sim/bench/naive.js). A benchmark, not a test: it prints Markdown tables and
 * a reading of them, and asserts nothing.
 *
 * Each job runs in its own child process, two at a time (one per core). Jobs whose full run would take
 * too long in real time are measured on a prefix and extrapolated; the output says which.
 * `-- --quick`: N = 100, 1,000 × E = 10,000 only. `-- --full`: (almost) no prefixes, ~20 minutes.
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { AuditResult } from './bench/audit';
import { type EventsSpec, eventsTable, runEventsBench } from './bench/events';
import type { AuditJobSpec, JobSpec, JobSummary } from './bench/job';
import { MF_REQUESTS_PER_SECOND } from './bench/world';
import { WorkerPool } from './gas/interleave';

const here = path.dirname(fileURLToPath(import.meta.url));
const QUICK = process.argv.includes('--quick');
/** `-- --audit`: only the 重複点検 case (about two minutes). */
const AUDIT_ONLY = process.argv.includes('--audit');
const FULL = process.argv.includes('--full');
const PARALLEL = 2;
/** A larger young generation: the big getValues payloads otherwise spend most of the time in GC. */
const CHILD_FLAGS = ['--max-semi-space-size=64'];

const E_SIZES = QUICK ? [10_000] : [10_000, 100_000, 200_000];
const N_SIZES = QUICK ? [100, 1_000] : [100, 1_000, 10_000];

/**
 * Prefixes that keep the default run near 10 minutes on this 2-core machine. Full runs took, in real
 * time: kicho 上限200 N=10,000 E=100,000 ~13 min (50 postApproved executions of ~15 s, each reading
 * the whole 台帳), naive N=10,000 E=10,000 ~7 min, naive at E=100,000 ~0.2–0.8 s a line. `--full`
 * (about 20 minutes, more on a busy machine) runs every job to the end except naive on E=100,000 with
 * N > 100: that one is always a prefix (500 lines with --full), because N=10,000 would take hours and
 * its 6-minute executions would trip the emulator's 120 s real-time guard.
 */
function prefixFor(impl: JobSpec['impl'], n: number, e: number, batch?: number): number | undefined {
  if (impl === 'naive' && e >= 100_000 && n > 100) return FULL ? 500 : 100; // lines
  if (FULL) return undefined;
  if (impl === 'kicho') {
    // postApproved executions
    if (n >= 10_000) return e >= 100_000 ? (batch === 1000 ? 2 : 4) : batch === 1000 ? 4 : 10;
    if (n >= 1_000 && e >= 100_000 && batch === 200) return 3;
    return undefined;
  }
  if (n >= 10_000) return 1_000; // lines
  return undefined;
}

function plan(): JobSpec[] {
  const jobs: JobSpec[] = [];
  for (const e of E_SIZES) {
    for (const n of N_SIZES) {
      jobs.push({ impl: 'kicho', n, e, batch: 200, prefix: prefixFor('kicho', n, e, 200) });
      // At N = 100 one execution posts everything whatever the limit: the 1,000 run would be identical.
      if (n > 200) jobs.push({ impl: 'kicho', n, e, batch: 1000, prefix: prefixFor('kicho', n, e, 1000) });
      const prefix = prefixFor('naive', n, e);
      // On E = 100,000 a prefix goes in executions of 50 lines, well inside the emulator's 120 s real-time guard.
      const perExecution = prefix !== undefined && e >= 100_000 ? 50 : undefined;
      jobs.push({ impl: 'naive', n, e, prefix, perExecution });
    }
  }
  return jobs;
}

/** Rough real cost, to start the longest jobs first. */
function weight(j: JobSpec): number {
  const rows = j.e / 10_000;
  if (j.impl === 'naive') return (j.prefix ?? j.n) * (0.02 + 0.02 * rows) + rows * 2;
  const posts = j.prefix ?? Math.ceil(j.n / Math.min(j.batch ?? 200, 600));
  return posts * (j.batch === 1000 ? 2 : 1) * (0.5 + rows) + rows * 4;
}

function runOne<T = JobSummary>(spec: JobSpec | AuditJobSpec): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(here, 'bench', 'job.ts'), [JSON.stringify(spec)], {
      execArgv: [...process.execArgv, ...CHILD_FLAGS],
      env: { ...process.env, TZ: 'Asia/Tokyo' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let summary: T | undefined;
    child.on('message', (m) => {
      summary = m as T;
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (summary) resolve(summary);
      else reject(new Error(`job ${JSON.stringify(spec)} exited with ${code} and no result`));
    });
  });
}

/** 重複点検 at 10,000 and 100,000 journals (one execution each; about 10 s and 90 s real). */
const AUDIT_SIZES = QUICK ? [10_000] : [10_000, 100_000];

async function runAll(jobs: JobSpec[]): Promise<JobSummary[]> {
  const queue = [...jobs].sort((a, b) => weight(b) - weight(a));
  const results: JobSummary[] = [];
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      const r = await runOne<JobSummary>(job);
      process.stderr.write(
        `  done ${label(job).padEnd(16)} N=${job.n} E=${job.e}: ${(r.jobRealMs / 1000).toFixed(1)} s real\n`,
      );
      results.push(r);
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return results;
}

function label(j: JobSpec): string {
  return j.impl === 'kicho' ? `kicho 上限${j.batch}` : 'naive';
}

const int = (x: number) => Math.round(x).toLocaleString('en-US');
const sec = (ms: number) =>
  (ms / 1000).toLocaleString('en-US', { maximumFractionDigits: ms < 100_000 ? 1 : 0 });
const ratio = (x: number) => `${x.toFixed(x < 10 ? 2 : 1)}×`;

function same(a: JobSpec, b: JobSpec): boolean {
  return a.n === b.n && a.e === b.e;
}

function order(a: JobSummary, b: JobSummary): number {
  const rank = (s: JobSpec) => (s.impl === 'naive' ? 9_999 : (s.batch ?? 0));
  return a.spec.e - b.spec.e || a.spec.n - b.spec.n || rank(a.spec) - rank(b.spec);
}

function mainTable(results: JobSummary[]): string[] {
  const lines = [
    '| N | E | implementation | executions | Sheets calls | UrlFetch calls | modelled (s) | wall (s) | MF bound N÷3 (s) | modelled ÷ bound | Sheets naive ÷ kicho |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const t = r.totals;
    const mark = r.extrapolated ? '~' : '';
    const bound = (r.spec.n / MF_REQUESTS_PER_SECOND) * 1000;
    const kicho = results.find(
      (k) => same(k.spec, r.spec) && k.spec.impl === 'kicho' && k.spec.batch === 200,
    );
    const execs =
      r.spec.impl === 'kicho'
        ? `${mark}${int(t.executions)} (2+${int(t.executions - 2)})`
        : `${mark}${int(t.executions)}`;
    lines.push(
      [
        '',
        int(r.spec.n),
        int(r.spec.e),
        label(r.spec),
        execs,
        mark + int(t.sheetsCalls),
        mark + int(t.urlFetches),
        mark + sec(t.virtualMs),
        mark + sec(t.realMs),
        sec(bound),
        mark + ratio(t.virtualMs / bound),
        r.spec.impl === 'naive' && kicho ? mark + ratio(t.sheetsCalls / kicho.totals.sheetsCalls) : '',
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  return lines;
}

function checkTable(results: JobSummary[]): string[] {
  const lines = [
    '| N | E | implementation | lines checked | 完了, one journal | no journal | >1 journal | row states of checked lines | left 送信待ち | left 送信中 | killed | max Sheets calls / post execution | longest execution (s) | MF 429s |',
    '|---:|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const o = r.outcome;
    const states = Object.entries(o.states)
      .map(([k, v]) => `${k} ${int(v)}`)
      .join(', ');
    lines.push(
      [
        '',
        int(r.spec.n),
        int(r.spec.e),
        label(r.spec),
        int(r.checkedLines),
        int(o.exactlyOnce),
        int(o.missing),
        int(o.duplicated),
        states,
        r.extrapolated && r.spec.impl === 'kicho' ? `${int(r.leftWaiting)} (cut)` : int(r.leftWaiting),
        int(r.leftSending),
        int(r.killed),
        int(r.maxSheetsPerPost),
        sec(r.maxExecutionVirtualMs),
        int(o.rateLimited),
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  return lines;
}

function flatness(results: JobSummary[]): string[] {
  const out: string[] = [];
  for (const e of E_SIZES) {
    for (const batch of [200, 1000]) {
      const rows = results.filter((r) => r.spec.impl === 'kicho' && r.spec.e === e && r.spec.batch === batch);
      if (rows.length === 0) continue;
      const values = rows.map((r) => `N=${int(r.spec.n)}: ${r.maxSheetsPerPost}`).join(', ');
      const first = rows[0].maxSheetsPerPost;
      const grows = rows.some((r) => r.maxSheetsPerPost > first);
      out.push(
        `- E=${int(e)}, 上限 ${batch}: ${values} → ${grows ? '**grows with N**' : 'does not grow with N'}`,
      );
    }
  }
  return out;
}

function range(xs: number[]): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return lo.toFixed(2) === hi.toFixed(2) ? ratio(lo) : `${ratio(lo)}–${ratio(hi)}`;
}

function reading(results: JobSummary[]): string {
  const bound = (r: JobSummary) => (r.spec.n / MF_REQUESTS_PER_SECOND) * 1000;
  const kicho = results.filter((r) => r.spec.impl === 'kicho');
  const naive = results.filter((r) => r.spec.impl === 'naive');
  const big = (rs: JobSummary[]) => rs.filter((r) => r.spec.n >= 1000);
  const k200 = (r: JobSummary) =>
    results.find(
      (k) => same(k.spec, r.spec) && k.spec.impl === 'kicho' && k.spec.batch === 200,
    ) as JobSummary;
  const kichoRatios = big(kicho).map((r) => r.totals.virtualMs / bound(r));
  const naiveRatios = big(naive).map((r) => r.totals.virtualMs / bound(r));
  const sheetsRatios = naive.map((r) => r.totals.sheetsCalls / k200(r).totals.sheetsCalls);
  const timeRatios = naive.map((r) => r.totals.virtualMs / k200(r).totals.virtualMs);
  const perPost = (batch: number) =>
    Math.max(0, ...kicho.filter((r) => r.spec.batch === batch).map((r) => r.maxSheetsPerPost));
  const cut = kicho.some((r) => r.extrapolated);
  // A cut-short kicho job leaves its unreached rows 送信待ち by design; the check covers the rest.
  const problems = results.filter(
    (r) =>
      r.outcome.exactlyOnce !== r.checkedLines ||
      r.leftSending > 0 ||
      (r.leftWaiting > 0 && !(r.extrapolated && r.spec.impl === 'kicho')) ||
      (r.spec.impl === 'kicho' && r.killed > 0) ||
      r.notes.some((n) => /error|no progress|stopped/.test(n)),
  );
  const kichoOk = !problems.some((r) => r.spec.impl === 'kicho');
  const naiveProblems = problems.filter((r) => r.spec.impl === 'naive');
  return [
    `For N ≥ 1,000, kicho's modelled Apps Script time is ${range(kichoRatios)} the MF rate-limit bound (N ÷ 3 requests/s),`,
    Math.max(...kichoRatios) < 1.5
      ? "so MF's limit, not Sheets, sets its pace;"
      : 'so besides MF’s limit its whole-台帳 reads take a visible share at the largest E;',
    `the naive script needs ${range(naiveRatios)} the bound.`,
    `The naive script makes ${range(sheetsRatios)} as many Sheets calls as kicho (上限 200) and spends ${range(timeRatios)} its modelled time,`,
    'because every line pays a lookup of the key column (whose per-cell cost grows with E), an append, two single-cell writes and two flushes.',
    `A kicho postApproved execution makes at most ${perPost(200)} Sheets calls with 上限 200 and ${perPost(1000)} with 上限 1000, whatever N and E:`,
    'N only changes how many executions are needed, and the 上限 of 1,000 needs fewer of them because each execution then runs until its own time budget stops it.',
    kichoOk
      ? `For kicho every new line${cut ? ' it reached (all N, except in the ~ rows: the lines posted before the cut)' : ''} ended 完了 with exactly one journal carrying its tag, with no row left 送信中 and no execution killed.`
      : `kicho anomalies: ${problems
          .filter((r) => r.spec.impl === 'kicho')
          .map((r) => `N=${r.spec.n} E=${r.spec.e} ${label(r.spec)}`)
          .join('; ')} (see the check table).`,
    naiveProblems.length > 0
      ? `The naive script was killed at 6 minutes mid-line and left ${naiveProblems
          .map(
            (r) =>
              `${int(r.leftSending)} row(s) 送信中 and ${int(r.outcome.missing)} line(s) without a journal (N=${int(r.spec.n)}, E=${int(r.spec.e)})`,
          )
          .join(
            '; ',
          )}: a kill between its flush and its fetch loses the line for good, one after the fetch leaves a posted line marked 送信中.`
      : 'The naive script got every line it reached posted exactly once in this run, but only because no kill fell between its flush and its fetch.',
    'Modelled times are the emulator’s latency model (Sheets per call and per cell, UrlFetch 250 ms, kicho’s 350 ms spacing) and exclude script CPU; wall times are this machine running the emulator, not Apps Script.',
  ].join(' ');
}

/** A consumer account's daily quotas (reference/gas-platform.md §6; Properties: 50,000 reads/writes a day). */
const CONSUMER_DAY = { triggerMinutes: 90, fetches: 20_000, properties: 50_000 };
/** The scheduled runs that find little to do, every 10 minutes (src/core/quota.ts DEFAULT_RUN_COST.on). */
const IDLE_RUNS = { perDay: 144, seconds: 6, fetches: 3 };

/**
 * What 1,000 new lines cost of one office's daily quotas (import, classify and every posting run, all
 * triggers), from the kicho jobs with N ≥ 1,000, and a day of 10,000 lines with the idle scheduled runs.
 */
function daySection(results: readonly JobSummary[]): string[] {
  const jobs = results.filter((r) => r.spec.impl === 'kicho' && r.spec.n >= 1_000);
  if (jobs.length === 0) return [];
  const lines = [
    '### 1 日の割り当て: 1,000 件あたり（取込・判定・登録、すべてトリガー）と 1 日 10,000 件',
    '',
    '| N | E | 上限 | トリガー時間 (分) / 1,000 件 | UrlFetch / 1,000 件 | Properties / 1,000 件 | Sheets / 1,000 件 | 10,000 件の日: トリガー時間 (分) | UrlFetch | Properties | 無料アカウントに収まるか |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of jobs) {
    const t = r.totals;
    const per = 1_000 / r.spec.n;
    const mark = r.extrapolated ? '~' : '';
    const minutes = (t.virtualMs / 60_000) * per;
    const dayMinutes = minutes * 10 + (IDLE_RUNS.perDay * IDLE_RUNS.seconds) / 60;
    const dayFetches = t.urlFetches * per * 10 + IDLE_RUNS.perDay * IDLE_RUNS.fetches;
    const dayProps = t.propertyOps * per * 10;
    const fits =
      dayMinutes <= CONSUMER_DAY.triggerMinutes &&
      dayFetches <= CONSUMER_DAY.fetches &&
      dayProps <= CONSUMER_DAY.properties;
    lines.push(
      [
        '',
        int(r.spec.n),
        int(r.spec.e),
        String(r.spec.batch),
        mark + minutes.toFixed(1),
        mark + int(t.urlFetches * per),
        mark + int(t.propertyOps * per),
        mark + int(t.sheetsCalls * per),
        mark + dayMinutes.toFixed(0),
        mark + int(dayFetches),
        mark + int(dayProps),
        fits ? 'はい' : '**いいえ**',
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  lines.push(
    '',
    `上限（無料アカウント）: トリガー ${CONSUMER_DAY.triggerMinutes} 分、UrlFetch ${int(CONSUMER_DAY.fetches)} 回、Properties ${int(CONSUMER_DAY.properties)} 回。1 日の値は 1,000 件あたり × 10 に、10 分ごとの定期実行 ${IDLE_RUNS.perDay} 回（1 回 ${IDLE_RUNS.seconds} 秒・${IDLE_RUNS.fetches} 回の UrlFetch）を足した見積もりです（模擬）。`,
    '',
  );
  return lines;
}

function auditTable(results: readonly AuditResult[]): string[] {
  const mb = (b: number) => (b / 1_000_000).toLocaleString('en-US', { maximumFractionDigits: 1 });
  const lines = [
    '| journals | 台帳 rows | MF calls | of which GET /journals | Sheets calls | modelled (s) | wall (s) | of wall: fake MF (s) | script work in Node (s) | MB read | largest page (MB) | groups | proposed for deletion | planted, proposed |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    lines.push(
      [
        '',
        int(r.spec.journals),
        int(r.ledgerRows),
        int(r.mfCalls),
        int(r.journalListings),
        int(r.audit.sheetsCalls),
        sec(r.audit.virtualMs),
        sec(r.audit.realMs),
        sec(r.fakeMs),
        sec(r.coreMs),
        mb(r.listingBytes),
        mb(r.largestPageBytes),
        int(r.groups),
        int(r.proposed),
        `${int(r.plantedProposed)} / ${int(r.planted)}`,
        '',
      ]
        .join(' | ')
        .trim(),
    );
  }
  return lines;
}

function auditSection(audits: readonly AuditResult[]): string[] {
  return [
    '### 重複点検 (auditDuplicates): J journals in the current term, one execution',
    '',
    ...auditTable(audits),
    '',
    'MF calls = /offices once, then GET /journals at per_page 10,000 for each page of each accounting period: they grow with journals ÷ 10,000, never with groups or 台帳 rows. Sheets calls stay the same from 10,000 to 100,000 journals (one read of the 台帳, one rewrite of 重複点検).',
    'Modelled = the emulator’s latency model (UrlFetch 250 ms a call whatever its size); wall = this machine: most of it is the emulator turning each answer into bytes and back (as UrlFetchApp’s bytes), some the fake MF’s rendering (MF’s servers’ work). Script work in Node = the same parse, facts and grouping outside the emulator. A page of 10,000 journals is about 12 MB: Apps Script refuses answers above 50 MB.',
    ...audits.flatMap((r) => r.notes.map((n) => `- J=${int(r.spec.journals)}: ${n}`)),
    '',
  ];
}

/** `-- --events`: only the web app's throughput (issue 17), a minute or two. */
const EVENTS_ONLY = process.argv.includes('--events');
const EVENT_CASES: EventsSpec[] = [
  { rows: 1_000, perRequest: 1, concurrency: 30, events: 300 },
  { rows: 1_000, perRequest: 20, concurrency: 30, events: 1_200 },
  { rows: 100_000, perRequest: 1, concurrency: 30, events: 300 },
  { rows: 100_000, perRequest: 20, concurrency: 30, events: 1_200 },
];

function eventsSection(): string[] {
  const pool = new WorkerPool();
  try {
    const results = EVENT_CASES.map((spec) => {
      const r = runEventsBench(spec, path.join(here, '..', 'dist'), pool);
      process.stderr.write(
        `  done イベント受付 E=${spec.rows} K=${spec.perRequest}: ${(r.realMs / 1000).toFixed(1)} s real\n`,
      );
      return r;
    });
    const perDay = results.map((r) => Math.floor((r.accepted / (r.virtualMs / 1000)) * 86_400));
    return [
      '### イベント受付（doPost）',
      '',
      '30 件のリクエストが同時に届く波を、全部が記録されるまで繰り返します（ロックが空かなかった答えは次の波で再送）。時間は模擬の Apps Script 時間（波の始まりから最後の答えまで）。',
      '',
      ...eventsTable(results),
      '',
      `処理時間だけで見た 1 日の上限（イベント/秒 × 86,400）: ${perDay.map((n) => n.toLocaleString('en-US')).join(' / ')}（表の順）。実際の上限は Properties の 1 日の回数（表の右から 2 列目）で決まります。`,
      '',
    ];
  } finally {
    pool.close();
  }
}

async function main(): Promise<void> {
  const t0 = performance.now();
  if (EVENTS_ONLY) {
    process.stdout.write(
      `${[...eventsSection(), `(bench finished in ${sec(performance.now() - t0)} s real)`].join('\n')}\n`,
    );
    return;
  }
  const jobs = AUDIT_ONLY ? [] : plan();
  process.stderr.write(`bench: ${jobs.length} jobs, ${PARALLEL} at a time${QUICK ? ' (--quick)' : ''}\n`);
  const audits: AuditResult[] = [];
  for (const size of AUDIT_SIZES) {
    const r = await runOne<AuditResult>({ audit: size });
    process.stderr.write(`  done 重複点検        J=${size}: ${(r.jobRealMs / 1000).toFixed(1)} s real\n`);
    audits.push(r);
  }
  const results = (await runAll(jobs)).sort(order);
  const out: string[] = [];
  if (AUDIT_ONLY) {
    out.push(...auditSection(audits), `(bench finished in ${sec(performance.now() - t0)} s real)`);
    process.stdout.write(`${out.join('\n')}\n`);
    return;
  }
  out.push(
    `### Posting job: N new MF lines on a 台帳 of E rows (emulator, modelled latencies${QUICK ? ', --quick' : ''})`,
    '',
    ...mainTable(results),
    '',
  );
  const extrapolated = results.filter((r) => r.extrapolated);
  if (extrapolated.length > 0) {
    out.push(
      `~ extrapolated: ${extrapolated.map((r) => `N=${int(r.spec.n)} E=${int(r.spec.e)} ${label(r.spec)} (${r.notes[0]})`).join('; ')}.`,
      'kicho: the remaining postApproved executions are taken as the mean measured one. naive: per-line cost from the prefix,',
      'plus the key-column read growing by one cell per appended row, plus the fixed part (token, masters, listing) once per 6-minute execution.',
      '',
    );
  }
  out.push(
    'kicho executions = importTransactions + classifyPending + postApproved runs (a time-driven trigger would run one every 5–15 minutes).',
    'Sheets calls = reads + writes + flushes (ExecutionResult.counters), summed over all executions; modelled = sum of virtual execution durations; wall = real time of the executions on this machine.',
    '',
    '#### Checks',
    '',
    ...checkTable(results),
    '',
    'Max Sheets calls per kicho postApproved execution:',
    ...flatness(results),
    '',
  );
  const notes = results.flatMap((r) =>
    r.notes
      .slice(r.extrapolated ? 1 : 0)
      .map((n) => `- N=${int(r.spec.n)} E=${int(r.spec.e)} ${label(r.spec)}: ${n}`),
  );
  if (notes.length > 0) out.push('Notes from the runs:', ...notes, '');
  out.push('#### Reading', '', reading(results), '');
  out.push(...daySection(results));
  out.push(...auditSection(audits));
  out.push(...eventsSection());
  out.push(`(bench finished in ${sec(performance.now() - t0)} s real)`);
  process.stdout.write(`${out.join('\n')}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exitCode = 1;
});
