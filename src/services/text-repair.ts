/**
 * 初期設定's repair of a 台帳 an earlier version wrote the undocumented way ('@' columns holding text
 * written with an apostrophe; src/core/text-repair.ts), and the posting guard while it has not run.
 */
import { describeTextRepair, planTextRepair } from '../core/text-repair';
import {
  ledgerTextChecked,
  markLedgerTextChecked,
  plainTextCellsAreSafe,
  textObservation,
  toCells,
} from '../gas/cells';
import { ledgerSheet } from '../gas/ledger-sheet';
import { underScriptLock } from '../gas/lock';
import { observePlainText } from '../gas/scratch-sheet';

/** Puts kicho's '@' cells of the 台帳 back to the automatic format and their values right. */
export function repairLedgerText(): string[] {
  const sheet = ledgerSheet();
  const width = sheet.getLastColumn();
  const maxRows = sheet.getMaxRows();
  const formatsNow = () => sheet.getRange(2, 1, maxRows - 1, width).getNumberFormats();
  if (width === 0 || maxRows < 2 || !formatsNow().some((r) => r.includes('@'))) {
    markLedgerTextChecked();
    return [];
  }
  // Whether the apostrophes in those cells are part of the values depends on what Sheets does here.
  const seen = textObservation() ?? observePlainText();
  if (seen.apostrophe === 'other') {
    return [
      '台帳に書式「書式なしテキスト」の列がありますが、このスプレッドシートでの文字の扱いを確かめられなかったため直していません。「本番前チェック」を実行して結果を確かめてください。',
    ];
  }
  const done = underScriptLock(() => {
    const plan = planTextRepair(sheet.getDataRange().getValues(), formatsNow(), seen.apostrophe);
    for (const c of plan.clears)
      sheet.getRange(c.firstRow, c.column + 1, c.lastRow - c.firstRow + 1, 1).clearFormat();
    // The cells are in the automatic format now: the documented apostrophe write applies.
    for (const w of plan.writes)
      sheet.getRange(w.firstRow, w.column + 1, w.values.length, 1).setValues(toCells(w.values));
    return plan;
  });
  if (!done) return ['台帳の書式の確認は、別の実行が進行中のため、次の初期設定で行います。'];
  markLedgerTextChecked();
  const message = describeTextRepair(done.value);
  return message ? [message] : [];
}

/**
 * Why posting must wait: the 台帳 has rows, this version's 初期設定 has not checked their text formats
 * yet, and Sheets here is not known to strip apostrophes in '@' cells (a description written by an
 * earlier version could then be sent with an apostrophe in front).
 */
export function uncheckedLedgerTextReason(rowsNow: number): string | null {
  if (rowsNow === 0 || plainTextCellsAreSafe()) return null;
  if (ledgerTextChecked() !== null) return null;
  return 'この台帳は以前の版の kicho で作られたもので、文字の書き方をまだ確かめていません。メニュー「記帳 > 接続と設定 > 初期設定」を一度実行してください（台帳の書式を確かめて直します）。それまで登録は行いません。';
}
