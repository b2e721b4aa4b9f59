import { missingHeaders, missingItems } from '../core/headers';
import { MSG } from '../core/messages';
import { SHEET, SHEET_SPECS } from '../core/schema';
import { SETTING_DEFAULTS } from '../core/settings';
import { mfClient } from '../gas/mf-connection';
import { readSettings, writeMasters } from '../gas/settings-sheet';
import { installBackupTrigger, installReceivablesTrigger, installScheduleTrigger } from '../gas/triggers';
import {
  appendHeaders,
  appendRecords,
  ensureSheet,
  formatHeaderRow,
  readColumn,
  readHeaderRow,
} from '../gas/workbook';
import { MfApiError } from '../mf/errors';
import { formatLedger } from '../ui/ledger-format';
import { formatLog } from '../ui/log-format';
import { fetchMasters } from './masters';
import { ownerMismatch } from './oauth-owner';
import { setupRuleSheets } from './rule-sheet';
import { type RunResult, runEntry } from './run';
import { repairLedgerText } from './text-repair';

export interface SetupSummary extends RunResult {
  createdSheets: string[];
  addedHeaders: Record<string, string[]>;
  addedSettings: string[];
  messages: string[];
}

/**
 * Creates every sheet of DESIGN §3 and any missing header or setting, idempotently: it adds,
 * never deletes or reorders, so a second run changes nothing.
 */
export function runSetup(): SetupSummary {
  const summary: SetupSummary = {
    count: 0,
    createdSheets: [],
    addedHeaders: {},
    addedSettings: [],
    messages: [],
  };
  for (const spec of SHEET_SPECS) {
    const { sheet, created } = ensureSheet(spec.name);
    const missing = missingHeaders(readHeaderRow(sheet), spec.headers);
    appendHeaders(sheet, missing);
    if (created) {
      formatHeaderRow(sheet, spec.headers.length);
      summary.createdSheets.push(spec.name);
      summary.messages.push(MSG.sheetCreated(spec.name));
    } else if (missing.length > 0) {
      summary.messages.push(MSG.headersAdded(spec.name, missing));
    }
    if (missing.length > 0) summary.addedHeaders[spec.name] = missing;
  }
  formatLedger(ensureSheet(SHEET.ledger).sheet);
  summary.messages.push(...repairLedgerText());
  formatLog(ensureSheet(SHEET.log).sheet);
  summary.addedSettings = addMissingSettings();
  summary.messages.push(refreshMasters());
  summary.messages.push(...setupRuleSheets());
  summary.messages.push(scheduleMessage());
  const mismatch = ownerMismatch();
  if (mismatch) summary.messages.push(mismatch);
  for (const m of [backupTriggerMessage(), receivablesTriggerMessage()]) if (m) summary.messages.push(m);
  if (summary.addedSettings.length > 0) summary.messages.push(MSG.settingsAdded(summary.addedSettings));
  const headerCount = Object.values(summary.addedHeaders).reduce((n, h) => n + h.length, 0);
  const done = MSG.setupDone(summary.createdSheets.length, headerCount, summary.addedSettings.length);
  summary.messages.unshift(done);
  summary.count = summary.createdSheets.length;
  return summary;
}

export function setup(e?: unknown) {
  return runEntry(MSG.menuSetup, e, () => runSetup());
}

/** Installs (or replaces) the runScheduled trigger every 照合間隔（分）. */
export function scheduleMessage(): string {
  const outcome = installScheduleTrigger(readSettings().settings.reconcileIntervalMinutes);
  if (outcome.kind === 'owned-by-other') {
    return `定期実行のトリガーは ${outcome.owner} が設定しています（トリガーは作った人のアカウントで動き、ほかの人には見えません）。変更は ${outcome.owner} が「初期設定」を実行してください。`;
  }
  return outcome.kind === 'installed'
    ? `定期実行（照合）を ${outcome.interval} 分ごとに設定しました。`
    : `定期実行（照合）は ${outcome.interval} 分ごとのままです。`;
}

/** Installs the daily backup trigger once (DESIGN §3 records one owner for every trigger). */
function backupTriggerMessage(): string {
  return installBackupTrigger() === 'installed'
    ? '台帳のバックアップを毎日 3 時ごろに行うよう設定しました。'
    : '';
}

/** The weekly 売掛金チェック follows 設定 売掛金の定期チェック. */
export function receivablesTriggerMessage(): string {
  const outcome = installReceivablesTrigger(readSettings().settings.receivablesWeekly);
  if (outcome === 'installed') return '売掛金チェックを毎週月曜 8 時ごろに行うよう設定しました。';
  if (outcome === 'removed') return '売掛金の定期チェックを止めました。';
  return '';
}

/** Fills マスタ from MF when a connection is configured; says what to do when it is not. */
function refreshMasters(): string {
  try {
    const masters = fetchMasters(mfClient(), new Date().toISOString());
    writeMasters(masters);
    return `マスタを取得しました（勘定科目 ${masters.accounts.length} 件、税区分 ${masters.taxes.length} 件、取引先 ${masters.partners.length} 件）。`;
  } catch (e) {
    if (e instanceof MfApiError) return `マスタは取得していません: ${e.message}`;
    throw e;
  }
}

/** Adds the 設定 rows people have not got yet, with their defaults; never overwrites a value. */
function addMissingSettings(): string[] {
  const { sheet } = ensureSheet(SHEET.settings);
  const missing = missingItems(readColumn(sheet, '項目'), SETTING_DEFAULTS);
  appendRecords(
    sheet,
    missing.map(([item, value]) => ({ 項目: item, 値: value })),
  );
  return missing.map(([item]) => item);
}
