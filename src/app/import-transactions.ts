/**
 * importTransactions(): MF's 未仕訳 lines for the window in 設定 become 台帳 rows, once each.
 */

import { planIntake, type StatementLine } from '../core/intake';
import { isMfKey, mfKey } from '../core/keys';
import type { Masters } from '../core/masters';
import { importBlockedBy } from '../core/self-test';
import type { Settings } from '../core/settings';
import { today } from '../gas/clock';
import { appendLedgerRecords, readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import { readSelfTest, recordImportWindow, recordLedgerRows } from '../gas/run-state';
import { readSettings } from '../gas/settings-sheet';
import { toast } from '../gas/toast';
import type { MfClient } from '../mf/client';
import { IdMap } from '../mf/ids';
import type { MfTransaction } from '../mf/types';
import { currentMasters } from './masters';
import { type RunContext, type RunResult, runEntry } from './run';

const UNSENT = new Set(['未判定', '要確認', '送信待ち', '失敗']);
const SETTLED_STATUSES = ['registered', 'modified', 'new_voucher_attached', 'excluded'] as const;

/** Without 取込開始日, the first day of the previous month: recent lines, not the whole history. */
function defaultStart(todayText: string): string {
  const [y, m] = todayText.split('-').map(Number);
  const month = m === 1 ? 12 : m - 1;
  const year = m === 1 ? y - 1 : y;
  return `${year}-${String(month).padStart(2, '0')}-01`;
}

export function importWindow(
  settings: Settings,
  todayText: string,
): { start: string; end: string; label: string } {
  const start = settings.importStart ?? defaultStart(todayText);
  const end = settings.importEnd ?? todayText;
  return { start, end, label: `${settings.importStart ?? ''}..${settings.importEnd ?? ''}` };
}

/** Connected-account ids for 対象口座 (names), or [undefined] for all; unknown names are reported. */
function targets(settings: Settings, masters: Masters, messages: string[]): (string | undefined)[] {
  if (settings.targetAccounts.length === 0) return [undefined];
  const ids: string[] = [];
  for (const name of settings.targetAccounts) {
    const acc = masters.connectedAccounts.find((c) => c.name.normalize('NFKC') === name.normalize('NFKC'));
    if (acc) ids.push(acc.id);
    else messages.push(`対象口座「${name}」がMFの連携口座にありません。設定の 対象口座 を直してください。`);
  }
  return ids;
}

function asLine(t: MfTransaction): StatementLine {
  return t;
}

export function runImport(ctx: RunContext, client: MfClient = mfClient()): RunResult {
  // 本番前チェック saw keys not reading back (or another NG that makes exactly-once unsafe).
  const blocked = importBlockedBy(readSelfTest());
  if (blocked) return { ok: false, count: 0, messages: [blocked], blocked: true };
  toast(ctx.fromTrigger, 'MFから未仕訳明細を取り込んでいます…');
  const messages: string[] = [];
  const { settings, problems } = readSettings();
  messages.push(...problems.map((p) => `${p.cell} ${p.message}`));
  const { masters, refreshed } = currentMasters(client, ctx.startedAt);
  if (refreshed) messages.push('マスタをMFから取得しました。');
  const window = importWindow(settings, today());
  const pending: MfTransaction[] = [];
  const settled: MfTransaction[] = [];
  const before = readLedger();
  const unsentMf = new Set(
    before.rows
      .filter((r) => isMfKey(String(r.record.キー)) && UNSENT.has(String(r.record.状態)))
      .map((r) => String(r.record.キー)),
  );
  for (const target of targets(settings, masters, messages)) {
    const base = { startDate: window.start, endDate: window.end, connectedAccountId: target };
    pending.push(...client.listTransactions({ ...base, statuses: ['none'] }));
    // Only worth a listing when some unsent row could have been journalized in MF's own screen.
    if (unsentMf.size > 0) {
      settled.push(
        ...client
          .listTransactions({ ...base, statuses: [...SETTLED_STATUSES] })
          .filter((t) => unsentMf.has(mfKey(t.id))),
      );
    }
  }
  // Journals of lines journalized in MF's own screen, one listing per accounting period (DESIGN §5), keyed
  // by the line's id as listed: journal.transaction_id is compared by canonical form (ids.ts).
  const journalIds = new Map<string, string>();
  const journalized = settled.filter((t) => t.journalizing_status !== 'excluded');
  if (journalized.length > 0) {
    const byLine = new IdMap<string>();
    for (const j of client.journalsBetween(window.start, window.end, {
      transactionIds: journalized.map((t) => t.id),
    })) {
      if (j.transaction_id) byLine.set(j.transaction_id, j.id);
    }
    for (const t of journalized) {
      const journal = byLine.get(t.id);
      if (journal) journalIds.set(t.id, journal);
    }
  }

  const done = underScriptLock(() => {
    const table = readLedger();
    const now = new Date().toISOString();
    const plan = planIntake(table, pending.map(asLine), settled.map(asLine), masters, now, journalIds);
    writeLedgerChanges(table, plan.changes);
    appendLedgerRecords(plan.newRows);
    return {
      added: plan.newRows.length,
      elsewhere: plan.changes.length,
      rows: table.rows.length + plan.newRows.length,
    };
  });
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE] };
  const { added, elsewhere, rows } = done.value;
  recordLedgerRows(rows);
  recordImportWindow(window.label);
  messages.unshift(
    `${window.start} 〜 ${window.end} の未仕訳明細 ${pending.length} 件を確認し、${added} 件を台帳に追加しました。` +
      (elsewhere > 0 ? ` MFの画面で処理済みだった ${elsewhere} 件を更新しました。` : ''),
  );
  return { count: added, messages, added, journalizedElsewhere: elsewhere, seen: pending.length };
}

export function importTransactions(e?: unknown) {
  return runEntry('明細の取込', e, (ctx) => runImport(ctx));
}
