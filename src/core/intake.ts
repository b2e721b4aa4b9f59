/**
 * Intake from MF (DESIGN §1 取込): each 未仕訳 line becomes one 台帳 row keyed `mf:<id>`, once.
 * A line that MF no longer lists as 未仕訳 while our row is unsent was journalized (or excluded) in
 * MF's own screen: we record that and never post it.
 */

import { journalWentMissing } from './journal-check';
import { isMfKey, mfKey } from './keys';
import { indexByKey, type LedgerRecord, type LedgerRow, type LedgerTable, type RowChange } from './ledger';
import { connectedAccountName, type Masters } from './masters';
import { LEDGER_HEADERS } from './schema';
import { transition } from './states';

/** The fields of an MF statement line that intake needs. */
export interface StatementLine {
  id: string;
  date: string;
  value: number;
  side: 'INCOME' | 'EXPENSE';
  content: string | null;
  journalizing_status: string;
  connected_account_id: string;
  connected_sub_account_id: string | null;
}

/** States in which our row has not been sent, so MF's own journal is the only one. */
const UNSENT = new Set(['未判定', '要確認', '送信待ち', '失敗']);

export function emptyRecord(): LedgerRecord {
  const record = {} as LedgerRecord;
  for (const h of LEDGER_HEADERS) record[h] = '';
  record.試行回数 = 0;
  return record;
}

export function newRowFor(line: StatementLine, masters: Masters, now: string): LedgerRecord {
  return {
    ...emptyRecord(),
    キー: mfKey(line.id),
    状態: '未判定',
    取引日: line.date,
    入出金: line.side === 'INCOME' ? '入金' : '出金',
    金額: line.value,
    摘要: line.content ?? '',
    口座: connectedAccountName(masters, line.connected_account_id, line.connected_sub_account_id),
    明細ID: line.id,
    初回検知: now,
    更新日時: now,
  };
}

export interface IntakePlan {
  newRows: LedgerRecord[];
  /** Rows MF already journalized or excluded outside kicho, and keys put back (keysRestored). */
  changes: RowChange[];
  /** Keys of rows moved because MF journalized them elsewhere (their journal id is looked up). */
  journalizedElsewhere: string[];
  /** Rows whose キー a person had changed or cleared, given back `mf:` + their 明細ID. */
  keysRestored: number;
}

export const KEY_RESTORED_MEMO =
  'キーが書き換えられていたため、明細ID（MFの明細と取引日・金額が一致）から元に戻しました。キーの列は変えないでください。';

/**
 * The rows {@link planIntake} may change, found from キー, 状態 and 明細ID alone (issue 18): rows whose key
 * may be put back (their 明細ID names a listed line) and unsent rows of lines MF settled. Only these need
 * their other columns (取引日 and 金額 confirm a key; a write covers the span of changed rows).
 */
export function intakeRows(
  rows: readonly LedgerRow[],
  pending: readonly StatementLine[],
  settled: readonly StatementLine[],
): number[] {
  const byKey = indexByKey(rows);
  const listed = new Set([...pending, ...settled].map((l) => l.id));
  const out: number[] = [];
  for (const row of rows) {
    const r = row.record;
    const id = r.明細ID.trim();
    if (id === '' || !listed.has(id)) continue;
    const want = mfKey(id);
    if (r.キー === want || byKey.has(want) || r.状態 === '除外') continue;
    out.push(row.rowNumber);
  }
  for (const line of settled) {
    const key = mfKey(line.id);
    if (!isMfKey(key)) continue;
    for (const row of byKey.get(key) ?? []) if (UNSENT.has(row.record.状態)) out.push(row.rowNumber);
  }
  return out;
}

/**
 * `pending` are the lines MF lists as none; `settled` are lines in other statuses within the window.
 * Lines are added in MF's order; a line already in the 台帳 is never added again.
 */
export function planIntake(
  table: LedgerTable,
  pending: readonly StatementLine[],
  settled: readonly StatementLine[],
  masters: Masters,
  now: string,
  /** Journal ids MF holds for settled lines (transaction id → journal id), when looked up. */
  journalIds: ReadonlyMap<string, string> = new Map(),
): IntakePlan {
  const byKey = indexByKey(table.rows);
  // A row keeps its line even when a person broke its key: its 明細ID still names the line, so the
  // line is not added a second time (and the key is put back when MF's line confirms the row).
  const idOnSheet = new Set(table.rows.map((r) => r.record.明細ID.trim()).filter((id) => id !== ''));
  const newRows: LedgerRecord[] = [];
  const seen = new Set<string>();
  for (const line of pending) {
    const key = mfKey(line.id);
    if (byKey.has(key) || idOnSheet.has(line.id) || seen.has(key)) continue;
    seen.add(key);
    newRows.push(newRowFor(line, masters, now));
  }
  const changes: RowChange[] = [];
  const lineById = new Map([...pending, ...settled].map((l) => [l.id, l]));
  let keysRestored = 0;
  for (const row of table.rows) {
    const r = row.record;
    const id = r.明細ID.trim();
    const want = id === '' ? null : mfKey(id);
    if (want === null || r.キー === want || byKey.has(want) || r.状態 === '除外') continue;
    const line = lineById.get(id);
    if (!line || line.date !== r.取引日 || line.value !== Number(r.金額)) continue;
    changes.push({
      key: r.キー,
      rowNumber: row.rowNumber,
      patch: { キー: want, 更新日時: now, メモ: KEY_RESTORED_MEMO },
    });
    keysRestored += 1;
  }
  const journalizedElsewhere: string[] = [];
  for (const line of settled) {
    const key = mfKey(line.id);
    for (const row of byKey.get(key) ?? []) {
      if (!isMfKey(key) || !UNSENT.has(row.record.状態)) continue;
      const excluded = line.journalizing_status === 'excluded';
      // MF makes a line 対象外 when its journal is deleted: a row whose journal was found gone stays for a
      // person to decide (listed on 要確認), not excluded as if someone chose 対象外.
      if (excluded && journalWentMissing(row.record)) continue;
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: excluded
          ? {
              状態: transition(row.record.状態, '除外', 'import: 対象外 in MF'),
              操作: '',
              更新日時: now,
              メモ: 'MFの画面で「対象外」にされたため除外しました。',
            }
          : {
              状態: transition(row.record.状態, '完了', 'import: journalized in MF'),
              MF仕訳ID: journalIds.get(line.id) ?? '',
              操作: '',
              更新日時: now,
              完了日時: now,
              メモ: 'MFの画面で仕訳済みになっていたため、登録せずに完了としました。',
            },
      });
      if (!excluded) journalizedElsewhere.push(key);
    }
  }
  return { newRows, changes, journalizedElsewhere, keysRestored };
}
