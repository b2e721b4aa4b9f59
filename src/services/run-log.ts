import { MSG } from '../core/messages';
import { redactSecrets } from '../core/redact';
import { LOG_HEADERS, SHEET } from '../core/schema';
import { knownSecrets } from '../gas/properties';
import { currentUserEmail } from '../gas/session';
import { prependRecords, systemSheetAndHeader } from '../gas/workbook';

/** ログ keeps this many lines (a 15-minute trigger writes about 35,000 a year). */
export const LOG_LINES_KEPT = 5_000;

export interface RunLogEntry {
  action: string;
  fromTrigger: boolean;
  ok: boolean;
  count: number;
  message: string;
}

/**
 * Writes one line per run to ログ (DESIGN §6), newest first under the header; text is escaped by the
 * sheet adapter. Never throws: logging must not hide the run's own outcome.
 */
export function appendRunLog(entry: RunLogEntry): void {
  try {
    const { sheet, header } = systemSheetAndHeader(SHEET.log, LOG_HEADERS);
    const record: Record<(typeof LOG_HEADERS)[number], string | number> = {
      日時: new Date().toISOString(),
      実行者: currentUserEmail() || MSG.unknownUser,
      起動元: entry.fromTrigger ? MSG.startedFromTrigger : MSG.startedFromMenu,
      処理: entry.action,
      結果: entry.ok ? MSG.runOk : MSG.runFailed,
      件数: entry.count,
      メッセージ: redactSecrets(entry.message, knownSecrets()),
    };
    prependRecords(sheet, [record], LOG_LINES_KEPT, header);
  } catch (e) {
    console.error(`ログへの書き込みに失敗しました: ${String(e)}`);
  }
}
