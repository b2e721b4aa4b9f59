/**
 * The 要確認 sheet: every row that needs a person, why, and what to do, in plain Japanese
 * (DESIGN §3, §4). Derived from the 台帳 each run; nothing here changes a row.
 */
import { LEASE_MS } from './budget';
import { isEventChangedMemo } from './events';
import { fingerprint } from './fingerprint';
import { journalWentMissing } from './journal-check';
import { contentCounts, csvContentForm, keyProblem } from './key-check';
import { isMfKey } from './keys';
import type { LedgerRecord, LedgerTable } from './ledger';
import { isLedgerState, STATES } from './states';

/** Why a row whose 状態 is not one of §4's is listed (a person cleared it or typed something else). */
export function unknownStateReason(state: string): string {
  return state.trim() === ''
    ? '状態が空になっています（消された可能性があります）。照合でMFに仕訳があるかを確かめ、要確認か完了にします。'
    : `状態が「${state}」になっています（使える状態は ${STATES.join('・')}）。照合でMFに仕訳があるかを確かめ、要確認か完了にします。`;
}

export const COMPLETED_WITHOUT_ID =
  '「完了」ですが MF仕訳ID がありません（状態が書き換えられた可能性があります）。照合でMFの仕訳を探し、見つからなければ要確認にします。';

/** States whose rows may still be sent: their keys are checked in full (CSV keys cost a hash each). */
const OPEN = new Set(['未判定', '要確認', '送信待ち', '送信中', '不明', '失敗']);

/** An event (evt:) still 未判定 after this long is listed as stale: a scheduled run classifies within minutes. */
export const STALE_EVENT_MS = 24 * 3_600_000;

export interface ReviewItem {
  record: LedgerRecord;
  rowNumber: number;
  reason: string;
  action: string;
}

export function reviewItems(table: LedgerTable, nowMs: number, graceMs: number): ReviewItem[] {
  const items: ReviewItem[] = [];
  const counts = contentCounts(table.rows);
  for (const { record: r, rowNumber } of table.rows) {
    const state = r.状態;
    const age = nowMs - (Date.parse(r.更新日時) || 0);
    const memo = r.メモ;
    const key = r.キー;
    // A 完了 row's CSV key is not re-hashed (its edits show as 指紋); an mf: key is a string compare.
    const broken =
      state === '除外'
        ? null
        : OPEN.has(state) || isMfKey(key) || !isLedgerState(state)
          ? keyProblem(r, counts.get(csvContentForm(r)) ?? 1)
          : null;
    if (broken) {
      items.push({
        record: r,
        rowNumber,
        reason: broken,
        action: 'キーを元に戻すか、この行を「除外」にしてください。直るまで送信しません。',
      });
    } else if (!isLedgerState(state)) {
      items.push({
        record: r,
        rowNumber,
        reason: unknownStateReason(state),
        action: '状態の列は変えないでください。照合が終わるまでお待ちください。',
      });
    } else if (state === '完了' && r.MF仕訳ID.trim() === '') {
      items.push({
        record: r,
        rowNumber,
        reason: COMPLETED_WITHOUT_ID,
        action: '照合が終わるまでお待ちください。MFの画面で仕訳した明細なら、そのままで構いません。',
      });
    } else if (isEventChangedMemo(memo) && (state === '完了' || state === '除外' || state === '要確認')) {
      // The sender sent this id again with other content (issue 25); kicho kept the first and says what differs.
      items.push({
        record: r,
        rowNumber,
        reason: memo,
        action:
          state === '要確認'
            ? 'どちらが正しいかを送信元に確かめ、必要なら台帳の取引日・入出金・金額・摘要を直してから、操作で「承認」か「除外」を選んでください。別の取引なら、送信元に別の id で送ってもらってください。'
            : state === '完了'
              ? 'MFに登録済みです。MFの仕訳と見比べ、必要ならMFで仕訳を直してください（kicho は送り直しません）。確かめたら、この行のメモを消すと一覧から外れます。'
              : '登録しないと決めた行です。登録が必要なら、送信元に別の id で送ってもらってください。確かめたら、この行のメモを消すと一覧から外れます。',
      });
    } else if (state === '未判定' && key.startsWith('evt:') && age >= STALE_EVENT_MS) {
      // An event is answered 'accepted' at once; one that nobody classifies would wait unseen.
      items.push({
        record: r,
        rowNumber,
        reason: `送信元から届いて ${Math.floor(age / 3_600_000)} 時間、判定されていません（自動実行がオフか、判定が止まっています）。`,
        action:
          'メニュー「判定」を実行するか、自動実行をオンにしてください。勘定科目を選んで「承認」しても構いません。',
      });
    } else if (journalWentMissing(r)) {
      items.push({
        record: r,
        rowNumber,
        reason: memo || `MF の仕訳 ${r.MF仕訳ID} が MF にありません（削除されています）。`,
        action:
          '登録し直すなら操作で「承認」（または「再試行」）を、登録しないなら「除外」を選んでください。自動では送り直しません。',
      });
    } else if (state === '要確認' || state === '未判定') {
      items.push({
        record: r,
        rowNumber,
        reason: memo || '勘定科目の確認が必要です。',
        action: '勘定科目などを確かめ、操作で「承認」か「除外」を選んでください。',
      });
    } else if (state === '失敗') {
      items.push({
        record: r,
        rowNumber,
        reason: memo,
        action: '内容を直してから、操作で「再試行」を選んでください。',
      });
    } else if (state === '不明' && age >= graceMs) {
      items.push({
        record: r,
        rowNumber,
        reason: `不明: MFで仕訳を確認中です（${Math.floor(age / 60_000)} 分経過）。`,
        action: '自動で再確認します。長く続くときはMFの仕訳を確認してください。',
      });
    } else if (state === '送信中' && age >= LEASE_MS) {
      items.push({
        record: r,
        rowNumber,
        reason: '送信中のまま止まっています（実行が途中で終わった可能性があります）。',
        action: '次の照合でMFを確認します。そのままお待ちください。',
      });
    } else if (state === '完了' && r.指紋 !== '' && fingerprint(r) !== r.指紋) {
      items.push({
        record: r,
        rowNumber,
        reason: '登録した後で内容が変更されています。',
        action: 'MFの仕訳と見比べ、必要ならMFで仕訳を直してください（再送はしません）。',
      });
    }
  }
  return items;
}
