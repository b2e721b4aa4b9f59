/**
 * checkBalances(): 残高照合. For each own account (connected accounts and CSV sources) and each month end of
 * the import window: MF's balance from the balance sheet's trial balance at that date (one call per month
 * end, whatever the number of accounts), the statement's balance (a CSV's 残高, or a 通帳残高 a person
 * typed), the difference and what explains it; the table and a chart of the differences on 残高照合.
 */
import type { BalanceTable } from '../core/balance-sheet';
import {
  balanceFromTrialBalance,
  balanceRecords,
  differenceSeries,
  type MfBalance,
  monthEndsBetween,
  type OpenLine,
  readTypedBalance,
  TYPED_HOW,
} from '../core/balances';
import { columnLetter } from '../core/headers';
import { type OwnAccount, ownAccounts } from '../core/own-accounts';
import { SHEET } from '../core/schema';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { openBalanceSheet, readBalanceSheet, writeBalanceSheet } from '../gas/balance-sheet';
import { today } from '../gas/clock';
import { readLedger } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient, officeRefusal } from '../gas/mf-connection';
import { readMasters, settingCell } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import type { MfClient } from '../mf/client';
import type { MfTrialBalance } from '../mf/types';
import { accountingPeriodFor, addDays } from '../mf/windows';
import { preflight, settingsFor } from '../services/preflight';
import { type RunContext, type RunResult, runEntry } from '../services/run';

const ACTION = '残高照合';

export const CHECK_MSG = {
  noAccounts:
    'MF の連携口座も、勘定科目のわかる取込元もありません。「初期設定」でマスタを取り直すか、シート「取込元」に勘定科目を入れてください。',
  noMonthEnd: (start: string, end: string) =>
    `取込期間 ${start}〜${end} に月末がありません。設定の取込開始日・取込終了日を確かめてください。`,
  summary: (
    accounts: number,
    months: number,
    match: number,
    diff: number,
    explained: number,
    missing: number,
  ) =>
    `${accounts} 口座 × ${months} か月の月末残高を MF と比べました。一致 ${match} 件、差額あり ${diff} 件（うち台帳の未登録分などで説明できるもの ${explained} 件）、明細の残高がないもの ${missing} 件。シート「残高照合」に書き出しました。`,
  typeBalance:
    '差額を出すには、シート「残高照合」の「通帳残高」に月末の残高を入れて、もう一度「残高照合」を実行してください。',
  unreadable: (cell: string, account: string, monthEnd: string, text: string, why: string) =>
    `シート「残高照合」の ${cell}（${account}・${monthEnd}）: 通帳残高「${text}」は読めないため、比べていません（${why}）。入力はそのまま残しています。`,
  moreUnreadable: (n: number) => `ほかに読めない通帳残高が ${n} 件あります（シート「残高照合」の説明の列）。`,
  copy: (row: number, of: number) =>
    `シート「残高照合」の ${row} 行目は ${of} 行目と同じ口座・月末です。比べたのは ${of} 行目だけです。どちらかの行を消してください。`,
  beforePeriods: (start: string, cell: string, first: string) =>
    `取込開始日（${cell}）${start} は MF の最初の会計期間（${first}〜）より前です。その前の月末は MF に残高がないため、残高照合は ${first} からの月末で行いました。`,
} as const;

/** What the summary says of typed balances kicho could not read, and of copied rows, by cell. */
function typedProblems(table: BalanceTable, asked: (account: string, monthEnd: string) => boolean): string[] {
  const column = table.columns.get('通帳残高');
  const lines: string[] = [];
  let more = 0;
  for (const { rowNumber, record } of table.rows) {
    const typed = readTypedBalance(record.通帳残高);
    if (
      typed.kind !== 'unreadable' ||
      column === undefined ||
      !asked(String(record.口座), String(record.月末))
    )
      continue;
    if (lines.length >= TYPED_LINES) {
      more++;
      continue;
    }
    const cell = `${columnLetter(column)}${rowNumber}`;
    lines.push(CHECK_MSG.unreadable(cell, String(record.口座), String(record.月末), typed.text, typed.why));
  }
  if (lines.length > 0) lines.push(TYPED_HOW);
  if (more > 0) lines.push(CHECK_MSG.moreUnreadable(more));
  for (const c of table.copies.slice(0, TYPED_LINES)) lines.push(CHECK_MSG.copy(c.rowNumber, c.of));
  return lines;
}

/** Cells named one by one in a summary; the rest are counted (each row's 説明 names its own). */
const TYPED_LINES = 10;

function isAssetGroup(group: string | undefined): boolean {
  return group !== 'LIABILITY' && group !== 'CAPITAL';
}

