/**
 * importTransactions(): MF's 未仕訳 lines for the window in 設定 become 台帳 rows, once each.
 */

import { ARCHIVE_SHEET, isArchived } from '../core/archive';
import { intakeRows, planIntake } from '../core/intake';
import { isMfKey, mfKey } from '../core/keys';
import { keyCellText } from '../core/ledger';
import type { Masters } from '../core/masters';
import { SHEET } from '../core/schema';
import { importBlockedBy } from '../core/self-test';
import type { Settings } from '../core/settings';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { readIndexForLookup } from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { narrowLedger, scanColumns } from '../gas/ledger-scan';
import {
  appendLedgerRecords,
  ledgerSheet,
  readLedger,
  restoreKeys,
  writeLedgerChanges,
} from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import { readSelfTest, recordImportWindow, recordLedgerRows } from '../gas/run-state';
import { toast } from '../gas/toast';
import type { MfClient } from '../mf/client';
import { IdMap } from '../mf/ids';
import type { MfTransaction } from '../mf/types';
import { archiveIndexRefusal, indexRefusal } from '../services/archive-index';
import { noteCompleted, watchDoneRows } from '../services/done-rows';
import { currentMasters } from '../services/masters';
import { preflight, settingsFor } from '../services/preflight';
import { holdRecentlySent } from '../services/recent-sends';
import { type RunContext, type RunResult, runEntry } from '../services/run';

const UNSENT = new Set(['未判定', '要確認', '送信待ち', '失敗']);
const SETTLED_STATUSES = ['registered', 'modified', 'new_voucher_attached', 'excluded'] as const;
/** What intake reads of every row: presence (キー, 明細ID), unsent rows and the sent-rows watch (状態, MF仕訳ID). */
const INTAKE_COLUMNS = ['キー', '状態', 'MF仕訳ID', '明細ID'] as const;

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

/**
 * Keys of unsent MF rows, outside the lock: all this decides is which settled lines are worth a listing
 * (the lock's read decides the rest). 状態 of every row, then キー over the rows unsent (issue 18).
 */
function unsentMfKeys(sheet: GoogleAppsScript.Spreadsheet.Sheet): Set<string> {
  const scan = scanColumns(sheet, ['状態']);
  const keyCol = scan?.columns.get('キー');
  if (!scan || keyCol === undefined)
    return new Set(
      readLedger(sheet)
        .rows.filter((r) => isMfKey(r.record.キー) && UNSENT.has(r.record.状態))
        .map((r) => r.record.キー),
    );
  const rows = scan.rows.filter((r) => UNSENT.has(r.record.状態)).map((r) => r.rowNumber);
  if (rows.length === 0) return new Set();
  const first = Math.min(...rows);
  const keys = sheet.getRange(first, keyCol + 1, Math.max(...rows) - first + 1, 1).getValues();
  return new Set(rows.map((n) => keyCellText(keys[n - first]?.[0])).filter((k) => isMfKey(k)));
}

