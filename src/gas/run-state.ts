/**
 * What one run leaves for the next (script properties, shared by every account): the 台帳 size the
 * last run saw (the lost-ledger guard) and the last import window (the dry run's warning).
 */
const LEDGER_ROWS = 'KICHO_LEDGER_ROWS';
const LAST_WINDOW = 'KICHO_LAST_WINDOW';

export function lastLedgerRows(): number {
  return Number(PropertiesService.getScriptProperties().getProperty(LEDGER_ROWS) ?? 0) || 0;
}

export function recordLedgerRows(rows: number): void {
  PropertiesService.getScriptProperties().setProperty(LEDGER_ROWS, String(rows));
}

export function lastImportWindow(): string | null {
  return PropertiesService.getScriptProperties().getProperty(LAST_WINDOW);
}

export function recordImportWindow(window: string): void {
  PropertiesService.getScriptProperties().setProperty(LAST_WINDOW, window);
}
