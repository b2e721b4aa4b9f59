/**
 * The memory of recent sends (core/recent-sends.ts) in script properties: one read and at most one
 * write per 台帳 write that claims or settles rows, under the script lock like the write itself.
 */
import { LEASE_MS } from '../core/budget';
import type { LedgerRecord, RowChange } from '../core/ledger';
import {
  formatRecentSends,
  parseRecentSends,
  RECENT_SEND_MEMO,
  type RecentSend,
  sentRecently,
  updateRecentSends,
} from '../core/recent-sends';
import { SAFETY } from '../core/safety';
import { scriptProperties } from '../gas/properties';

const PREFIX = 'KICHO_RECENT_SENDS';

function minute(ms: number): number {
  return Math.floor(ms / 60_000);
}

/** How long a send is remembered: a claim may stay in flight for the lease, then MF may lag for 照合猶予. */
export function memoryMinutes(graceMinutes: number): number {
  return Math.ceil(LEASE_MS / 60_000) + graceMinutes;
}

function read(): { entries: RecentSend[]; names: string[] } {
  const all = scriptProperties().getProperties();
  const names = Object.keys(all)
    .filter((k) => k === PREFIX || k.startsWith(`${PREFIX}_`))
    .sort();
  return { entries: names.flatMap((n) => parseRecentSends(all[n])), names };
}

function write(entries: readonly RecentSend[], oldNames: readonly string[]): void {
  const props = scriptProperties();
  const values = formatRecentSends(entries);
  const next: Record<string, string> = {};
  values.forEach((v, i) => {
    next[i === 0 ? PREFIX : `${PREFIX}_${i}`] = v;
  });
  if (values.length > 0) props.setProperties(next);
  for (const n of oldNames) if (!(n in next)) props.deleteProperty(n);
}

const NOT_SENT = new Set(['送信待ち', '要確認', '失敗', '除外']);

/** After a 台帳 write under the lock: claims are remembered, rows that went back unsent are forgotten. */
export function noteSends(changes: readonly RowChange[], graceMinutes: number, nowMs = Date.now()): void {
  const remember: string[] = [];
  const forget: string[] = [];
  for (const c of changes) {
    const state = c.patch.状態;
    if (state === '送信中') remember.push(c.key);
    else if (typeof state === 'string' && NOT_SENT.has(state)) forget.push(c.key);
  }
  if (remember.length === 0 && forget.length === 0) return;
  const { entries, names } = read();
  if (remember.length === 0 && entries.length === 0) return;
  write(updateRecentSends(entries, minute(nowMs), memoryMinutes(graceMinutes), remember, forget), names);
}

/**
 * New rows whose line was sent a moment ago (its row deleted since): added as 不明, so reconcile looks
 * the journal up before anything is sent (one properties read).
 */
export function holdRecentlySent(
  rows: readonly LedgerRecord[],
  graceMinutes: number,
  nowMs = Date.now(),
): { rows: LedgerRecord[]; held: number } {
  if (rows.length === 0) return { rows: [], held: 0 };
  if (!SAFETY.recentSends) return { rows: rows.slice(), held: 0 };
  const { entries } = read();
  if (entries.length === 0) return { rows: rows.slice(), held: 0 };
  let held = 0;
  const out = rows.map((r) => {
    if (r.状態 !== '未判定' || !sentRecently(entries, r.キー, minute(nowMs), memoryMinutes(graceMinutes)))
      return r;
    held += 1;
    return { ...r, 状態: '不明' as const, メモ: RECENT_SEND_MEMO };
  });
  return { rows: out, held };
}

/** Whether each key's line was sent a moment ago (one properties read for all). */
export function recentlySent(graceMinutes: number, nowMs = Date.now()): (key: string) => boolean {
  if (!SAFETY.recentSends) return () => false;
  const { entries } = read();
  return (key) => sentRecently(entries, key, minute(nowMs), memoryMinutes(graceMinutes));
}
