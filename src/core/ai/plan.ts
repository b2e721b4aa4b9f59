/**
 * Which 台帳 rows AI 判定 takes, how they are marked while the request is out, and whether a
 * row may still receive the answer. The lock is not held during the requests, so the answer is
 * written only to a row that is still exactly as it was claimed: a person's edit always wins.
 */
import { indexByKey, type LedgerRecord, type LedgerRow, type RowChange } from '../ledger';
import { LEDGER_HEADERS } from '../schema';
import { claimedByLiveRun, claimMemo } from './limits';

export interface AiCandidate {
  key: string;
  /** The row as claimed (after the claim marker), to compare with at write-back. */
  claimed: LedgerRecord;
}

/**
 * 未判定 rows that no rule took (the rules pass ran first and kept them), with no 勘定科目 or 操作
 * from a person, not being judged by another live run, and with a key on one row only (a duplicate
 * key goes to the duplicate guard, not to a model).
 */
export function pickCandidates(rows: readonly LedgerRow[], nowMs: number): LedgerRow[] {
  const byKey = indexByKey(rows);
  return rows.filter((row) => {
    const r = row.record;
    return (
      r.状態.trim() === '未判定' &&
      r.勘定科目.trim() === '' &&
      r.操作.trim() === '' &&
      (byKey.get(r.キー)?.length ?? 0) === 1 &&
      !claimedByLiveRun(r.メモ, r.更新日時, nowMs)
    );
  });
}

/** The claim: a メモ marker and 更新日時, written with the rules' changes in the same write. */
export function claimRows(
  rows: readonly LedgerRow[],
  now: string,
): { changes: RowChange[]; candidates: AiCandidate[] } {
  const patch = { メモ: claimMemo(now), 更新日時: now };
  return {
    changes: rows.map((row) => ({ key: row.record.キー, rowNumber: row.rowNumber, patch })),
    candidates: rows.map((row) => ({ key: row.record.キー, claimed: { ...row.record, ...patch } })),
  };
}

/** The row holding the candidate's key, if it is still exactly as claimed (nobody touched it). */
export function untouchedRow(
  byKey: ReadonlyMap<string, LedgerRow[]>,
  candidate: AiCandidate,
): LedgerRow | null {
  const found = byKey.get(candidate.key) ?? [];
  if (found.length !== 1) return null;
  const row = found[0];
  for (const h of LEDGER_HEADERS) {
    if (String(row.record[h]) !== String(candidate.claimed[h])) return null;
  }
  return row;
}
