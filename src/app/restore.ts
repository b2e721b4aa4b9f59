/**
 * restoreLedgerFromMf(): rebuilds 台帳 rows that went missing from the journals kicho created in
 * MF (their remote tags and statement-line ids), as 完了, so nothing is ever posted a second time.
 */
import { ARCHIVE_SHEET, BRING_BACK, isArchived } from '../core/archive';
import { emptyRecord, newRowFor } from '../core/intake';
import { isRemoteTag, mfKey, remoteTag } from '../core/keys';
import { indexByKey, type LedgerRecord } from '../core/ledger';
import { connectedAccountName } from '../core/masters';
import { RECENT_SEND_MEMO } from '../core/recent-sends';
import { SHEET } from '../core/schema';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { archivedKeys, readCheckedIndex } from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { appendLedgerRecords, readLedger } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import { recordLedgerRows } from '../gas/run-state';
import { readMasters } from '../gas/settings-sheet';
import type { MfClient } from '../mf/client';
import { canonicalId, IdMap } from '../mf/ids';
import { mfLookup } from '../mf/lookup';
import type { MfTransaction } from '../mf/types';
import { archiveIndexRefusal, indexRefusal } from '../services/archive-index';
import {
  doneCountsWithArchive,
  goneMessage,
  lastDoneRows,
  noteTaggedGone,
  resetDoneRows,
} from '../services/done-rows';
import { kichoJournalsBetween } from '../services/kicho-journals';
import { preflight, settingsFor } from '../services/preflight';
import { recentlySent } from '../services/recent-sends';

const JOURNALIZED = new Set(['registered', 'modified', 'new_voucher_attached']);

import { type RunContext, type RunResult, runEntry } from '../services/run';

