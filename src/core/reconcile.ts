/**
 * The reconciler's decisions (DESIGN §5 Reconcile): a row whose send may have reached MF (不明, or
 * 送信中 past its lease) is looked up before anything is ever sent again.
 */
import { LEASE_MS } from './budget';
import type { LedgerRecord, LedgerRow } from './ledger';

export interface ReconcileCandidate {
  key: string;
  rowNumber: number;
  record: LedgerRecord;
}

/** What MF says about one candidate. */
export type LookupResult =
  | { kind: 'found'; journalId: string }
  /** No journal, and the line is still 未仕訳 in MF (or, for CSV, no journal carries the tag). */
  | { kind: 'absent' }
  /** MF marks the line journalized but the journal is not listed yet (listing lag): wait. */
  | { kind: 'pending' }
  /** Someone set the line to 対象外 in MF: nothing to post, a person decides. */
  | { kind: 'excluded' }
  /** The row's 取引日 is in none of the office's accounting periods: MF cannot be asked (DESIGN §5). */
  | { kind: 'outside-period' };

export interface ReconcilePolicy {
  nowMs: number;
  /** 照合猶予: a send younger than this may not be visible in MF's listings yet. */
  graceMs: number;
  maxAttempts: number;
  now: string;
}

function updatedMs(record: LedgerRecord): number {
  const t = Date.parse(String(record.更新日時));
  return Number.isFinite(t) ? t : 0;
}

/** Rows to look up: every 不明 row, and 送信中 rows whose claim is older than the lease. */
export function reconcileCandidates(
  rows: readonly LedgerRow[],
  nowMs: number,
  leaseMs = LEASE_MS,
): ReconcileCandidate[] {
  const out: ReconcileCandidate[] = [];
  for (const row of rows) {
    const state = row.record.状態;
    const stale = state === '送信中' && nowMs - updatedMs(row.record) >= leaseMs;
    if (state === '不明' || stale)
      out.push({ key: String(row.record.キー), rowNumber: row.rowNumber, record: row.record });
  }
  return out;
}

/**
 * The patch for one looked-up row, or null to leave it as it is (and look again next time).
 * A row goes back to 送信待ち only when MF has no journal for it AND its last send is older than the
 * grace period; when the attempts are used up it goes to a person instead.
 */
export function reconcilePatch(
  c: ReconcileCandidate,
  result: LookupResult,
  p: ReconcilePolicy,
): Partial<LedgerRecord> | null {
  if (result.kind === 'found') {
    return {
      状態: '完了',
      MF仕訳ID: result.journalId,
      完了日時: p.now,
      更新日時: p.now,
      メモ: '照合でMFの仕訳を確認しました。',
    };
  }
  if (result.kind === 'pending') return null;
  if (result.kind === 'outside-period') {
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: `取引日 ${String(c.record.取引日)} が MF のどの会計期間にも入らないため、MF で照合できません。MF で事業年度（会計期間）と取引日を確かめ、仕訳があるかを MF の画面で確認してください。`,
    };
  }
  if (result.kind === 'excluded') {
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: 'MFでこの明細が「対象外」になっていて、仕訳は見つかりません。登録が不要なら「除外」を選んでください。',
    };
  }
  if (p.nowMs - updatedMs(c.record) < p.graceMs) return null;
  const attempts = Number(c.record.試行回数) || 0;
  if (attempts >= p.maxAttempts) {
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: `MFに仕訳が見つからず、送信を ${attempts} 回試しました（上限 ${p.maxAttempts} 回）。MFで明細を確認し、登録されていなければ「承認」を選んでください。`,
    };
  }
  return {
    状態: '送信待ち',
    更新日時: p.now,
    メモ: '照合でMFに仕訳が見つからなかったため、もう一度送ります。',
  };
}

/** Candidates still in the state they were looked up in (nothing else touched them meanwhile). */
export function unchanged(c: ReconcileCandidate, current: LedgerRecord | undefined): boolean {
  return !!current && current.状態 === c.record.状態 && current.更新日時 === c.record.更新日時;
}
