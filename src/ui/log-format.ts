/** ログ for people: newest first (run-log.ts), a frozen header, and failed runs in red. */
import { columnLetter, headerIndex } from '../core/headers';
import { MSG } from '../core/messages';
import type { FormatBuilders } from './ledger-format';

export function formatLog(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  build: Pick<FormatBuilders, 'newConditionalFormatRule'>,
): void {
  const width = sheet.getLastColumn();
  if (width === 0) return;
  const columns = headerIndex(sheet.getRange(1, 1, 1, width).getValues()[0]);
  sheet.setFrozenRows(1);
  sheet.getRange(1, 1, 1, width).setFontWeight('bold').setBackground('#f3f3f3');
  const result = columns.get('結果');
  if (result === undefined) return;
  const range = sheet.getRange(2, 1, Math.max(1, sheet.getMaxRows() - 1), width);
  const kept = sheet.getConditionalFormatRules().filter((r) => {
    const c = r.getBooleanCondition();
    return !(
      c &&
      String(c.getCriteriaType()) === 'CUSTOM_FORMULA' &&
      String(c.getCriteriaValues()[0]).includes(MSG.runFailed)
    );
  });
  // A whole-row rule keyed on the 結果 cell: the run that failed stands out wherever it is.
  const letter = columnLetter(result);
  const rule = build
    .newConditionalFormatRule()
    .whenFormulaSatisfied(`=$${letter}2="${MSG.runFailed}"`)
    .setBackground('#fce8e6')
    .setFontColor('#a50e0e')
    .setRanges([range])
    .build();
  sheet.setConditionalFormatRules([...kept, rule]);
}
