import { MSG } from '../core/messages';

type MenuItem = readonly [label: string, handler: string];

/**
 * The 「記帳」 menu grouped by task (issue 29): what a person does each day, the checks, the 台帳 itself,
 * connection and settings. Labels and global function names are the ones the flat menu had, so every
 * message that says メニュー「…」 still names an item a person can find.
 */
export const MENU_GROUPS: ReadonlyArray<{ title: string; items: readonly MenuItem[] }> = [
  {
    title: '日々の作業',
    items: [
      ['明細を取り込む', 'importTransactions'],
      ['CSVを取り込む', 'openCsvImport'],
      ['判定する', 'classifyPending'],
      ['要確認を開く', 'openReview'],
      ['ドライラン', 'dryRun'],
      ['登録を実行', 'postApproved'],
    ],
  },
  {
    title: '点検',
    items: [
      ['照合する', 'reconcile'],
      ['残高照合', 'checkBalances'],
      ['重複点検', 'openDuplicateAudit'],
      ['重複を削除', 'openDuplicateDeletion'],
      ['売掛金チェック', 'checkReceivables'],
      ['本番前チェック', 'selfTest'],
    ],
  },
  {
    title: '台帳',
    items: [
      ['古い行をアーカイブ', 'archiveLedger'],
      ['アーカイブから戻す', 'bringBackFromArchive'],
      ['台帳を復元', 'restoreLedgerFromMf'],
    ],
  },
  {
    title: '接続と設定',
    items: [
      [MSG.menuSetup, 'setupWizard'],
      ['MFに接続', 'openConnection'],
      ['接続を解除', 'confirmDisconnect'],
      ['設定を編集', 'openSettings'],
      ['自動実行の設定', 'openAutoRun'],
    ],
  },
];

/** The last item, on the top level: help is where a person looks first. */
export const HELP_ITEM: MenuItem = ['ヘルプ', 'openHelp'];

/** Every item: label shown to people → global function name in the bundle. */
export const MENU_ITEMS: readonly MenuItem[] = [...MENU_GROUPS.flatMap((g) => g.items), HELP_ITEM];

/** Adds the 「記帳」 menu. Called from the simple trigger onOpen, so it must use no authorised service. */
export function addMenu(ui: GoogleAppsScript.Base.Ui): void {
  const menu = ui.createMenu(MSG.menuTitle);
  for (const group of MENU_GROUPS) {
    const sub = ui.createMenu(group.title);
    for (const [label, handler] of group.items) sub.addItem(label, handler);
    menu.addSubMenu(sub);
  }
  menu.addSeparator();
  menu.addItem(HELP_ITEM[0], HELP_ITEM[1]);
  menu.addToUi();
}
