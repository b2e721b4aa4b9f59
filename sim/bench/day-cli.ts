/**
 * `npm run bench:day [-- LINES [INTERVAL…]]` (default 10,000 lines at 照合間隔 5, 10 and 15 minutes): one
 * office's whole day in the emulator (day.ts) — the lines in MF at midnight, 自動実行 オン, every trigger
 * firing until the next midnight on a consumer account — with the day's quota spent, when the last line
 * was posted, and what is left for tomorrow. Modelled figures (virtual time).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAILY_QUOTA, PLAN_SHARE } from '../../src/core/quota';
import { runDay } from './day';

const here = path.dirname(fileURLToPath(import.meta.url));
const lines = Number(process.argv[2] ?? 10_000);
const intervals = (process.argv.length > 3 ? process.argv.slice(3) : ['5', '10', '15']).map(Number);
const limit = DAILY_QUOTA.consumer;
const out = [
  `| 明細 | 照合間隔 | 定期実行 | トリガー時間 (分) / ${limit.triggerMinutes} | UrlFetch / ${limit.fetches.toLocaleString('en')} | 最後の登録 | 1回ずつ登録 | 重複 | 明日へ (送信待ち) | Google が止めた実行 | wall (s) |`,
  '|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|',
];
let ok = true;
for (const interval of intervals) {
  const r = runDay({ lines, intervalMinutes: interval as 5, bundleDir: path.join(here, '..', '..', 'dist') });
  ok &&= r.outcome.duplicated === 0 && r.quotaStops === 0 && r.leftSending === 0;
  out.push(
    `| ${lines.toLocaleString('en')} | ${interval} 分 | ${r.runs.filter((x) => x.handler === 'runScheduled').length} | ${r.triggerMinutes.toFixed(1)} | ${r.fetches.toLocaleString('en')} | ${r.lastPostedAt ?? '—'} | ${r.outcome.exactlyOnce.toLocaleString('en')} | ${r.outcome.duplicated} | ${r.leftWaiting.toLocaleString('en')} | ${r.quotaStops} | ${r.wallSeconds.toFixed(0)} |`,
  );
  process.stdout.write(`${out.at(-1)}\n`);
}
process.stdout.write(
  `\n${out.join('\n')}\n\nkicho plans with ${PLAN_SHARE * 100} % of the quota (${limit.triggerMinutes * PLAN_SHARE} trigger minutes).\n`,
);
process.exit(ok ? 0 : 1);
