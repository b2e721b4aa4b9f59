/**
 * checkReceivables(): 売掛金チェック. Reads every journal on the receivables account (設定 売掛金科目)
 * over the last two accounting periods, matches billed against collected per 取引先 (core/receivables),
 * and rewrites the 売掛金 sheet in one write. MF calls grow with periods and pages, never per partner.
 */
import { columnLetter, headerIndex, missingHeaders } from '../core/headers';
import type { Masters } from '../core/masters';
import { AGING_BUCKETS, entriesFromJournals, matchReceivables, NO_PARTNER } from '../core/receivables';
import { RECEIVABLE_SECTIONS, receivableSheetRows } from '../core/receivables-sheet';
import { RECEIVABLE_HEADERS, SHEET } from '../core/schema';
import { SETTING_NEEDS, type Settings } from '../core/settings';
import { normalizeText } from '../core/text';
import { today } from '../gas/clock';
import { mfClient } from '../gas/mf-connection';
import { writeMasters } from '../gas/settings-sheet';
import {
  appendHeaders,
  columnChartType,
  ensureSheet,
  formatHeaderRow,
  newConditionalFormatRule,
  readHeaderRow,
  replaceDataRows,
} from '../gas/workbook';
import type { MfClient } from '../mf/client';
import type { MfAccountingPeriod } from '../mf/types';
import { splitByPeriods } from '../mf/windows';
import { currentMasters, fetchMasters } from '../services/masters';
import { preflight, settingsFor } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';

/**
 * Terms read: the current one and the one before. An invoice older than that is carried into the
 * earlier term's opening balance, which is read too, so nothing outstanding is missed.
 */
const PERIODS_READ = 2;

export const RECEIVABLE_MSG = {
  unknownAccount: (name: string) =>
    `設定の売掛金科目「${name}」がMFの勘定科目（シート「マスタ」）にありません。設定の売掛金科目をMFの勘定科目名に直すか、「初期設定」でマスタを取り直してください。`,
  noPeriod: (date: string) =>
    `MFに ${date} を含む会計期間がありません。MFで会計期間（事業年度）を設定してください。`,
  summary: (open: number, balance: number, overdue: number) =>
    `未回収の売掛金 ${open} 件、残高 ${balance.toLocaleString('ja-JP')} 円、うち期日超過 ${overdue} 件。シート「売掛金」に書き出しました。`,
  odd: (n: number) =>
    `取引先のない仕訳・前受または誤りの入金・取消が ${n} 件あります。シート「売掛金」の「説明」を確認してください。`,
  range: (start: string, end: string, journals: number) =>
    `${start}〜${end} の売掛金の仕訳 ${journals} 件を確認しました。`,
} as const;

function receivableAccountId(masters: Masters, settings: Settings): string | null {
  const name = normalizeText(settings.receivableAccount);
  return masters.accounts.find((a) => normalizeText(a.name) === name)?.id ?? null;
}

/** The last PERIODS_READ terms that have begun by `asOf`, oldest first. */
function periodsToRead(periods: readonly MfAccountingPeriod[], asOf: string): MfAccountingPeriod[] {
  return [...periods]
    .filter((p) => p.start_date <= asOf)
    .sort((a, b) => (a.start_date < b.start_date ? -1 : 1))
    .slice(-PERIODS_READ);
}

