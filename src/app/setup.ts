import { columnLetter, headerIndex, missingHeaders, missingItems } from '../core/headers';
import { describeShapeProblems, planHeaderRestore } from '../core/ledger-shape';
import { MSG } from '../core/messages';
import { LEDGER_HEADERS, SHEET, SHEET_SPECS } from '../core/schema';
import { canonicalItem, SETTING_DEFAULTS } from '../core/settings';
import { settingHint } from '../core/settings-form';
import { setCells, toCells } from '../gas/cells';
import { mfClient } from '../gas/mf-connection';
import { lastLedgerRows, rememberedLedgerLayout, rememberLedgerLayout } from '../gas/run-state';
import { writeMasters } from '../gas/settings-sheet';
import {
  activeBook,
  appendHeaders,
  appendRecords,
  ensureSheet,
  FORMAT_BUILDERS,
  formatHeaderRow,
  readColumn,
  readHeaderRow,
} from '../gas/workbook';
import { MfApiError } from '../mf/errors';
import { repairArchiveIndex } from '../services/archive-index';
import { fetchMasters } from '../services/masters';
import { ownerMismatch } from '../services/oauth-owner';
import { ledgerLookalikes } from '../services/preflight';
import { setupRuleSheets } from '../services/rule-sheet';
import { type RunContext, type RunResult, runEntry } from '../services/run';
import { repairLedgerText } from '../services/text-repair';
import {
  backupTriggerMessage,
  receivablesTriggerMessage,
  scheduleMessage,
} from '../services/trigger-messages';
import { formatLedger } from '../ui/ledger-format';
import { formatLog } from '../ui/log-format';

/**
 * Row 1 of `sheet` made whole again (DESIGN §3): a cleared or renamed header goes back over its own
 * column (ledger-shape.ts says which), a header no column holds is appended, and columns holding data
 * under no header that cannot be told apart are reported — never a new empty column beside them.
 */
const RESTORE_SAMPLE_ROWS = 500;