export function runImport(ctx: RunContext, given?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters);
  if (refused) return refused;
  // 本番前チェック saw keys not reading back (or another NG that makes exactly-once unsafe).
  const blocked = importBlockedBy(readSelfTest());
  if (blocked) return { ok: false, count: 0, messages: [blocked], blocked: true };
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.import);
  if (refusal) return refusal;
  const window = importWindow(settings, today());
  if (window.problem) return { ok: false, count: 0, messages: [window.problem, ...notes] };
  // Without a trustworthy key index an archived line would look new (issue 25): stop before MF is asked.
  const noIndex = archiveIndexRefusal();
  if (noIndex) return { ...noIndex, messages: [...noIndex.messages, ...notes] };
  toast(ctx.fromTrigger, 'MFから未仕訳明細を取り込んでいます…');
  const client = given ?? mfClient();
  const messages: string[] = [...notes];
  const { masters, refreshed } = currentMasters(client, ctx.startedAt);
  if (refreshed) messages.push('マスタをMFから取得しました。');
  const pending: MfTransaction[] = [];
  const settled: MfTransaction[] = [];
  const sheet = ledgerSheet();
  const unsentMf = unsentMfKeys(sheet);
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
    const now = new Date().toISOString();
    // Lines whose rows moved to 台帳アーカイブ are on the 台帳 for intake (one read of the key index):
    // MF lists a line excluded in kicho as 未仕訳 for ever, and it must not come back as a new row.
    const { index, trouble } = readIndexForLookup();
    const noIndex = indexRefusal(trouble);
    if (noIndex) return { refused: noIndex };
    const notArchived = pending.filter((t) => !isArchived(index, mfKey(t.id)));
    // Presence, the sent-rows watch and the row count need four columns of every row; only the rows the
    // plan may change are read whole (issue 18: not 22 columns of the whole 台帳).
    const { table } = narrowLedger(sheet, INTAKE_COLUMNS, (scan) =>
      intakeRows(scan.rows, notArchived, settled),
    );
    const gone = watchDoneRows(table);
    const plan = planIntake(table, notArchived, settled, masters, now, journalIds);
    const keyed = plan.changes.filter((c) => c.patch.キー !== undefined);
    const { withheld } = writeLedgerChanges(
      table,
      plan.changes.filter((c) => c.patch.キー === undefined),
      sheet,
    );
    const keys = restoreKeys(table, keyed, sheet);
    const held = new Set([...withheld, ...keys.withheld].map((c) => c.rowNumber));
    const applied = plan.changes.filter((c) => !held.has(c.rowNumber));
    noteCompleted(table, applied);
    // A line sent a moment ago whose row was deleted comes back 不明: looked up before any send.
    const fresh = holdRecentlySent(plan.newRows, settings.graceMinutes);
    // Counted from the sheet after the write (DESIGN §9.7), not from the plan.
    const added = appendLedgerRecords(fresh.rows, sheet);
    return {
      planned: plan.newRows.length,
      added,
      elsewhere: applied.filter((c) => c.patch.キー === undefined).length,
      restored: keys.restored,
      rows: table.rows.length + added,
      gone,
      held: fresh.held,
      archived: pending.length - notArchived.length,
    };
  });
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE], busy: true };
  if ('refused' in done.value && done.value.refused) return done.value.refused;
  const { planned, added, elsewhere, restored, rows, gone, held, archived } = done.value;
  if (held > 0)
    messages.unshift(
      `${held} 件は少し前に送信した明細のため「不明」として追加しました（行が消されて取り込み直された可能性があります）。照合でMFの仕訳を確かめるまで送信しません。`,
    );
  recordLedgerRows(rows);
  recordImportWindow(window.label);
  if (restored > 0)
    messages.unshift(
      `キーが書き換えられていた ${restored} 行は、明細ID（MFの明細と取引日・金額が一致）からキーを元に戻しました。`,
    );
  if (gone) messages.unshift(gone);
  messages.unshift(
    `${window.start} 〜 ${window.end} の未仕訳明細 ${pending.length} 件を確認し、${added} 件を台帳に追加しました。` +
      (elsewhere > 0 ? ` MFの画面で処理済みだった ${elsewhere} 件を更新しました。` : '') +
      (archived > 0 ? ` ${archived} 件はアーカイブ済みの行（シート「${ARCHIVE_SHEET}」）です。` : ''),
  );
  if (added < planned) {
    messages.unshift(
      `台帳に ${planned} 件を書き込みましたが、読み直すと ${added} 件しかありません。台帳の見出し（1 行目）が変わっていないか確かめ、メニュー「記帳 > 接続と設定 > 初期設定」を実行してから、もう一度取り込んでください。`,
    );
    return {
      ok: false,
      count: added,
      messages,
      added,
      journalizedElsewhere: elsewhere,
      seen: pending.length,
    };
  }
  return { count: added, messages, added, journalizedElsewhere: elsewhere, seen: pending.length };
}

export function importTransactions(e?: unknown) {
  return runEntry('明細の取込', e, (ctx) => runImport(ctx));
}
