import { MSG } from '../core/messages';

/** Menu items: label shown to people → global function name in the bundle. */
export const MENU_ITEMS: ReadonlyArray<readonly [label: string, handler: string]> = [
  [MSG.menuSetup, 'setupWizard'],
  ['MFに接続', 'openConnection'],
  ['接続を解除', 'confirmDisconnect'],
  ['明細を取り込む', 'importTransactions'],
  ['CSVを取り込む', 'openCsvImport'],
  ['判定する', 'classifyPending'],
  ['ドライラン', 'dryRun'],
  ['本番前チェック', 'selfTest'],
  ['登録を実行', 'postApproved'],
  ['照合する', 'reconcile'],
  ['要確認を開く', 'openReview'],
  ['売掛金チェック', 'checkReceivables'],
  ['重複点検', 'openDuplicateAudit'],
  ['重複を削除', 'openDuplicateDeletion'],
  ['残高照合', 'checkBalances'],
  ['台帳を復元', 'restoreLedgerFromMf'],
  ['古い行をアーカイブ', 'archiveLedger'],
  ['アーカイブから戻す', 'bringBackFromArchive'],
  ['設定を編集', 'openSettings'],
  ['自動実行の設定', 'openAutoRun'],
  ['ヘルプ', 'openHelp'],
];

/** Adds the 「記帳」 menu. Called from the simple trigger onOpen, so it must use no authorised service. */
export function addMenu(ui: GoogleAppsScript.Base.Ui): void {
  const menu = ui.createMenu(MSG.menuTitle);
  for (const [label, handler] of MENU_ITEMS) menu.addItem(label, handler);
  menu.addToUi();
}