export function runCheckBalances(_ctx: RunContext, client?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters, SHEET.sources);
  if (refused) return refused;
  // Its own sheet too, before anything is read or written (DESIGN §3): a renamed 通帳残高 stops the run.
  const opened = openBalanceSheet();
  if ('problems' in opened) return { ok: false, count: 0, messages: opened.problems };
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.balances);
  if (refusal) return refusal;
  const messages = [...notes];
  if (opened.created) messages.push('シート「残高照合」を作りました。');
  const asOf = today();
  const window = importWindow(settings, asOf);
  if (window.problem) return { ok: false, count: 0, messages: [window.problem, ...messages] };
  // Month ends that have come: dates as text sort in calendar order.
  const [end] = [window.end, asOf].sort();
  const mf = client ?? mfClient();
  const otherOffice = officeRefusal(mf);
  if (otherOffice) return { ok: false, count: 0, messages: [otherOffice, ...messages] };
  const masters = readMasters();
  const accounts = ownAccounts(masters, readSources());
  if (accounts.length === 0) return { ok: false, count: 0, messages: [CHECK_MSG.noAccounts, ...messages] };
  // MF has no balance before its first accounting period (/offices): month ends before it would only be
  // rows saying so — thousands of them for a 取込開始日 like 1900-01-01 — and a trial balance call each.
  const periods = mf.periods();
  const first = periods.map((p) => p.start_date).sort()[0];
  const from = first && window.start < first ? first : window.start;
  if (from !== window.start)
    messages.unshift(CHECK_MSG.beforePeriods(window.start, settingCell('取込開始日'), first));
  const monthEnds = monthEndsBetween(from, end);
  if (monthEnds.length === 0)
    return { ok: false, count: 0, messages: [CHECK_MSG.noMonthEnd(from, end), ...messages] };

  // One trial balance per month end, asked from the first day of its accounting period.
  const reports = new Map<string, MfTrialBalance>();
  for (const monthEnd of monthEnds) {
    const period = accountingPeriodFor(monthEnd, periods);
    if (!period) continue;
    reports.set(
      monthEnd,
      mf.trialBalanceBs({ startDate: period.start_date, endDate: monthEnd, withSubAccounts: true }),
    );
  }
  const subsOf = new Map(masters.accounts.map((a) => [a.id, a.subAccounts.length > 0]));
  const mfBalance = (a: OwnAccount, monthEnd: string): MfBalance | null => {
    const tb = reports.get(monthEnd);
    return tb
      ? balanceFromTrialBalance(tb, a.accountName, a.subName, subsOf.get(a.accountId) ?? false)
      : null;
  };
  // The account's group, for the sign of lines not yet booked, only when a report does not show it.
  let groups: Map<string, string | undefined> | null = null;
  const isAsset = (a: OwnAccount): boolean => {
    groups ??= new Map(mf.accounts().map((x) => [x.id, x.account_group]));
    return isAssetGroup(groups.get(a.accountId));
  };

  // MF lines not journalized from the first period start asked up to the day before the window: the
  // window's own lines are in the 台帳 (one listing per 366 days and 500 lines, not per account).
  const outsideWindow = new Map<string, OpenLine[]>();
  const firstPeriod = accountingPeriodFor(monthEnds[0], periods);
  const connected = accounts.filter((a) => a.kind === 'connected');
  if (firstPeriod && connected.length > 0 && firstPeriod.start_date < window.start) {
    const lines = mf.listTransactions({
      startDate: firstPeriod.start_date,
      endDate: addDays(window.start, -1),
      statuses: ['none'],
    });
    for (const l of lines) {
      const a = connected.find(
        (c) =>
          c.connectedId === l.connected_account_id &&
          (c.connectedSubId ?? null) === (l.connected_sub_account_id ?? null),
      );
      if (!a) continue;
      const list = outsideWindow.get(a.label) ?? [];
      list.push({ date: l.date, signed: l.side === 'INCOME' ? l.value : -l.value });
      outsideWindow.set(a.label, list);
    }
  }
  const ledger = readLedger().rows;

  const result = underScriptLock(() => {
    // Read under the lock: a CSV imported meanwhile is kept. 通帳残高 is never written, so a balance a
    // person types at any moment stays.
    const read = readBalanceSheet(opened.sheet);
    if ('problems' in read) return { kind: 'refused' as const, problems: read.problems };
    const records = balanceRecords({
      accounts,
      monthEnds,
      mfBalance,
      isAsset,
      existing: read.table.rows.map((r) => r.record),
      ledger,
      outsideWindow,
      window: { start: window.start, end: window.end },
    });
    const series = differenceSeries(
      records,
      monthEnds,
      accounts.map((a) => a.label),
    );
    writeBalanceSheet(opened.sheet, read.table, records, series);
    return { kind: 'written' as const, records, table: read.table };
  });
  if (!result) return { ok: false, count: 0, messages: [BUSY_MESSAGE, ...messages] };
  if (result.value.kind === 'refused') return { ok: false, count: 0, messages: result.value.problems };
  const isAsked = (account: string, monthEnd: string) =>
    monthEnds.includes(monthEnd) && accounts.some((a) => a.label === account);
  const asked = result.value.records.filter((r) => isAsked(String(r.口座), String(r.月末)));
  const unreadable = asked.filter((r) => readTypedBalance(r.通帳残高).kind === 'unreadable').length;
  const match = asked.filter((r) => r.差額 === 0).length;
  const diff = asked.filter((r) => typeof r.差額 === 'number' && r.差額 !== 0);
  const explained = diff.filter((r) => String(r.説明).includes('説明できます')).length;
  const missing = asked.filter((r) => r.差額 === '').length - unreadable;
  const lead = [CHECK_MSG.summary(accounts.length, monthEnds.length, match, diff.length, explained, missing)];
  lead.push(...typedProblems(result.value.table, isAsked));
  if (missing > 0) lead.push(CHECK_MSG.typeBalance);
  return {
    count: diff.length,
    messages: [...lead, ...messages],
    unreadable,
    accounts: accounts.length,
    months: monthEnds.length,
    match,
    differences: diff.length,
    explained,
    missing,
    reports: reports.size,
  };
}

export function checkBalances(e?: unknown) {
  return runEntry(ACTION, e, (ctx) => runCheckBalances(ctx));
}