export function runCheckReceivables(_ctx: RunContext, given?: MfClient): RunResult {
  const refused = preflight(SHEET.settings, SHEET.masters);
  if (refused) return refused;
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.receivables);
  if (refusal) return refusal;
  const client = given ?? mfClient();
  const messages = [...notes];
  const asOf = today();
  const current = currentMasters(client, Date.now());
  let { masters } = current;
  let accountId = receivableAccountId(masters, settings);
  if (accountId === null && !current.refreshed) {
    // Perhaps an account added in MF since the last fetch: refresh once before giving up.
    masters = fetchMasters(client, new Date().toISOString());
    writeMasters(masters);
    accountId = receivableAccountId(masters, settings);
  }
  if (accountId === null)
    return {
      ok: false,
      count: 0,
      messages: [...messages, RECEIVABLE_MSG.unknownAccount(settings.receivableAccount)],
    };

  const periods = periodsToRead(client.office().accounting_periods, asOf);
  if (periods.length === 0)
    return { ok: false, count: 0, messages: [...messages, RECEIVABLE_MSG.noPeriod(asOf)] };
  const start = periods[0].start_date;
  // Not through the MF lookup (mf/lookup.ts): this asks what MF holds on one account over whole terms — a
  // listing filtered by account, which no lookup question needs — not whether MF has a given journal.
  const journals = splitByPeriods(start, asOf, periods).flatMap((w) =>
    client.listJournals({ startDate: w.start, endDate: w.end, accountId }),
  );
  const account = masters.accounts.find((a) => a.id === accountId);
  const entries = entriesFromJournals(
    journals,
    accountId,
    {
      partners: new Map(masters.partners.map((p) => [p.code, p.name])),
      subAccounts: new Map((account?.subAccounts ?? []).map((s) => [s.id, s.name])),
    },
    // A later term's opening balance repeats what the earlier term's journals already show.
    { skipOpeningAfter: start },
  );
  const report = matchReceivables(entries, {
    asOf,
    collectionDays: settings.collectionDays,
    feeTolerance: settings.feeTolerance,
  });
  writeReceivableSheet(receivableSheetRows(report));

  const openItems = report.open.filter((i) => i.balance > 0);
  const odd = [...report.open, ...report.closed].filter(
    (i) => i.balance < 0 || i.status === '取消' || i.partner === NO_PARTNER,
  ).length;
  messages.unshift(
    RECEIVABLE_MSG.summary(openItems.length, report.totalBalance, report.overdueCount),
    RECEIVABLE_MSG.range(start, asOf, journals.length),
  );
  if (odd > 0) messages.push(RECEIVABLE_MSG.odd(odd));
  return {
    count: openItems.length,
    messages,
    overdue: report.overdueCount,
    balance: report.totalBalance,
    odd,
    journals: journals.length,
  };
}

/** One write for the data, then a whole-row highlight keyed on 状態 = 期日超過. */
function writeReceivableSheet(rows: Record<string, unknown>[]): void {
  const { sheet, created } = ensureSheet(SHEET.receivables);
  appendHeaders(sheet, missingHeaders(readHeaderRow(sheet), RECEIVABLE_HEADERS));
  if (created) formatHeaderRow(sheet, RECEIVABLE_HEADERS.length);
  replaceDataRows(SHEET.receivables, rows);
  const header = readHeaderRow(sheet);
  const status = headerIndex(header).get('状態');
  if (status === undefined) return;
  const range = sheet.getRange(2, 1, Math.max(1, sheet.getMaxRows() - 1), header.length);
  const rule = newConditionalFormatRule()
    .whenFormulaSatisfied(`=$${columnLetter(status)}2="期日超過"`)
    .setBackground('#fce8e6')
    .setFontColor('#a50e0e')
    .setRanges([range])
    .build();
  // The sheet is ours: replacing its rules keeps exactly one highlight however often this runs.
  sheet.setConditionalFormatRules([rule]);
  drawAgingChart(sheet, rows, header);
}

/** A small column chart of the 経過日数別 rows, to the right of the table; the previous one is replaced. */
function drawAgingChart(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  rows: readonly Record<string, unknown>[],
  header: readonly unknown[],
): void {
  for (const chart of sheet.getCharts()) sheet.removeChart(chart);
  const title = rows.findIndex((r) => r.取引先 === RECEIVABLE_SECTIONS.buckets);
  const columns = headerIndex(header);
  const bucket = columns.get('区分');
  const balance = columns.get('残高');
  if (title < 0 || bucket === undefined || balance === undefined) return;
  // Data rows start at sheet row 2; the buckets follow their title row.
  const first = title + 3;
  const chart = sheet
    .newChart()
    .setChartType(columnChartType())
    .addRange(sheet.getRange(first, bucket + 1, AGING_BUCKETS.length, 1))
    .addRange(sheet.getRange(first, balance + 1, AGING_BUCKETS.length, 1))
    .setPosition(2, header.length + 2, 0, 0)
    .setOption('title', '経過日数別の売掛金残高')
    .setOption('legend', { position: 'none' })
    .build();
  sheet.insertChart(chart);
}

export function checkReceivables(e?: unknown) {
  return runEntry('売掛金チェック', e, (ctx) => runCheckReceivables(ctx));
}
