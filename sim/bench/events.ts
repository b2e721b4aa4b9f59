/**
 * The web app's throughput (issue 17): waves of C doPost requests arriving at once (Apps Script runs up
 * to 30 executions of one user together), each with K events, against a 台帳 of E rows — interleaved
 * call by call, so the script lock is really contended. Requests the lock turned away are sent again in
 * the next wave, as senders do. Reports events recorded per modelled second (the waves' span on the
 * virtual clock), answers that asked for a resend, Sheets and Properties calls per request, and what a
 * day allows within Apps Script's quotas (Properties 50,000 read/write a day for a consumer account,
 * 500,000 Workspace; a web app's own runtime has no daily quota on the quotas page).
 */
import { performance } from 'node:perf_hooks';
import { Emulator } from '../gas/index';
import { seededPick, type WorkerPool } from '../gas/interleave';
import { answerOf, postConcurrently, type WebRequest } from '../gas/web-app';
import { datasetWithNone, fillExistingRows, OWNER, START, sheet } from './world';

export interface EventsSpec {
  rows: number;
  perRequest: number;
  concurrency: number;
  /** Distinct events to record (the waves go on until all are answered accepted). */
  events: number;
}

export interface EventsResult {
  spec: EventsSpec;
  requests: number;
  waves: number;
  accepted: number;
  /** Answers that said the lock was busy (retry safe), or no JSON. */
  retried: number;
  virtualMs: number;
  /** Mean / max modelled ms of one request from its start to its answer. */
  meanRequestMs: number;
  maxRequestMs: number;
  sheetsCallsPerRequest: number;
  propertyOpsPerRequest: number;
  realMs: number;
  rowsAfter: number;
}

const SECRET = 'bench-webhook-secret-0123456789abcdef0123456789abcdef0123';

export function runEventsBench(spec: EventsSpec, bundleDir: string, pool: WorkerPool): EventsResult {
  const emu = new Emulator({ bundleDir, owner: OWNER, start: START });
  const setup = emu.run('setup', { kind: 'menu', user: OWNER });
  if (setup.status !== 'ok') throw new Error(`setup failed: ${JSON.stringify(setup.error)}`);
  fillExistingRows(sheet(emu, '台帳'), spec.rows, datasetWithNone(0));
  const sources = sheet(emu, '取込元');
  sources.setValue(sources.lastRow() + 1, 1, 'shop');
  sources.setValue(sources.lastRow(), 2, '売掛金');
  emu.world.properties.script.set('KICHO_WEBHOOK_SECRET', SECRET);

  const batches: string[][] = [];
  for (let i = 0; i < spec.events; i += spec.perRequest)
    batches.push(
      Array.from({ length: Math.min(spec.perRequest, spec.events - i) }, (_, j) => `order-${i + j}`),
    );
  const request = (ids: readonly string[]): WebRequest => ({
    query: { key: SECRET },
    body: JSON.stringify({
      source: 'shop',
      events: ids.map((id, n) => ({
        id,
        type: 'paid',
        date: '2026-05-01',
        amount: 1000 + n,
        direction: '入金',
        description: `注文 ${id}`,
      })),
    }),
  });
  const t0 = performance.now();
  const v0 = emu.world.clock.now();
  let pending = batches;
  let requests = 0;
  let waves = 0;
  let accepted = 0;
  let retried = 0;
  let sheetsCalls = 0;
  let propertyOps = 0;
  const spans: number[] = [];
  while (pending.length > 0 && waves < 1000) {
    const wave = pending.slice(0, spec.concurrency);
    const out = postConcurrently(emu.world, wave.map(request), seededPick(waves + 1), { pool });
    waves += 1;
    requests += wave.length;
    const again: string[][] = [];
    out.responses.forEach((res, i) => {
      const e = out.executions[i];
      if (e) {
        sheetsCalls += e.counters.sheetsReads + e.counters.sheetsWrites + e.counters.flushes;
        propertyOps += e.counters.propertyOps;
        spans.push(e.endedAt - e.startedAt);
      }
      const a = answerOf(res) as { results: { id: string; status: string }[] } | null;
      if (!a || a.results.length === 0) {
        retried += 1;
        again.push(wave[i]);
        return;
      }
      const left = a.results.filter((r) => r.status === 'rejected').map((r) => r.id);
      accepted += a.results.filter((r) => r.status === 'accepted').length;
      if (left.length > 0) {
        retried += 1;
        again.push(left);
      }
    });
    pending = [...again, ...pending.slice(spec.concurrency)];
  }
  const rowsAfter = sheet(emu, '台帳').lastRow() - 1;
  return {
    spec,
    requests,
    waves,
    accepted,
    retried,
    virtualMs: emu.world.clock.now() - v0,
    meanRequestMs: spans.reduce((a, b) => a + b, 0) / Math.max(1, spans.length),
    maxRequestMs: Math.max(0, ...spans),
    sheetsCallsPerRequest: sheetsCalls / Math.max(1, requests),
    propertyOpsPerRequest: propertyOps / Math.max(1, requests),
    realMs: performance.now() - t0,
    rowsAfter,
  };
}

const PROPERTIES_PER_DAY = { consumer: 50_000, workspace: 500_000 };

/** The bench's Markdown table and a reading of it. */
export function eventsTable(results: readonly EventsResult[]): string[] {
  const out = [
    '| 台帳の行 | 1リクエストのイベント | 同時 | イベント | リクエスト（再送込み） | 再送を頼んだ答え | 1件の応答 平均 / 最大（模擬） | イベント/秒（模擬） | Sheets 呼び出し/リクエスト | Properties/リクエスト | 1日の上限（Properties: 無料 / Workspace） | 実時間 |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    const perSecond = r.accepted / (r.virtualMs / 1000);
    const perRequest = r.accepted / Math.max(1, r.requests);
    const perDay = (quota: number) =>
      Math.floor((quota / Math.max(1, r.propertyOpsPerRequest)) * perRequest).toLocaleString('en-US');
    out.push(
      `| ${r.spec.rows.toLocaleString('en-US')} | ${r.spec.perRequest} | ${r.spec.concurrency} | ${r.accepted.toLocaleString('en-US')} | ${r.requests} | ${r.retried} | ${(r.meanRequestMs / 1000).toFixed(1)} 秒 / ${(r.maxRequestMs / 1000).toFixed(1)} 秒 | ${perSecond.toFixed(1)} | ${r.sheetsCallsPerRequest.toFixed(1)} | ${r.propertyOpsPerRequest.toFixed(1)} | ${perDay(PROPERTIES_PER_DAY.consumer)} / ${perDay(PROPERTIES_PER_DAY.workspace)} | ${(r.realMs / 1000).toFixed(0)} 秒 |`,
    );
  }
  return out;
}
