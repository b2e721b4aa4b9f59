/**
 * The first thing every entry point does (DESIGN §3): are the sheets and headers it needs there? If not,
 * it reads and writes nothing, says what is missing and how to restore it, and ends 失敗 in ログ. Two
 * Sheets calls per sheet needed (find it, read row 1); the 台帳 look-alike search runs only when the
 * 台帳 is missing.
 */
import { describeShapeProblems, looksLikeLedger, shapeProblems } from '../core/ledger-shape';
import { SHEET, type SheetName } from '../core/schema';
import { blockingProblems, type SettingProblem, type Settings } from '../core/settings';
import { rememberLedgerLayout } from '../gas/run-state';
import { readSettings } from '../gas/settings-sheet';
import { isSnapshotSheet, sheetValues } from '../gas/sheet-snapshot';
import { activeBook } from '../gas/workbook';
import type { RunResult } from './run';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;

function headerRow(sheet: Sheet, name: string): unknown[] {
  // 設定・マスタ・取込元 are read whole once: the run reads them next anyway (sheet-snapshot.ts).
  if (isSnapshotSheet(name)) return sheetValues(sheet, name)[0] ?? [];
  return sheet.getRange('1:1').getValues()[0] ?? [];
}

/** Sheets (other than 台帳 and its backups) whose row 1 looks like the 台帳's: a renamed 台帳. */
export function ledgerLookalikes(): string[] {
  const out: string[] = [];
  for (const s of activeBook().getSheets()) {
    const name = s.getName();
    const last = Math.min(s.getLastRow(), LOOKALIKE_ROWS + 1);
    const width = s.getLastColumn();
    if (last === 0 || width === 0) continue;
    const values = s.getRange(1, 1, last, width).getValues();
    if (looksLikeLedger(name, values[0], values.slice(1))) out.push(name);
  }
  return out;
}

/** Rows read from each sheet to recognise a renamed 台帳 whose row 1 was cleared too. */
const LOOKALIKE_ROWS = 20;

// Row 1 of the 台帳 as this execution's preflight read it: posting checks it rather than reading it again.
let ledgerHeaderSeen: unknown[] | null = null;

/** The 台帳's row 1 as the last preflight of this execution read it (null: not read). */
export function preflightLedgerHeader(): unknown[] | null {
  return ledgerHeaderSeen;
}

/** Null when every sheet in `needs` and its headers are there; otherwise the run's refusal. */
export function preflight(...needs: SheetName[]): RunResult | null {
  const book = activeBook();
  const found = new Map<string, unknown[] | undefined>();
  for (const name of needs) {
    const sheet = book.getSheetByName(name);
    found.set(name, sheet ? headerRow(sheet, name) : undefined);
  }
  const lookalikes = needs.includes(SHEET.ledger) && !found.get(SHEET.ledger) ? ledgerLookalikes() : [];
  const problems = shapeProblems(needs, found, lookalikes);
  if (problems.length === 0) {
    const ledger = found.get(SHEET.ledger);
    ledgerHeaderSeen = ledger ?? null;
    if (ledger) rememberLedgerLayout(ledger);
    return null;
  }
  return { ok: false, count: 0, messages: describeShapeProblems(problems), shape: problems };
}

/** A 設定 problem as people read it: the cell, then what is wrong. */
export function settingLine(p: SettingProblem): string {
  return `${p.cell} ${p.message}`;
}

/**
 * 設定 for a run that needs `needs`: every problem as a line to report, and the run's refusal when an
 * item it needs is invalid, repeated or missing (DESIGN §3: it does not run on a default).
 */
export function settingsFor(needs: readonly string[]): {
  settings: Settings;
  notes: string[];
  refusal: RunResult | null;
} {
  const { settings, problems } = readSettings();
  const blocking = blockingProblems(problems, needs);
  const notes = problems.filter((p) => !blocking.includes(p)).map(settingLine);
  if (blocking.length === 0) return { settings, notes, refusal: null };
  return {
    settings,
    notes,
    refusal: {
      ok: false,
      count: 0,
      messages: [
        ...blocking.map(settingLine),
        '設定を直すまで、この処理は初期値では行わずに止めました（何も読み書きしていません）。シート「設定」を直してから、もう一度実行してください。',
        ...notes,
      ],
    },
  };
}
