/**
 * restoreLedgerFromMf(): rebuilds 台帳 rows that went missing from the journals kicho created in
 * MF (their remote tags and statement-line ids), as 完了, so nothing is ever posted a second time.
 */
import { emptyRecord } from '../core/intake';
import { isRemoteTag, mfKey, remoteTag } from '../core/keys';
import { indexByKey, type LedgerRecord } from '../core/ledger';
import { connectedAccountName } from '../core/masters';
import { isKichoJournal } from '../core/mf-behaviour';
import { today } from '../gas/clock';
import { appendLedgerRecords, readLedger } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import { readMfBehaviour, recordLedgerRows } from '../gas/run-state';
import { readMasters, readSettings } from '../gas/settings-sheet';
import type { MfClient } from '../mf/client';
import { IdMap } from '../mf/ids';
import type { MfTransaction } from '../mf/types';
import { importWindow } from './import-transactions';
import { type RunContext, type RunResult, runEntry } from './run';

export function runRestore(_ctx: RunContext, client: MfClient = mfClient()): RunResult {
  const { settings } = readSettings();
  const masters = readMasters();
  const window = importWindow(settings, today());
  // Where journalize keeps no tags (本番前チェック saw it), every statement-line journal counts: the line is
  // journalized in MF, so it must never be posted again, whoever made it.
  const behaviour = readMfBehaviour();
  const journals = client
    .journalsBetween(window.start, window.end)
    .filter((j) => isKichoJournal(j, behaviour));
  // Keyed by canonical id: journal.transaction_id may spell the line's id with other hex case (ids.ts).
  const lines = new IdMap<MfTransaction>();
  for (const t of client.listTransactions({ startDate: window.start, endDate: window.end }))
    lines.set(t.id, t);
  const now = new Date().toISOString();
  const rebuilt: LedgerRecord[] = [];
  let unkeyed = 0;
  for (const j of journals) {
    // Only a journal made from a statement line can be keyed again; its tag proves it is ours. The key
    // is the line's id as /transactions lists it (DESIGN §2), which is what the tag was made from.
    const line = j.transaction_id ? lines.get(j.transaction_id) : undefined;
    const lineId = line?.id ?? j.transaction_id;
    const tagged = j.tags.some(isRemoteTag);
    if (!lineId || (tagged && !j.tags.includes(remoteTag(mfKey(lineId))))) {
      unkeyed += 1;
      continue;
    }
    const side = j.branches[0]?.debitor ?? j.branches[0]?.creditor;
    rebuilt.push({
      ...emptyRecord(),
      キー: mfKey(lineId),
      状態: '完了',
      取引日: line?.date ?? j.transaction_date,
      入出金: line ? (line.side === 'INCOME' ? '入金' : '出金') : '',
      金額: line?.value ?? (side ? side.value + (side.tax_value ?? 0) : ''),
      摘要: line?.content ?? j.branches[0]?.remark ?? '',
      口座: line
        ? connectedAccountName(masters, line.connected_account_id, line.connected_sub_account_id)
        : '',
      勘定科目: side?.account_name ?? '',
      MF仕訳ID: j.id,
      明細ID: lineId,
      判定元: '復元',
      完了日時: now,
      更新日時: now,
      初回検知: now,
      メモ: tagged
        ? 'MFの仕訳から台帳を復元しました。'
        : 'MFの仕訳から台帳を復元しました（この MF では明細からの仕訳にタグが残らないため、明細ID で復元しました。kicho 以外が登録した仕訳のこともあります）。',
    });
  }
  const done = underScriptLock(() => {
    const table = readLedger();
    const present = indexByKey(table.rows);
    const added = rebuilt.filter((r) => !present.has(String(r.キー)));
    appendLedgerRecords(added);
    recordLedgerRows(table.rows.length + added.length);
    return added;
  });
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE] };
  const added = done.value;
  const messages = [
    `MFの仕訳 ${journals.length} 件を確認し、台帳に ${added.length} 行を「完了」として戻しました。`,
  ];
  if (unkeyed > 0)
    messages.push(`明細に結びつかない仕訳 ${unkeyed} 件は戻せませんでした（MFで確認してください）。`);
  return { count: added.length, messages, restored: added.length, unkeyed };
}

export function restoreLedgerFromMf(e?: unknown) {
  return runEntry('台帳の復元', e, (ctx) => runRestore(ctx));
}
