/**
 * The reconciler's decisions (DESIGN §5 Reconcile): a row whose send may have reached MF (不明, or
 * 送信中 past its lease) is looked up before anything is ever sent again.
 */
import { LEASE_MS } from './budget';
import { recoverable } from './exactly-once/outcomes';
import { isCsvKey, mfKey } from './keys';
import { indexByKey, type LedgerRecord, type LedgerRow, type LedgerTable, type RowChange } from './ledger';
import { OVERWRITTEN_MEMO } from './ledger-repair';
import {
  type ClockPort,
  type LedgerPort,
  type LockPort,
  type LookupPort,
  type LookupResult,
  type ReconcileCandidate,
  underLock,
} from './ports';
import { claimStateOf } from './posting';
import { isLedgerState, type LedgerState, transition } from './states';

/** What reconcile writes in メモ and says at the end of a run. */
export const RECONCILE_MSG = {
  keyRestored:
    'キーが書き換えられていたため、MFの仕訳（この明細IDの明細から作られたもの）を確かめてキーを元に戻しました。キーの列は変えないでください。',
  found: '照合でMFの仕訳を確認しました。',
  foundStray: (how: string) => `照合でMFの仕訳を確認しました（${how}）。`,
  outsidePeriod: (date: string) =>
    `取引日 ${date} が MF のどの会計期間にも入らないため、MF で照合できません。MF で事業年度（会計期間）と取引日を確かめ、仕訳があるかを MF の画面で確認してください。`,
  missingStray: (how: string, date: string) =>
    `${how}が、MFでこの明細が見つかりません（取引日 ${date} の前後と取込期間を探しました）。取引日を変えた場合はMFの明細と同じに戻してください。`,
  excludedStray: (how: string) =>
    `${how}が、MFではこの明細が「対象外」です（仕訳はありません）。登録が不要なら「除外」を選んでください。`,
  absentStray: (how: string) =>
    `${how}が、MFにこの明細の仕訳は見つかりません。内容を確かめて「承認」（登録する）か「除外」を選んでください。`,
  excluded:
    'MFでこの明細が「対象外」になっていて、仕訳は見つかりません。登録が不要なら「除外」を選んでください。',
  attemptsUsed: (attempts: number, max: number) =>
    `MFに仕訳が見つからず、送信を ${attempts} 回試しました（上限 ${max} 回）。MFで明細を確認し、登録されていなければ「承認」を選んでください。`,
  resend: '照合でMFに仕訳が見つからなかったため、もう一度送ります。',
  nothing: '照合が必要な行はありません。',
  busy: '別の実行が進行中です。次の照合で確認します。',
  summary: (o: Extract<ReconcileOutcome, { kind: 'settled' }>) =>
    `照合: ${o.candidates} 件を確認し、完了 ${o.found} 件、再送待ち ${o.resend} 件、要確認 ${o.review} 件` +
    (o.waiting > 0 ? `、${o.waiting} 件は次の照合で確かめます。` : '。'),
} as const;

export type { LookupResult, ReconcileCandidate } from './ports';

export interface ReconcilePolicy {
  nowMs: number;
  /** 照合猶予: a send younger than this may not be visible in MF's listings yet. */
  graceMs: number;
  maxAttempts: number;
  now: string;
}

function updatedMs(record: LedgerRecord): number {
  const t = Date.parse(record.更新日時);
  return Number.isFinite(t) ? t : 0;
}

/**
 * A row a person's edit left without a usable state: a 状態 outside §4 (cleared, or typed), or 完了
 * without the MF仕訳ID every 完了 of ours carries. Its line may be posted or not: it is looked up too.
 */
export function strayState(record: LedgerRecord): boolean {
  const state = record.状態;
  if (!isLedgerState(state)) return record.キー.trim() !== '' || record.明細ID.trim() !== '';
  return state === '完了' && record.MF仕訳ID.trim() === '';
}

/**
 * How a stray row got that way, for メモ: a write's repair that could not put its cells back
 * (ledger-repair.ts), or the 状態 a person left.
 */
function strayHow(record: LedgerRecord): string {
  if (record.メモ === OVERWRITTEN_MEMO)
    return '書き込みの最中に台帳が並べ替えられ、この行の状態が分からなくなっていました';
  const was = record.状態;
  if (was === '完了') return '状態が「完了」で MF仕訳ID がありませんでした';
  return was.trim() === '' ? '状態が空になっていました' : `状態が「${was}」になっていました`;
}

/**
 * The key an MF line's row should have when a person changed its キー (the 明細ID still names the
 * line), or null. Reconcile gives it back when MF holds the line's journal: that is proof enough.
 */
