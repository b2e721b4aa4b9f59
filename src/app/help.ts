import { ARCHIVE_SETTING, ARCHIVE_SHEET } from '../core/archive';
import { dailyPlan, measuredCost, PLANNING_KIND, WORKSPACE_NOTE } from '../core/quota';
import { archivedRows } from '../gas/archive-sheet';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { readSettings } from '../gas/settings-sheet';
import { readUsage } from '../gas/usage';

/** The chosen 照合間隔 and 自動実行 against the account's daily quotas, in one line. */
export function currentPlanText(): string {
  const { settings } = readSettings();
  const plan = dailyPlan({
    intervalMinutes: settings.reconcileIntervalMinutes,
    autoRun: settings.autoRun,
    kind: PLANNING_KIND,
    measured: measuredCost(readUsage()),
  });
  return `いまの設定では ${plan.text} ${WORKSPACE_NOTE}`;
}

/** Where archived rows are, for ヘルプ (no Sheets call: the index's counts in script properties). */
export function archiveHelpText(): string {
  const n = archivedRows();
  return n > 0
    ? `「${ARCHIVE_SETTING}」より古い「完了」「除外」の行は、メニュー「古い行をアーカイブ」でシート「${ARCHIVE_SHEET}」に移ります（今 ${n} 行）。`
    : `「${ARCHIVE_SETTING}」を設定してメニュー「古い行をアーカイブ」を実行すると、古い「完了」「除外」の行がシート「${ARCHIVE_SHEET}」に移ります（まだ移した行はありません）。`;
}

/** Menu 「ヘルプ」: the daily steps, what each 状態 means, and what to do when something stops. */
export function openHelp(): void {
  const template = htmlTemplate('help');
  template.quotaText = currentPlanText();
  template.archiveText = archiveHelpText();
  const html = template.evaluate().setWidth(560).setHeight(620);
  spreadsheetUi().showModalDialog(html, 'ヘルプ');
}
