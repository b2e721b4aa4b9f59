/**
 * The convention: each module keeps the Japanese sentences it shows in one `*_MSG` table beside the
 * code that decides them (PROTOCOL_MSG, RECONCILE_MSG, LOST_LEDGER_MSG, POST_MSG, AI_RUN_MSG, …), so a
 * sentence and its reason are read together and tests refer to messages by name. This table holds the
 * words shared across entry points: the menu, 初期設定 and the run log.
 */
export const MSG = {
  menuTitle: '記帳',
  menuSetup: '初期設定',
  setupDone: (created: number, headers: number, settings: number): string =>
    created + headers + settings === 0
      ? '初期設定を確認しました。シートと見出しはそろっています。'
      : `初期設定を行いました。シート ${created} 件、見出し ${headers} 件、設定項目 ${settings} 件を追加しました。`,
  sheetCreated: (name: string): string => `シート「${name}」を作成しました。`,
  headersAdded: (name: string, headers: readonly string[]): string =>
    `シート「${name}」に見出し ${headers.join('、')} を追加しました。`,
  settingsAdded: (items: readonly string[]): string => `設定に ${items.join('、')} を追加しました。`,
  runOk: '成功',
  runFailed: '失敗',
  startedFromMenu: 'メニュー',
  startedFromTrigger: 'トリガー',
  unknownUser: '(不明)',
} as const;