export function keyToRestore(record: LedgerRecord): string | null {
  const id = record.明細ID.trim();
  const key = record.キー;
  if (id === '' || isCsvKey(key) || record.状態 === '除外') return null;
  const want = mfKey(id);
  return key === want ? null : want;
}

export const KEY_RESTORED_BY_JOURNAL = RECONCILE_MSG.keyRestored;

/**
 * What a posting run leaves to 照合 and says so (issue 25: after a killed run it said only 「0 件」):
 * 送信中 rows still within their lease (another run is sending, or one was killed moments ago), 送信中
 * rows past it, and 不明 rows. `lookupFromMs`: when the first of the former becomes a reconcile candidate.
 */
export interface AwaitingLookup {
  sending: number;
  stale: number;
  unknown: number;
  lookupFromMs: number | null;
}

export function awaitingLookup(
  rows: readonly LedgerRow[],
  nowMs: number,
  leaseMs = LEASE_MS,
): AwaitingLookup {
  const out: AwaitingLookup = { sending: 0, stale: 0, unknown: 0, lookupFromMs: null };
  for (const row of rows) {
    const state = row.record.状態;
    if (state === '不明') out.unknown += 1;
    if (state !== '送信中') continue;
    const from = updatedMs(row.record) + leaseMs;
    if (nowMs >= from) {
      out.stale += 1;
      continue;
    }
    out.sending += 1;
    out.lookupFromMs = out.lookupFromMs === null ? from : Math.min(out.lookupFromMs, from);
  }
  return out;
}

/**
 * Rows to look up: every 不明 row, 送信中 rows whose claim is older than the lease, rows whose
 * 状態 a person left unusable (strayState), and MF rows whose キー a person changed (keyToRestore).
 */
export function reconcileCandidates(
  rows: readonly LedgerRow[],
  nowMs: number,
  leaseMs = LEASE_MS,
): ReconcileCandidate[] {
  const out: ReconcileCandidate[] = [];
  for (const row of rows) {
    // 不明, or 送信中 past its lease: the skeleton's rule for what recovery looks up.
    const recover = recoverable(claimStateOf(row.record.状態), nowMs - updatedMs(row.record), leaseMs);
    if (recover || strayState(row.record) || keyToRestore(row.record) !== null)
      out.push({ key: row.record.キー, rowNumber: row.rowNumber, record: row.record });
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
  const patch = lookupPatch(c, result, p);
  if (patch === null) return null;
  return { ...patch, 状態: transition(c.record.状態, patch.状態, `reconcile: ${result.kind}`) };
}

function lookupPatch(
  c: ReconcileCandidate,
  result: LookupResult,
  p: ReconcilePolicy,
): (Partial<LedgerRecord> & { 状態: LedgerState }) | null {
  const stray = strayState(c.record);
  const was = c.record.状態;
  const restoredKey = keyToRestore(c.record);
  if (restoredKey !== null) {
    if (result.kind === 'found') {
      return {
        キー: restoredKey,
        状態: '完了',
        MF仕訳ID: result.journalId,
        完了日時: c.record.完了日時 !== '' ? c.record.完了日時 : p.now,
        更新日時: p.now,
        メモ: KEY_RESTORED_BY_JOURNAL,
      };
    }
    // No journal: an unsent row gets its key back at the next import (when MF's line matches it);
    // a row that may be in flight goes on below, where the pre-send key check stops it later.
    if (!stray && was !== '不明' && was !== '送信中') return null;
  }
  if (result.kind === 'found') {
    return {
      状態: '完了',
      MF仕訳ID: result.journalId,
      完了日時: stray && was === '完了' && c.record.完了日時 !== '' ? c.record.完了日時 : p.now,
      更新日時: p.now,
      メモ: stray ? RECONCILE_MSG.foundStray(strayHow(c.record)) : RECONCILE_MSG.found,
    };
  }
  if (result.kind === 'pending') return null;
  if (result.kind === 'outside-period') {
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: RECONCILE_MSG.outsidePeriod(c.record.取引日),
    };
  }
  if (result.kind === 'missing') {
    // Never sent again on a guess: a row that may have been sent waits (listed on 要確認 as 不明); a
    // row a person changed goes to a person.
    if (!stray || p.nowMs - updatedMs(c.record) < p.graceMs) return null;
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: RECONCILE_MSG.missingStray(strayHow(c.record), c.record.取引日),
    };
  }
  if (stray) {
    // Never straight back to 送信待ち: a person changed this row, so a person decides. A send may be in
    // flight (a 送信中 row someone cleared): wait out the grace period first.
    if (p.nowMs - updatedMs(c.record) < p.graceMs) return null;
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ:
        result.kind === 'excluded'
          ? RECONCILE_MSG.excludedStray(strayHow(c.record))
          : RECONCILE_MSG.absentStray(strayHow(c.record)),
    };
  }
  if (result.kind === 'excluded') {
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: RECONCILE_MSG.excluded,
    };
  }
  if (p.nowMs - updatedMs(c.record) < p.graceMs) return null;
  const attempts = Number(c.record.試行回数) || 0;
  if (attempts >= p.maxAttempts) {
    return {
      状態: '要確認',
      更新日時: p.now,
      メモ: RECONCILE_MSG.attemptsUsed(attempts, p.maxAttempts),
    };
  }
  return {
    状態: '送信待ち',
    更新日時: p.now,
    メモ: RECONCILE_MSG.resend,
  };
}