function restoreHeaders(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  spec: (typeof SHEET_SPECS)[number],
): { added: string[]; undecided: string[]; messages: string[] } {
  // Row 1 and enough rows to tell columns apart by what they hold.
  const last = Math.min(sheet.getLastRow(), RESTORE_SAMPLE_ROWS + 1);
  const values = last === 0 ? [] : sheet.getRange(1, 1, last, Math.max(1, sheet.getLastColumn())).getValues();
  const plan = planHeaderRestore(
    spec.name,
    values,
    spec.name === SHEET.ledger ? rememberedLedgerLayout() : null,
  );
  const messages: string[] = [];
  if (plan.place.length > 0) {
    const row = (values[0] ?? []).slice();
    const width = Math.max(row.length, ...plan.place.map((p) => p.column + 1));
    while (row.length < width) row.push('');
    for (const p of plan.place) row[p.column] = p.header;
    // Through the one writer: a person's own header goes back exactly as read (text stays text).
    setCells(
      sheet.getRange(1, 1, 1, width),
      toCells([row.map((v) => (v === null || v === undefined ? '' : v))]),
    );
    for (const p of plan.place) {
      messages.push(
        p.replaced === ''
          ? `シート「${spec.name}」の ${columnLetter(p.column)} 列に見出し「${p.header}」を戻しました（列の中身から判断しました）。`
          : `シート「${spec.name}」の ${columnLetter(p.column)} 列の見出し「${p.replaced}」を「${p.header}」に戻しました（見出しは変えないでください）。`,
      );
    }
  }
  appendHeaders(sheet, plan.append);
  if (plan.append.length > 0) messages.push(MSG.headersAdded(spec.name, plan.append));
  if (plan.orphans.length > 0) {
    messages.push(
      `シート「${spec.name}」の ${plan.orphans.map((o) => `${columnLetter(o.column)} 列`).join('・')}には見出しのないデータがあります。見出し${plan.undecided.map((h) => `「${h}」`).join('')}のどれなのか判断できないため、見出しは足していません。元の見出しを入力するか、バックアップ（非表示のシート「台帳バックアップ 日付」）と見比べて直してから、もう一度「初期設定」を実行してください。`,
    );
  }
  return { added: [...plan.place.map((p) => p.header), ...plan.append], undecided: plan.undecided, messages };
}

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
export function runSetup(ctx?: RunContext): SetupSummary {
  const summary: SetupSummary = {
    count: 0,
    createdSheets: [],
    addedHeaders: {},
    addedSettings: [],
    messages: [],
  };
  // A renamed 台帳 is not replaced by a new empty one: that would split the lines over two sheets.
  const lookalikes = activeBook().getSheetByName(SHEET.ledger) ? [] : ledgerLookalikes();
  if (lookalikes.length > 0) {
    const why = describeShapeProblems([{ kind: 'missing-sheet', sheet: SHEET.ledger, lookalikes }])[0];
    return {
      ...summary,
      ok: false,
      messages: [
        `${why} 新しい台帳は作っていません（作ると明細が二つのシートに分かれてしまいます）。名前を戻してから、もう一度「初期設定」を実行してください。`,
      ],
    };
  }
  for (const spec of SHEET_SPECS) {
    const { sheet, created } = ensureSheet(spec.name);
    const restored = restoreHeaders(sheet, spec);
    const missing = restored.added;
    if (created) {
      formatHeaderRow(sheet, spec.headers.length);
      summary.createdSheets.push(spec.name);
      summary.messages.push(MSG.sheetCreated(spec.name));
      if (spec.name === SHEET.ledger && lastLedgerRows() > 0)
        summary.messages.push(
          `前の台帳には ${lastLedgerRows()} 行ありました。MFの明細の行はメニュー「記帳 > 台帳 > 台帳を復元」で、CSVの行は同じCSVの取り込み直しで戻せます（戻すまで登録は止めます）。`,
        );
    } else {
      summary.messages.push(...restored.messages);
    }
    if (missing.length > 0) summary.addedHeaders[spec.name] = missing;
    if (restored.undecided.length > 0) summary.ok = false;
  }
  const ledger = ensureSheet(SHEET.ledger).sheet;
  const ledgerHeader = readHeaderRow(ledger);
  if (missingHeaders(ledgerHeader, LEDGER_HEADERS).length === 0) rememberLedgerLayout(ledgerHeader);
  formatLedger(ledger, FORMAT_BUILDERS);
  summary.messages.push(...repairLedgerText());
  // The archive's key index (issue 25): rebuilt from 台帳アーカイブ when it is gone or unreadable.
  const archive = repairArchiveIndex(ledgerHeader, ctx?.who ?? '', !!ctx && !ctx.fromTrigger);
  summary.messages.push(...archive.messages);
  if (archive.failed) summary.ok = false;
  formatLog(ensureSheet(SHEET.log).sheet, FORMAT_BUILDERS);
  summary.addedSettings = addMissingSettings();
  describeSettings();
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
  return runEntry(MSG.menuSetup, e, (ctx) => runSetup(ctx));
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
  // Over canonical names: 「照合間隔(分)」 typed with half-width brackets is already that item.
  const present = readColumn(sheet, '項目').map((v) => canonicalItem(String(v)) ?? String(v));
  const missing = missingItems(present, SETTING_DEFAULTS);
  appendRecords(
    sheet,
    missing.map(([item, value]) => ({ 項目: item, 値: value })),
  );
  return missing.map(([item]) => item);
}

/** The 設定 column where 初期設定 says, beside each value, what may be typed and what 空 means. */
export const SETTING_NOTE_HEADER = '説明';

/**
 * Fills 説明 on 設定 (adding the header after the last one when missing): one read, one write. Rows of
 * items kicho does not know keep what is there; the values people typed are not touched. 説明 is not a
 * header runs need (a 設定 without it still works).
 */
function describeSettings(): void {
  const { sheet } = ensureSheet(SHEET.settings);
  if (!headerIndex(readHeaderRow(sheet)).has(SETTING_NOTE_HEADER))
    appendHeaders(sheet, [SETTING_NOTE_HEADER]);
  const values = sheet.getDataRange().getValues();
  const columns = headerIndex(values[0] ?? []);
  const item = columns.get('項目');
  const note = columns.get(SETTING_NOTE_HEADER);
  if (item === undefined || note === undefined || values.length < 2) return;
  const cells = values.slice(1).map((row) => {
    const known = canonicalItem(String(row[item] ?? ''));
    return [known ? settingHint(known) : row[note]];
  });
  setCells(sheet.getRange(2, note + 1, cells.length, 1), toCells(cells));
}
