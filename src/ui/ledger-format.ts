/**
 * How the 台帳 looks to the people who read it: state colours, the 操作 dropdown, and a warning
 * before anyone edits a column the system owns. Idempotent: setup() may run it again after people
 * moved columns.
 */
import { headerIndex } from '../core/headers';
import { INVOICE_CELLS } from '../core/invoice';
import { PEOPLE_COLUMNS } from '../core/schema';
import { OPERATIONS } from '../core/states';

/**
 * Spreadsheet's rule builders, handed in by the caller (src/gas/workbook.ts FORMAT_BUILDERS): this layer
 * names no Apps Script global.
 */
export interface FormatBuilders {
  newConditionalFormatRule(): GoogleAppsScript.Spreadsheet.ConditionalFormatRuleBuilder;
  newDataValidation(): GoogleAppsScript.Spreadsheet.DataValidationBuilder;
  rangeProtectionType(): GoogleAppsScript.Spreadsheet.ProtectionType;
}

/** 完了 green, needs a person red, in flight amber, excluded grey (issue 3). */
const STATE_COLOURS: ReadonlyArray<readonly [state: string, background: string, font: string]> = [
  ['完了', '#d9ead3', '#274e13'],
  ['要確認', '#f4cccc', '#990000'],
  ['失敗', '#f4cccc', '#990000'],
  ['不明', '#fce5cd', '#7f6000'],
  ['送信中', '#fce5cd', '#7f6000'],
  ['除外', '#eeeeee', '#666666'],
];

const PROTECTION_NOTE = 'kicho: システムが書き込む列です';
const HEADER_NOTE = 'kicho: 見出しの行です（列は見出しの文字で探します）';

export function formatLedger(sheet: GoogleAppsScript.Spreadsheet.Sheet, build: FormatBuilders): void {
  const width = sheet.getLastColumn();
  if (width === 0) return;
  const columns = headerIndex(sheet.getRange(1, 1, 1, width).getValues()[0]);
  const rows = sheet.getMaxRows() - 1;
  sheet.setFrozenRows(1);
  sheet.getRange(1, 1, 1, width).setFontWeight('bold').setBackground('#f3f3f3');

  // Text columns keep the automatic format: text is written with a leading apostrophe, which forces
  // text and is not stored only there (documented); in '@' cells it may stay (src/gas/cells.ts).
  // Earlier versions formatted キー, 明細ID, 摘要, MF仕訳ID, 指紋 and 取引日 '@': setup repairs that.

  const amount = columns.get('金額');
  if (amount !== undefined) sheet.getRange(2, amount + 1, rows, 1).setNumberFormat('#,##0');

  const op = columns.get('操作');
  if (op !== undefined) {
    const rule = build
      .newDataValidation()
      .requireValueInList([...OPERATIONS], true)
      .setAllowInvalid(false)
      .setHelpText('承認・除外・再試行 から選んでください。次の実行で反映され、空に戻ります。')
      .build();
    sheet.getRange(2, op + 1, rows, 1).setDataValidation(rule);
  }

  const invoice = columns.get('インボイス');
  if (invoice !== undefined) {
    // A warning, not a refusal: a word typed otherwise is refused by the send's check with a メモ.
    const rule = build
      .newDataValidation()
      .requireValueInList([...INVOICE_CELLS], true)
      .setAllowInvalid(true)
      .setHelpText(
        '仕入れの売り手が登録事業者（T で始まる登録番号あり）なら 適格、そうでなければ 非適格。控除の割合（80%・70% …）は取引日から決まります。',
      )
      .build();
    sheet.getRange(2, invoice + 1, rows, 1).setDataValidation(rule);
  }

  const state = columns.get('状態');
  if (state !== undefined) {
    const range = sheet.getRange(2, state + 1, rows, 1);
    const ours = new Set(STATE_COLOURS.map(([s]) => s));
    // Keep the rules people added; replace only ours.
    const kept = sheet.getConditionalFormatRules().filter((r) => {
      const c = r.getBooleanCondition();
      return !(
        c &&
        String(c.getCriteriaType()) === 'TEXT_EQUAL_TO' &&
        ours.has(String(c.getCriteriaValues()[0]))
      );
    });
    const rules = STATE_COLOURS.map(([s, bg, font]) =>
      build
        .newConditionalFormatRule()
        .whenTextEqualTo(s)
        .setBackground(bg)
        .setFontColor(font)
        .setRanges([range])
        .build(),
    );
    sheet.setConditionalFormatRules([...kept, ...rules]);
  }

  for (const p of sheet.getProtections(build.rangeProtectionType())) {
    const note = p.getDescription();
    if (note === PROTECTION_NOTE || note === HEADER_NOTE) p.remove();
  }
  // The headers are how every run finds its columns (DESIGN §3): a warning before anyone edits row 1.
  sheet.getRange(1, 1, 1, width).protect().setDescription(HEADER_NOTE).setWarningOnly(true);
  for (const [header, col] of columns) {
    if (PEOPLE_COLUMNS.has(header)) continue;
    // Warning-only: people can still fix a cell, but are asked first.
    sheet
      .getRange(1, col + 1, rows + 1, 1)
      .protect()
      .setDescription(PROTECTION_NOTE)
      .setWarningOnly(true);
  }
}