export function runRestore(_ctx: RunContext, given?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters);
  if (refused) return refused;
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.restore);
  if (refusal) return refusal;
  const window = importWindow(settings, today());
  if (window.problem) return { ok: false, count: 0, messages: [window.problem, ...notes] };
  // Archived lines stay archived only while the key index can be trusted (issue 25).
  const noIndex = archiveIndexRefusal();
  if (noIndex) return { ...noIndex, messages: [...noIndex.messages, ...notes] };
  const lookup = mfLookup(given ?? mfClient());
  const masters = readMasters();
  const { all, kicho: journals } = kichoJournalsBetween(lookup, window.start, window.end);
  // Canonical ids: journal.transaction_id may spell the line's id with other hex case (ids.ts).
  const withJournal = new Set(
    all.map((j) => j.transaction_id).flatMap((id) => (id ? [canonicalId(id)] : [])),
  );
  const lines = new IdMap<MfTransaction>();
  for (const t of lookup.statementLines([{ start: window.start, end: window.end }])) lines.set(t.id, t);
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
  // MF's listings lag behind a journalize: a line MF calls journalized whose journal does not show yet,
  // or that kicho sent a moment ago, comes back as 不明 — reconcile finds its journal later.
  const sentJustNow = recentlySent(settings.graceMinutes);
  const rebuiltIds = new Set(rebuilt.map((r) => r.明細ID));
  const waiting: LedgerRecord[] = [];
  for (const line of lines.values()) {
    if (rebuiltIds.has(line.id) || withJournal.has(canonicalId(line.id))) continue;
    const journalized = JOURNALIZED.has(line.journalizing_status);
    if (!journalized && !sentJustNow(mfKey(line.id))) continue;
    waiting.push({
      ...newRowFor(line, masters, now),
      状態: '不明',
      判定元: '復元',
      メモ: journalized
        ? 'MFではこの明細は仕訳済みですが、仕訳がまだ一覧に出てきません（MFの反映待ち）。照合で仕訳を確かめて「完了」にします。'
        : RECENT_SEND_MEMO,
    });
  }
  const done = underScriptLock(() => {
    const table = readLedger();
    // A line whose row is still there (even with a broken key: its 明細ID) is not added again.
    const present = indexByKey(table.rows);
    const ids = new Set(table.rows.map((r) => r.record.明細ID).filter((id) => id !== ''));
    // A line whose row was moved to 台帳アーカイブ is there too (one read of the key index).
    const { index, trouble } = readCheckedIndex();
    const noIndexNow = indexRefusal(trouble);
    if (noIndexNow) return { refused: noIndexNow };
    const candidates = [...rebuilt, ...waiting].filter((r) => !present.has(r.キー) && !ids.has(r.明細ID));
    // Indexed is not enough: an archive run killed between its index write and its copy leaves keys
    // indexed whose rows are only on the 台帳 — and this 台帳 lost them. Those come back here (in both
    // places for a moment; the next archive run keeps the 台帳 row and drops the index entry).
    const claimed = candidates.some((r) => isArchived(index, r.キー));
    const held = claimed ? archivedKeys() : new Set<string>();
    const added = candidates.filter((r) => !isArchived(index, r.キー) || !held.has(r.キー));
    const archived = candidates.length - added.length;
    const before = doneCountsWithArchive(table);
    const last = lastDoneRows();
    const gone = goneMessage(last, before);
    // The mark is reset below; that CSV or event rows went missing is kept (done-rows.ts).
    noteTaggedGone(last, before);
    // Counted from the sheet after the write (DESIGN §9.7), not from the plan.
    const written = appendLedgerRecords(added);
    recordLedgerRows(table.rows.length + written);
    // A person asked for this: from now on the 台帳 as it is is what completed rows are counted against.
    const pending = added.filter((r) => r.状態 === '不明').length;
    // Restored rows are sent rows (完了 with their journal, or 不明 waiting for it). A person asked for
    // this: with nothing left waiting, the 台帳 as it now is is what sent rows are counted against.
    if (written === added.length && pending === 0)
      resetDoneRows({ mf: before.mf + written, csv: before.csv });
    return { planned: added.length, written, gone, pending, archived };
  });
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE], busy: true };
  if ('refused' in done.value && done.value.refused) return done.value.refused;
  const { planned, written, gone, pending, archived } = done.value;
  const messages = [
    `MFの仕訳 ${journals.length} 件を確認し、台帳に ${written - pending} 行を「完了」として戻しました。`,
    ...notes,
  ];
  if (pending > 0)
    messages.push(
      `${pending} 行は、MFで仕訳済みなのに仕訳がまだ一覧に出てこないか、少し前に送信した明細のため「不明」として戻しました。照合で確かめてから「完了」にします（再送はしません）。`,
    );
  if (unkeyed > 0)
    messages.push(
      `明細に結びつかない仕訳 ${unkeyed} 件は戻せませんでした（CSVの行なら、同じCSVを取り込み直すと「完了」として戻ります。それ以外はMFで確認してください）。`,
    );
  if (archived > 0)
    messages.push(
      `${archived} 件はシート「${ARCHIVE_SHEET}」にアーカイブ済みの行のため、台帳には戻しませんでした（アーカイブから戻すには、その行の 操作 に「${BRING_BACK}」と入れてメニュー「記帳 > 台帳 > アーカイブから戻す」を実行してください）。`,
    );
  if (gone) messages.push(`復元の前: ${gone}`);
  if (written < planned) {
    messages.unshift(
      `台帳に ${planned} 行を書き込みましたが、読み直すと ${written} 行しかありません。台帳の見出し（1 行目）が変わっていないか確かめ、メニュー「記帳 > 接続と設定 > 初期設定」を実行してから、もう一度「台帳を復元」を実行してください。`,
    );
    return { ok: false, count: written, messages, restored: written, unkeyed };
  }
  return { count: written, messages, restored: written, unkeyed };
}

export function restoreLedgerFromMf(e?: unknown) {
  return runEntry('台帳の復元', e, (ctx) => runRestore(ctx));
}
