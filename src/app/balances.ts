/**
 * checkBalances(): 残高照合. For each own account (connected accounts and CSV sources) and each month end of
 * the import window: MF's balance from the balance sheet's trial balance at that date (one call per month
 * end, whatever the number of accounts), the statement's balance (a CSV's 残高, or a 通帳残高 a person
 * typed), the difference and what explains it; the table and a chart of the differences on 残高照合.
 */
import {
  balanceFromTrialBalance,
  balanceRecords,
  differenceSeries,
  type MfBalance,
  monthEndsBetween,
  type OpenLine,
  withStatementBalances,
} from '../core/balances';
import type { MonthEndBalance } from '../core/csv/balances';
import { type OwnAccount, ownAccounts } from '../core/own-accounts';
import { SHEET } from '../core/schema';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { balanceSheet, readBalanceRecords, writeBalanceSheet } from '../gas/balance-sheet';
import { today } from '../gas/clock';
import { readLedger } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient, officeRefusal } from '../gas/mf-connection';
import { readMasters } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import type { MfClient } from '../mf/client';
import type { MfTrialBalance } from '../mf/types';
import { accountingPeriodFor, addDays } from '../mf/windows';
import { preflight, settingsFor } from './preflight';
import { type RunContext, type RunResult, runEntry } from './run';

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
} as const;

/** At a CSV import (under its lock): the file's month-end balances on the source's rows. */
export function recordStatementBalances(source: string, points: readonly MonthEndBalance[]): void {
  if (points.length === 0) return;
  const sheet = balanceSheet();
  writeBalanceSheet(withStatementBalances(readBalanceRecords(sheet), source, points));
}

function isAssetGroup(group: string | undefined): boolean {
  return group !== 'LIABILITY' && group !== 'CAPITAL';
}

export function runCheckBalances(_ctx: RunContext, client?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters, SHEET.sources);
  if (refused) return refused;
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.balances);
  if (refusal) return refusal;
  const messages = [...notes];
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
  const monthEnds = monthEndsBetween(window.start, end);
  if (monthEnds.length === 0)
    return { ok: false, count: 0, messages: [CHECK_MSG.noMonthEnd(window.start, end), ...messages] };

  // One trial balance per month end, asked from the first day of its accounting period.
  const periods = mf.periods();
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
    // Read under the lock: a 通帳残高 typed meanwhile, or a CSV imported meanwhile, is kept.
    const records = balanceRecords({
      accounts,
      monthEnds,
      mfBalance,
      isAsset,
      existing: readBalanceRecords(),
      ledger,
      outsideWindow,
      window: { start: window.start, end: window.end },
    });
    writeBalanceSheet(
      records,
      differenceSeries(
        records,
        monthEnds,
        accounts.map((a) => a.label),
      ),
    );
    return records;
  });
  if (!result) return { ok: false, count: 0, messages: [BUSY_MESSAGE, ...messages] };
  const asked = result.value.filter(
    (r) => monthEnds.includes(String(r.月末)) && accounts.some((a) => a.label === r.口座),
  );
  const match = asked.filter((r) => r.差額 === 0).length;
  const diff = asked.filter((r) => typeof r.差額 === 'number' && r.差額 !== 0);
  const explained = diff.filter((r) => String(r.説明).includes('説明できます')).length;
  const missing = asked.filter((r) => r.差額 === '').length;
  const lead = [CHECK_MSG.summary(accounts.length, monthEnds.length, match, diff.length, explained, missing)];
  if (missing > 0) lead.push(CHECK_MSG.typeBalance);
  return {
    count: diff.length,
    messages: [...lead, ...messages],
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
