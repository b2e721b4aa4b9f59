/**
 * The ledger states and who may move a row between them (DESIGN §4), in one place.
 */
export const STATES = ['未判定', '要確認', '送信待ち', '送信中', '完了', '不明', '失敗', '除外'] as const;
export type LedgerState = (typeof STATES)[number];

export function isLedgerState(value: unknown): value is LedgerState {
  return typeof value === 'string' && (STATES as readonly string[]).includes(value);
}

/**
 * Every transition kicho makes (DESIGN §4); anything else is a bug, refused at run time by
 * {@link transition}. → 除外 from 完了 and 不明: a person deleted the row's journal in MF as a duplicate
 * (重複点検), so the row must never be posted. 完了 → 要確認: the row's journal is gone from MF (deleted in
 * MF's screen; found by the daily journal check or 要確認を開く) — a person chooses 承認 / 再試行 (sent
 * again) or 除外; nothing is resent by itself. → 完了 from 未判定, 要確認, 送信待ち and 失敗: import found the
 * line journalized in MF's screen, reconcile found the journal of a row whose キー a person changed, or
 * 重複を削除 relinked the row to its group's surviving journal.
 */
export const TRANSITIONS: Readonly<Record<LedgerState, readonly LedgerState[]>> = {
  未判定: ['要確認', '送信待ち', '除外', '完了'],
  要確認: ['送信待ち', '除外', '完了'],
  送信待ち: ['送信中', '除外', '要確認', '完了'],
  送信中: ['完了', '不明', '失敗', '送信待ち', '要確認'],
  完了: ['除外', '要確認'],
  不明: ['完了', '送信待ち', '要確認', '除外'],
  失敗: ['送信待ち', '除外', '要確認', '完了'],
  除外: [],
};

/**
 * Moves from a 状態 cell that holds no state (a person cleared it or typed a word of their own, or a
 * write's repair cleared a cell another row's value landed on): reconcile looks the line up — its
 * journal found, 完了; else a person decides on 要確認 — and 重複を削除 excludes a row whose journal it
 * deleted. Never straight to 送信待ち: a person changed the row, so a person approves it.
 */
export const FROM_NO_STATE: readonly LedgerState[] = ['完了', '要確認', '除外'];

export function canMove(from: LedgerState, to: LedgerState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** A move the table refuses: a defect in kicho, never a person's doing (their edits are not moves). */
export class TransitionError extends Error {
  constructor(
    readonly from: string,
    readonly to: string,
    readonly why: string,
  ) {
    super(
      `内部エラー: 状態を「${from || '（空）'}」から「${to}」に変えようとしました（${why}）。この変化は状態の表にないため、書き込まずに止めました。`,
    );
    this.name = 'TransitionError';
  }
}

/**
 * The one way kicho changes a row's 状態: `from` as read (a cell a person may have left with no state,
 * or padded with spaces), `to` the state kicho decided, `why` the step deciding it (named in the error).
 * Returns `to` when the table has the move (staying put is no move); throws {@link TransitionError}
 * otherwise, so a code path that makes a move the table lacks fails loudly before anything is written.
 */
export function transition(from: string, to: LedgerState, why: string): LedgerState {
  const was = String(from).trim();
  const allowed = isLedgerState(was) ? canMove(was, to) : FROM_NO_STATE.includes(to);
  if (!allowed) throw new TransitionError(was, to, why);
  return to;
}

/** `patch` once the 状態 it sets (if any) is checked by {@link transition} from `from`; unchanged. */
export function checkMove<P extends { 状態?: string }>(from: string, patch: P, why: string): P {
  const to = patch.状態;
  if (to === undefined) return patch;
  if (!isLedgerState(to)) throw new TransitionError(String(from).trim(), String(to), why);
  transition(from, to, why);
  return patch;
}

/** Operations people choose in the 操作 column. */
export const OPERATIONS = ['承認', '除外', '再試行'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** States in which a send may be in flight or done: such a row is never sent again without a lookup. */
export const SENT_STATES: readonly LedgerState[] = ['送信中', '完了', '不明'];

export function isSent(state: string): boolean {
  return (SENT_STATES as readonly string[]).includes(state);
}
