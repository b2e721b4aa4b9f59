import { asText } from '../core/cell-text';
import { MSG } from '../core/messages';
import { type LOG_HEADERS, SHEET } from '../core/schema';
import { currentUserEmail } from '../gas/session';
import { appendRecords, ensureSheet } from '../gas/workbook';

export interface RunLogEntry {
  action: string;
  fromTrigger: boolean;
  ok: boolean;
  count: number;
  message: string;
}

/** Appends one line per run to ログ (DESIGN §6). Never throws: logging must not hide the run's own outcome. */
export function appendRunLog(entry: RunLogEntry): void {
  try {
    const { sheet } = ensureSheet(SHEET.log);
    const record: Record<(typeof LOG_HEADERS)[number], string | number> = {
      日時: asText(new Date().toISOString()),
      実行者: asText(currentUserEmail() || MSG.unknownUser),
      起動元: entry.fromTrigger ? MSG.startedFromTrigger : MSG.startedFromMenu,
      処理: entry.action,
      結果: entry.ok ? MSG.runOk : MSG.runFailed,
      件数: entry.count,
      メッセージ: asText(entry.message),
    };
    appendRecords(sheet, [record]);
  } catch (e) {
    console.error(`ログへの書き込みに失敗しました: ${String(e)}`);
  }
}
