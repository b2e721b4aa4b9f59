import { dailyPlan, measuredCost, PLANNING_KIND, WORKSPACE_NOTE } from '../core/quota';
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

/** Menu 「ヘルプ」: the daily steps, what each 状態 means, and what to do when something stops. */
export function openHelp(): void {
  const template = HtmlService.createTemplateFromFile('help');
  template.quotaText = currentPlanText();
  const html = template.evaluate().setWidth(560).setHeight(620);
  SpreadsheetApp.getUi().showModalDialog(html, 'ヘルプ');
}
