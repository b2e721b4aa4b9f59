/**
 * Menu 「自動実行の設定」: turns 自動実行 on or off with one question, and makes sure the schedule
 * trigger exists (runScheduled reconciles either way; オン adds import, classify and post).
 */
import { SHEET } from '../core/schema';
import { setCells, toCell } from '../gas/cells';
import { spreadsheetUi } from '../gas/dialog';
import { readSettingRows, readSettings } from '../gas/settings-sheet';
import { appendRecords, ensureSheet } from '../gas/workbook';
import { appendRunLog } from '../services/run-log';
import { scheduleMessage } from '../services/trigger-messages';

function setAutoRun(on: boolean): void {
  const { sheet } = ensureSheet(SHEET.settings);
  const { rows, valueColumn } = readSettingRows();
  const value = on ? 'オン' : 'オフ';
  const row = rows.find((r) => r.item.trim() === '自動実行');
  if (row) setCells(sheet.getRange(row.rowNumber, valueColumn + 1), [[toCell(value)]]);
  else appendRecords(sheet, [{ 項目: '自動実行', 値: value }]);
}

export function openAutoRun(): void {
  const ui = spreadsheetUi();
  const { settings } = readSettings();
  const now = settings.autoRun ? 'オン' : 'オフ';
  const next = !settings.autoRun;
  const answer = ui.alert(
    '自動実行の設定',
    `自動実行は今「${now}」です。\n\n` +
      'オン: 定期実行（照合間隔ごと）で、照合に続けて取込・判定・登録まで行います。承認済み（送信待ち）の行が自動で登録されます。\n' +
      'オフ: 定期実行は照合だけを行います。登録はメニューから行います。\n\n' +
      `「${next ? 'オン' : 'オフ'}」に切り替えますか？`,
    ui.ButtonSet.YES_NO,
  );
  if (answer !== ui.Button.YES) return;
  setAutoRun(next);
  const message = `自動実行を「${next ? 'オン' : 'オフ'}」にしました。${scheduleMessage()}`;
  appendRunLog({ action: '自動実行の設定', fromTrigger: false, ok: true, count: 0, message });
  ui.alert('自動実行の設定', message, ui.ButtonSet.OK);
}
