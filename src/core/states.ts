/**
 * The ledger states and who may move a row between them (DESIGN §4), in one place.
 */
export const STATES = ['未判定', '要確認', '送信待ち', '送信中', '完了', '不明', '失敗', '除外'] as const;
export type LedgerState = (typeof STATES)[number];

export function isLedgerState(value: unknown): value is LedgerState {
  return typeof value === 'string' && (STATES as readonly string[]).includes(value);
}

/**
 * Every transition the system makes; anything else is a bug (asserted in tests). → 除外 from 完了 and 不明:
 * a person deleted the row's journal in MF as a duplicate (重複点検), so the row must never be posted.
 * 完了 → 要確認: the row's journal is gone from MF (deleted in MF's screen; found by the daily journal check
 * or 要確認を開く) — a person chooses 承認 / 再試行 (sent again) or 除外; nothing is resent by itself.
 */
export const TRANSITIONS: Readonly<Record<LedgerState, readonly LedgerState[]>> = {
  未判定: ['要確認', '送信待ち', '除外', '完了'],
  要確認: ['送信待ち', '除外', '完了'],
  送信待ち: ['送信中', '除外', '要確認', '完了'],
  送信中: ['完了', '不明', '失敗', '送信待ち', '要確認'],
  完了: ['除外', '要確認'],
  不明: ['完了', '送信待ち', '要確認', '除外'],
  失敗: ['送信待ち', '除外', '要確認'],
  除外: [],
};

export function canMove(from: LedgerState, to: LedgerState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/** Operations people choose in the 操作 column. */
export const OPERATIONS = ['承認', '除外', '再試行'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** States in which a send may be in flight or done: such a row is never sent again without a lookup. */
export const SENT_STATES: readonly LedgerState[] = ['送信中', '完了', '不明'];

export function isSent(state: string): boolean {
  return (SENT_STATES as readonly string[]).includes(state);
}
