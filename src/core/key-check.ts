/**
 * Keys that no longer fit their rows (DESIGN §2). The キー column is system-owned, but it is a cell
 * like any other: a person can clear it, change one character, or edit the fields a CSV key was made
 * from. A row whose key is not one of the three forms, or does not fit its own row, is never sent —
 * sending it under a broken key would give its line a second tag and, on the next import, a second
 * journal. Pure.
 */
import { evtKeySource, isEvtKey, keyPart } from './events';
import {
  csvDescriptionForm,
  csvKey,
  isCsvKey,
  isMfKey,
  type LedgerKey,
  mfKey,
  transactionIdOf,
} from './keys';
import type { LedgerRecord, LedgerRow, RowChange } from './ledger';
import { transition } from './states';

const CSV_KEY = /^csv:[0-9a-f]{32}$/;

/** Occurrence numbers tried beyond the rows that share the content (people may have deleted twins). */
const EXTRA_OCCURRENCES = 100;

/** What a CSV key is made from (DESIGN §2), as one string: rows with equal forms are twins. */
export function csvContentForm(r: Pick<LedgerRecord, '口座' | '取引日' | '金額' | '摘要'>): string {
  return `${String(r.口座)}|${String(r.取引日)}|${String(r.金額)}|${csvDescriptionForm(String(r.摘要))}`;
}

/** How many rows share each CSV content form (for the occurrence numbers worth trying). */
export function contentCounts(rows: readonly LedgerRow[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of rows) {
    if (!isCsvKey(r.record.キー)) continue;
    const f = csvContentForm(r.record);
    counts.set(f, (counts.get(f) ?? 0) + 1);
  }
  return counts;
}

/** The occurrence n for which this row's own 口座/取引日/金額/摘要 give its key, or null. */
export function csvOccurrence(record: LedgerRecord, twins: number): number | null {
  const amount = Number(record.金額);
  if (!Number.isInteger(amount)) return null;
  const key = record.キー;
  for (let n = 1; n <= twins + EXTRA_OCCURRENCES; n++) {
    if (csvKey(record.口座, record.取引日, amount, record.摘要, n) === key) return n;
  }
  return null;
}

export const KEY_MSG = {
  form: (key: string) =>
    `キー「${key.length > 40 ? `${key.slice(0, 40)}…` : key}」は kicho のキーの形（mf:… / csv:… / evt:…）ではありません（キーが消されたか書き換えられています）。この行は送信しません。MFの明細なら次の「明細を取り込む」で、CSVの行なら同じCSVを取り込み直すと、キーを戻します。`,
  mf: (key: string, id: string) =>
    `キー「${key}」が明細ID「${id}」と合いません（キーか明細IDが書き換えられています）。この行は送信しません。キーは「mf:」のあとに明細IDが続く形です。どちらかを元に戻してください（明細IDが正しければ、次の「明細を取り込む」でキーを戻します）。`,
  evt: (key: string, source: string) =>
    `キー「${key.length > 60 ? `${key.slice(0, 60)}…` : key}」が この行の 口座「${source}」と合いません（キーか口座が書き換えられています）。送信元から届いたイベントは届いたときの取込元で登録するため、この行は送信しません。口座を元に戻して「承認」を選ぶか、この行を「除外」にしてください。`,
  csv: () =>
    'この行の 口座・取引日・金額・摘要 が、取り込んだときの内容（キー）と合いません（キーか、これらの列が書き換えられています）。CSVの明細は取り込んだ内容のまま登録するため、この行は送信しません。元の値に戻して「承認」を選ぶか、この行を「除外」にして正しい内容のCSVを取り込んでください。',
} as const;

/** Why this row's key cannot be sent, or null when it fits. `twins`: rows sharing its CSV content. */
export function keyProblem(record: LedgerRecord, twins = 1): string | null {
  const key = record.キー.trim();
  if (isMfKey(key)) {
    const id = record.明細ID;
    return key.length > 3 && transactionIdOf(key) === id ? null : KEY_MSG.mf(key, id);
  }
  if (isCsvKey(key)) {
    if (!CSV_KEY.test(key)) return KEY_MSG.form(key);
    return csvOccurrence(record, twins) === null ? KEY_MSG.csv() : null;
  }
  if (isEvtKey(key)) {
    // evt:<取込元>:<id>[:<type>] (events.ts encodes ':' and spaces inside id and type): the 取込元 is
    // the row's 口座, which the posting takes the counter account from.
    const source = evtKeySource(key);
    if (source === null) return KEY_MSG.form(key);
    return source === keyPart(record.口座) ? null : KEY_MSG.evt(key, record.口座);
  }
  return KEY_MSG.form(key);
}

/**
 * The row's キー as a key that may go to MF (its tag on the journal), or null when {@link keyProblem} finds
 * it does not fit the row: the one way a キー cell becomes a {@link LedgerKey}.
 */
export function checkedKey(record: LedgerRecord, twins = 1): LedgerKey | null {
  return keyProblem(record, twins) === null ? (record.キー as LedgerKey) : null;
}

/** The key an `mf:` row should have, when its 明細ID says so. */
export function mfKeyOfRow(record: LedgerRecord): string | null {
  const id = record.明細ID.trim();
  return id === '' ? null : mfKey(id);
}

/**
 * The pre-send guard: every 送信待ち row whose key does not fit goes to 要確認 with the reason, before
 * anything is claimed. The rest of the batch goes on.
 */
export function guardKeys(rows: readonly LedgerRow[], now: string): RowChange[] {
  const waiting = rows.filter((r) => r.record.状態 === '送信待ち');
  if (waiting.length === 0) return [];
  const counts = contentCounts(rows);
  const changes: RowChange[] = [];
  for (const row of waiting) {
    const problem = keyProblem(row.record, counts.get(csvContentForm(row.record)) ?? 1);
    if (!problem) continue;
    changes.push({
      key: row.record.キー,
      rowNumber: row.rowNumber,
      patch: { 状態: transition(row.record.状態, '要確認', 'key guard'), メモ: problem, 更新日時: now },
    });
  }
  return changes;
}