/** Candidates still in the state they were looked up in (nothing else touched them meanwhile). */
export function unchanged(c: ReconcileCandidate, current: LedgerRecord | undefined): boolean {
  return (
    !!current &&
    current.状態 === c.record.状態 &&
    current.更新日時 === c.record.更新日時 &&
    current.明細ID === c.record.明細ID
  );
}

/**
 * What MF's two listings say about one MF line: the journal whose transaction_id is the line's, and the
 * line's journalizing_status (undefined when MF lists no such line).
 */
export function lookupResultOf(journalId: string | undefined, status: string | undefined): LookupResult {
  if (journalId) return { kind: 'found', journalId };
  if (status === 'none') return { kind: 'absent' };
  if (status === 'excluded') return { kind: 'excluded' };
  if (status === undefined) return { kind: 'missing' };
  return { kind: 'pending' };
}

export interface ReconcileInput {
  ledger: LedgerPort;
  lock: LockPort;
  lookup: LookupPort;
  clock: ClockPort;
  /** 照合猶予 in ms (0 when the safety switch is off). */
  graceMs: number;
  maxAttempts: number;
  /** Told under the lock, after the write, of what was written (done-row count, recent sends, 要確認). */
  written?(table: LedgerTable, changes: readonly RowChange[]): void;
}

export type ReconcileOutcome =
  /** No row needs looking up: MF was not asked. */
  | { kind: 'nothing' }
  /** Another run held the lock after the lookup: nothing written, the next reconcile looks again. */
  | { kind: 'busy'; candidates: number }
  | {
      kind: 'settled';
      candidates: number;
      changes: RowChange[];
      found: number;
      resend: number;
      review: number;
      /** Candidates left as they were (listing lag, grace period, or another run changed the row). */
      waiting: number;
    };

/** Under the lock: each candidate re-located by key, skipped if another run changed it meanwhile. */
function settleLookups(
  table: LedgerTable,
  candidates: readonly ReconcileCandidate[],
  results: ReadonlyMap<ReconcileCandidate, LookupResult>,
  policy: ReconcilePolicy,
): RowChange[] {
  const byKey = indexByKey(table.rows);
  const changes: RowChange[] = [];
  for (const c of candidates) {
    const row = (byKey.get(c.key) ?? []).find((r) => unchanged(c, r.record));
    const result = results.get(c);
    if (!row || !result) continue;
    const patch = reconcilePatch(c, result, policy);
    // A key given back must not be one another row holds already (the duplicate-key guard's case).
    if (patch?.キー !== undefined && byKey.has(patch.キー)) continue;
    if (patch) changes.push({ key: c.key, rowNumber: row.rowNumber, patch });
  }
  return changes;
}

/**
 * Reconcile as one phase of the protocol (DESIGN §5): read → pick the candidates → look them up in MF
 * outside the lock → under the lock, re-read, re-locate, decide and write in one batch.
 */
export function reconcileLedger(input: ReconcileInput): ReconcileOutcome {
  const candidates = reconcileCandidates(input.ledger.read().rows, input.clock.now());
  if (candidates.length === 0) return { kind: 'nothing' };
  const results = input.lookup.lookUp(candidates);
  const done = underLock(input.lock, () => {
    const nowMs = input.clock.now();
    const policy: ReconcilePolicy = {
      nowMs,
      now: new Date(nowMs).toISOString(),
      graceMs: input.graceMs,
      maxAttempts: input.maxAttempts,
    };
    const table = input.ledger.read();
    const changes = settleLookups(table, candidates, results, policy);
    input.ledger.write(table, changes);
    input.written?.(table, changes);
    return changes;
  });
  if (!done) return { kind: 'busy', candidates: candidates.length };
  const changes = done.value;
  const count = (state: string) => changes.filter((c) => c.patch.状態 === state).length;
  return {
    kind: 'settled',
    candidates: candidates.length,
    changes,
    found: count('完了'),
    resend: count('送信待ち'),
    review: count('要確認'),
    waiting: candidates.length - changes.length,
  };
}
