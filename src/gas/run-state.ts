/**
 * What one run leaves for the next (script properties, shared by every account): the 台帳 size the
 * last run saw (the lost-ledger guard), the last import window (the dry run's warning), and when the
 * last dry run was (初期設定's guide).
 */
import { type InvoiceKind, type KindsSeen, parseKindsSeen } from '../core/invoice';
import { type MfBehaviour, parseMfBehaviour } from '../core/mf-behaviour';
import { LEDGER_HEADERS } from '../core/schema';
import { parseSelfTestRecord, type SelfTestRecord } from '../core/self-test';
import { archivedRows } from './archive-sheet';

const LEDGER_ROWS = 'KICHO_LEDGER_ROWS';
const LAST_WINDOW = 'KICHO_LAST_WINDOW';
const LAST_DRY_RUN = 'KICHO_LAST_DRY_RUN';

export function lastLedgerRows(): number {
  return Number(PropertiesService.getScriptProperties().getProperty(LEDGER_ROWS) ?? 0) || 0;
}

/**
 * `rows`: the 台帳's data rows now. What is kept is those plus the archived rows (issue 18): a row moved to
 * 台帳アーカイブ is not a row lost, so the guard compares 台帳 + archive with 台帳 + archive.
 */
export function recordLedgerRows(rows: number): void {
  PropertiesService.getScriptProperties().setProperty(LEDGER_ROWS, String(rows + archivedRows()));
}

export function lastImportWindow(): string | null {
  return PropertiesService.getScriptProperties().getProperty(LAST_WINDOW);
}

export function recordImportWindow(window: string): void {
  PropertiesService.getScriptProperties().setProperty(LAST_WINDOW, window);
}

export function lastDryRun(): string | null {
  return PropertiesService.getScriptProperties().getProperty(LAST_DRY_RUN);
}

export function recordDryRun(): void {
  PropertiesService.getScriptProperties().setProperty(LAST_DRY_RUN, new Date().toISOString());
}

/** The last 本番前チェック's outcome (DESIGN §7 KICHO_SELF_TEST); null when none has run. */
const SELF_TEST = 'KICHO_SELF_TEST';

export function readSelfTest(): SelfTestRecord | null {
  return parseSelfTestRecord(PropertiesService.getScriptProperties().getProperty(SELF_TEST));
}

export function recordSelfTest(record: SelfTestRecord): void {
  PropertiesService.getScriptProperties().setProperty(SELF_TEST, JSON.stringify(record));
}

const LEDGER_LAYOUT = 'KICHO_LEDGER_LAYOUT';

/** Row 1 of the 台帳 as the last run that found every header saw it: where 初期設定 puts a cleared header back. */
export function rememberLedgerLayout(header: readonly unknown[]): void {
  // Only our own headers: the value stays small and holds nothing people typed.
  const ours = new Set<string>(LEDGER_HEADERS);
  const cells = header.map((h) => String(h ?? '').trim()).map((h) => (ours.has(h) ? h : ''));
  while (cells.length > 0 && cells[cells.length - 1] === '') cells.pop();
  const value = JSON.stringify(cells);
  const props = PropertiesService.getScriptProperties();
  if (props.getProperty(LEDGER_LAYOUT) !== value) props.setProperty(LEDGER_LAYOUT, value);
}

export function rememberedLedgerLayout(): string[] | null {
  try {
    const parsed = JSON.parse(PropertiesService.getScriptProperties().getProperty(LEDGER_LAYOUT) ?? 'null');
    return Array.isArray(parsed) ? parsed.map(String) : null;
  } catch (_e) {
    return null;
  }
}

/** What 本番前チェック saw MF do in this office (core/mf-behaviour.ts); null before its posting check. */
const MF_BEHAVIOUR = 'KICHO_MF_BEHAVIOUR';

export function readMfBehaviour(): MfBehaviour | null {
  return parseMfBehaviour(PropertiesService.getScriptProperties().getProperty(MF_BEHAVIOUR));
}

export function recordMfBehaviour(behaviour: MfBehaviour): void {
  PropertiesService.getScriptProperties().setProperty(MF_BEHAVIOUR, JSON.stringify(behaviour));
}

/** What MF was seen doing with each インボイス区分 (issue 27): 本番前チェック, a read, and each created journal. */
const INVOICE_KINDS = 'KICHO_INVOICE_KINDS';

export function readInvoiceKinds(): KindsSeen {
  return parseKindsSeen(PropertiesService.getScriptProperties().getProperty(INVOICE_KINDS));
}

/** Adds what was seen now to what is kept (read again first: a concurrent run may have learnt too). */
export function recordInvoiceKinds(seen: KindsSeen): void {
  if (Object.keys(seen).length === 0) return;
  const props = PropertiesService.getScriptProperties();
  const merged = { ...parseKindsSeen(props.getProperty(INVOICE_KINDS)), ...seen };
  props.setProperty(INVOICE_KINDS, JSON.stringify(merged));
}

/** Forgets what was seen of one kind (本番前チェック asks MF again). */
export function forgetInvoiceKind(kind: InvoiceKind): void {
  const props = PropertiesService.getScriptProperties();
  const kept = parseKindsSeen(props.getProperty(INVOICE_KINDS));
  delete kept[kind];
  props.setProperty(INVOICE_KINDS, JSON.stringify(kept));
}
