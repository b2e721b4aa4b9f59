/**
 * CSV import (DESIGN §3 取込元, §6 importCsv): bank and card lines MF does not have become 台帳 rows,
 * once each, keyed per DESIGN §2. The dialog (ui/csv-import.html) previews a file first and then
 * imports it; importCsv(text, sourceName, layout?) is the same import for decoded text.
 */

import { isArchived, stopsLookups, troubleMessage } from '../core/archive';
import { balanceBreaks, monthEndBalances } from '../core/csv/balances';
import { charsetLabel } from '../core/csv/encoding';
import {
  type CsvLine,
  type CsvReading,
  describeProblem,
  overlapWarning,
  planCsvIntake,
  readCsv,
  sideChangedMessages,
  skippedSummary,
} from '../core/csv/intake';
import { type LayoutChoice, layoutOptions, type ResolvedLayout } from '../core/csv/layouts';
import { parseSavedLayout, savedLayoutProblem, savedLayoutText } from '../core/csv/saved-layout';
import {
  type CsvSource,
  doubleCountWarnings,
  findSource,
  newCardSource,
  newSource,
  sourceNameProblem,
} from '../core/csv/sources';
import type { Masters } from '../core/masters';
import { MF_BEHAVIOUR_MSG } from '../core/mf-behaviour';
import { redactSecrets } from '../core/redact';
import { SHEET } from '../core/schema';
import { importBlockedBy } from '../core/self-test';
import { readIndexForLookup } from '../gas/archive-sheet';
import { today } from '../gas/clock';
import { decodeCsvBase64 } from '../gas/csv-file';
import { htmlTemplate, spreadsheetUi } from '../gas/dialog';
import { appendLedgerRecords, readLedger, restoreKeys } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import { readMfBehaviour, readSelfTest, recordLedgerRows } from '../gas/run-state';
import { readMasters, readSettings } from '../gas/settings-sheet';
import { appendSource, readSources, saveSourceLayout } from '../gas/sources-sheet';
import type { MfClient } from '../mf/client';
import { mfLookup } from '../mf/lookup';
import { archiveIndexRefusal, indexRefusal } from '../services/archive-index';
import { watchDoneRows } from '../services/done-rows';
import { preflight } from '../services/preflight';
import { holdRecentlySent } from '../services/recent-sends';
import { type RunContext, type RunResult, runEntry } from '../services/run';
import { recordStatementBalances, statementBalancesRefusal } from '../services/statement-balances';

const ACTION = 'CSVの取込';
/** Lines shown in the dialog's preview table (every bad line is shown, whatever its count). */
const PREVIEW_LINES = 10;

function accountText(s: CsvSource): string {
  return s.補助科目 ? `${s.勘定科目} / ${s.補助科目}` : s.勘定科目;
}

function newSourceMessage(s: CsvSource, layout: ResolvedLayout | null): string {
  if (layout?.family === 'card')
    return `取込元「${s.name}」を新しく追加しました（${layout.name}の明細なので、勘定科目 ${accountText(s)}）。違っていれば シート「取込元」で直してください。`;
  return `取込元「${s.name}」を新しく追加しました（勘定科目 ${accountText(s)}）。カードなら シート「取込元」で 未払金 などに直してください。`;
}

/** The 取込元 a first import of this file adds: a card layout's gets the card's account (issue 26). */
function sourceFor(name: string, layout: ResolvedLayout | null, masters: Masters): CsvSource {
  return layout?.family === 'card' ? newCardSource(name, layout.name, masters) : newSource(name);
}

/** 「三菱UFJ銀行の明細として読みました（7 行）」 */
function foundMessage(layout: ResolvedLayout | null, read: number, saved: boolean): string {
  if (!layout) return '';
  const where = saved ? '（取込元に保存した形式）' : '';
  if (layout.family) return `${layout.name}の明細として読みました${where}（${read} 行）。`;
  return `列の並び「${layout.name}」で読みました${where}（${read} 行）。`;
}

/**
 * The layout to read with: the dialog's choice; with none (自動判定), the 取込元's saved format; else
 * detection. A saved format that cannot be read stops the import and names its cell (never a default).
 */
function effectiveChoice(
  choice: LayoutChoice | undefined,
  source: CsvSource | undefined,
): { ok: true; choice: LayoutChoice | undefined; saved: boolean } | { ok: false; reason: string } {
  const auto = !choice || choice.preset === undefined || choice.preset === 'auto';
  if (!auto || !source) return { ok: true, choice, saved: false };
  const saved = parseSavedLayout(source.取込形式);
  if (saved === null) return { ok: true, choice, saved: false };
  if (!saved.ok) return { ok: false, reason: savedLayoutProblem(source.name, source.row ?? 0, saved.reason) };
  return { ok: true, choice: saved.choice, saved: true };
}

/** A line is imported when its key, or one of its one-column keys (a description joined since), is there. */
function archived(index: ReturnType<typeof readIndexForLookup>['index'], l: CsvLine): boolean {
  return isArchived(index, l.key) || (l.aliases ?? []).some((a) => isArchived(index, a));
}

/** The spelling already on 取込元 (keys and 口座 use it) and its row, or the typed name trimmed. */
function canonicalName(typed: string): { name: string; source: CsvSource | undefined } {
  const s = findSource(readSources(), typed);
  return { name: s ? s.name : typed.trim(), source: s };
}

function choiceOf(layout: unknown): LayoutChoice | undefined {
  return layout && typeof layout === 'object' ? (layout as LayoutChoice) : undefined;
}

/**
 * Journals in MF carrying a kicho tag within the file's dates (one listing per accounting period), so
 * lines posted before are never posted again. When MF cannot be asked, the import goes on and says so:
 * the duplicate-key guard and reconcile still protect rows already in the 台帳.
 */
function journalsByTag(
  reading: CsvReading,
  client: (() => MfClient) | undefined,
  messages: string[],
): Map<string, string> {
  if (reading.lines.length === 0) return new Map();
  const dates = reading.lines.map((l) => l.date).sort();
  try {
    const mf = client ? client() : mfClient();
    return mfLookup(mf).journalsByTag([{ start: dates[0], end: dates[dates.length - 1] }], false);
  } catch (e) {
    messages.push(
      `MFに登録済みの仕訳を確認できませんでした（${redactSecrets(e instanceof Error ? e.message : String(e))}）。MFとの接続を確認してください。`,
    );
  }
  return new Map();
}

export function runImportCsv(
  _ctx: RunContext,
  text: string,
  sourceName: string,
  layout?: unknown,
  client?: () => MfClient,
): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.sources, SHEET.masters);
  if (refused) return refused;
  const blocked = importBlockedBy(readSelfTest());
  if (blocked) return { ok: false, count: 0, messages: [blocked], blocked: true };
  // MF keeps no tags on POST /journals here: a CSV line could not be reconciled once sent.
  if (readMfBehaviour()?.createTags === 'dropped')
    return { ok: false, count: 0, messages: [MF_BEHAVIOUR_MSG.csvRefused], blocked: true };
  const nameProblem = sourceNameProblem(String(sourceName ?? ''));
  if (nameProblem) return { ok: false, count: 0, messages: [nameProblem] };
  if (typeof text !== 'string' || text.trim() === '')
    return { ok: false, count: 0, messages: ['CSVが空です。ファイルを選び直してください。'] };
  const { name, source: known } = canonicalName(String(sourceName));
  const asked = choiceOf(layout);
  const effective = effectiveChoice(asked, known);
  if (!effective.ok) return { ok: false, count: 0, messages: [effective.reason] };
  const reading = readCsv(text, name, effective.choice, today());
  if (reading.fatal)
    return { ok: false, count: 0, messages: [reading.fatal], candidates: reading.candidates };
  // The file's month-end balances go to 残高照合: its headers are checked before anything is written.
  const points = monthEndBalances(reading.lines);
  const balancesRefused = statementBalancesRefusal(points);
  if (balancesRefused) return { ok: false, count: 0, messages: balancesRefused };
  const masters = readMasters();

  // Without a trustworthy key index an archived line would look new (issue 25): stop before MF is asked.
  const noIndex = archiveIndexRefusal();
  if (noIndex) return noIndex;
  const messages: string[] = [];
  const tagged = journalsByTag(reading, client, messages);
  const keep = asked?.save === true && reading.layout ? savedLayoutText(reading.layout) : null;
  const done = underScriptLock(() => {
    // CSV lines whose rows moved to 台帳アーカイブ count as imported (one read of the key index), and
    // nothing is written when that index cannot be trusted.
    const { index, trouble } = readIndexForLookup();
    const refusedNow = indexRefusal(trouble);
    if (refusedNow) return { refused: refusedNow };
    // Re-read under the lock: two imports of a new source must add it once.
    const listed = findSource(readSources(), name);
    const source = listed ?? sourceFor(name, reading.layout, masters);
    const added = !listed;
    if (added) appendSource({ ...source, 取込形式: keep ?? '' });
    else if (keep !== null) saveSourceLayout(source.name, keep);
    const table = readLedger();
    const gone = watchDoneRows(table);
    const lines = reading.lines.filter((l) => !archived(index, l));
    const plan = planCsvIntake(table, lines, name, new Date().toISOString(), tagged);
    plan.already += reading.lines.length - lines.length;
    const keys = restoreKeys(table, plan.keyRestores);
    // A line sent a moment ago whose row was deleted comes back 不明: looked up before any send.
    const fresh = holdRecentlySent(plan.newRows, readSettings().settings.graceMinutes);
    // Counted from the sheet after the write (DESIGN §9.7), not from the plan.
    const written = appendLedgerRecords(fresh.rows);
    // The file's 残高 at each month end, for 残高照合 (kept on that sheet, one read and one write).
    const balancesSkipped = recordStatementBalances(name, points);
    return {
      balancesSkipped,
      plan,
      added,
      source,
      written,
      restored: keys.restored,
      rows: table.rows.length + written,
      gone,
    };
  });
  if (!done) return { ok: false, count: 0, messages: [BUSY_MESSAGE], busy: true };
  if ('refused' in done.value && done.value.refused) return done.value.refused;
  const { plan, added, source, rows, written, restored, gone, balancesSkipped } = done.value;
  recordLedgerRows(rows);
  messages.unshift(
    `取込元「${name}」のCSVから ${reading.lines.length} 件を読み、${written} 件を台帳に追加しました` +
      (plan.already > 0 ? `（${plan.already} 件は取込済み）` : '') +
      `。読めなかった行 ${reading.problems.length} 件。`,
    foundMessage(reading.layout, reading.lines.length, effective.saved),
  );
  const skipped = skippedSummary(reading.skipped);
  if (skipped) messages.push(skipped);
  if (keep !== null) {
    // Read back (DESIGN §9.7): say it was kept only when the cell holds it.
    const kept = findSource(readSources(), name)?.取込形式 === keep;
    messages.push(
      kept
        ? `この形式（${keep}）を取込元「${name}」に保存しました（シート「取込元」の「取込形式」）。次からこの取込元のファイルは列を指定せずに読めます。`
        : `この形式を取込元「${name}」に保存できませんでした。シート「取込元」に見出し「取込形式」があるか確かめ、メニュー「記帳 > 接続と設定 > 初期設定」を実行してからもう一度保存してください。`,
    );
  }
  if (gone) messages.push(gone);
  if (balancesSkipped) messages.push(balancesSkipped);
  if (restored > 0)
    messages.push(
      `キーが書き換えられていた ${restored} 行は、このCSVの同じ明細（口座・取引日・金額・摘要が一致）からキーを元に戻しました。`,
    );
  if (written < plan.newRows.length)
    messages.unshift(
      `台帳に ${plan.newRows.length} 件を書き込みましたが、読み直すと ${written} 件しかありません。台帳の見出し（1 行目）が変わっていないか確かめ、メニュー「記帳 > 接続と設定 > 初期設定」を実行してから、もう一度取り込んでください。`,
    );
  messages.push(...sideChangedMessages(plan.sideChanged));
  if (plan.alreadyInMf > 0)
    messages.push(
      `${plan.alreadyInMf} 件はMFに仕訳が既にあったため「完了」として追加しました（二度は登録しません）。`,
    );
  if (added) messages.push(newSourceMessage(source, reading.layout));
  const overlap = overlapWarning(name, plan.overlapDates);
  if (overlap) messages.push(overlap);
  messages.push(...doubleCountWarnings([source], masters));
  messages.push(...reading.problems.map(describeProblem));
  messages.push(...reading.notices.map(describeProblem));
  // A break in the running balance points at a missing or a duplicated line (issue 16).
  const breaks = balanceBreaks(reading.lines);
  messages.push(...breaks.map((b) => b.message));
  return {
    ...(written < plan.newRows.length ? { ok: false } : {}),
    count: written,
    messages,
    added: written,
    notices: reading.notices,
    already: plan.already,
    read: reading.lines.length,
    problems: reading.problems,
    sourceAdded: added,
    alreadyInMf: plan.alreadyInMf,
    overlapDates: plan.overlapDates,
    layout: reading.layout?.name ?? '',
    skipped: reading.skipped.length,
    balanceBreaks: breaks.map(({ line, previousLine, kind, expected, actual }) => ({
      line,
      previousLine,
      kind,
      expected,
      actual,
    })),
  };
}

/** DESIGN §6: importCsv(text, sourceName); the optional layout is a LayoutChoice (core/csv/layouts.ts). */
export function importCsv(text: string, sourceName: string, layout?: unknown) {
  return runEntry(ACTION, undefined, (ctx) => runImportCsv(ctx, text, sourceName, layout), { show: false });
}

// Dialog targets (google.script.run)

/** Menu 「CSVを取り込む」. */
export function openCsvImport(): void {
  const html = htmlTemplate('csv-import').evaluate().setWidth(760).setHeight(600);
  spreadsheetUi().showModalDialog(html, 'CSVを取り込む');
}

/** What the dialog needs to start: the sources already listed and the layout presets. */
export function csvDialogInit(): {
  sources: string[];
  presets: { id: string; name: string; group: string }[];
} {
  return {
    sources: readSources().map((s) => s.name),
    presets: layoutOptions(),
  };
}

export interface CsvPreview {
  ok: boolean;
  charset: string;
  layout: string;
  layoutKind: string;
  /** 「三菱UFJ銀行の明細として読みました（7 行）」, '' when nothing was read. */
  found: string;
  /** The layout's lines skipped, in one sentence (null: none). */
  skipped: string | null;
  /** Two named layouts fit: the person picks one of these in 「列の並び」. */
  candidates: { id: string; name: string }[];
  /** What 「この形式を保存」 would keep in 取込元's 取込形式 cell. */
  savable: string | null;
  header: string[];
  lines: { line: number; date: string; side: string; amount: number; description: string }[];
  total: number;
  problems: string[];
  warnings: string[];
  fatal: string | null;
}

function previewOf(reading: CsvReading, charset: string, warnings: string[], saved = false): CsvPreview {
  return {
    ok: reading.fatal === null,
    charset,
    layout: reading.layout?.name ?? '',
    layoutKind: reading.layout?.kind ?? '',
    found: reading.fatal === null ? foundMessage(reading.layout, reading.lines.length, saved) : '',
    skipped: skippedSummary(reading.skipped),
    candidates: reading.candidates,
    savable: reading.layout && reading.fatal === null ? savedLayoutText(reading.layout) : null,
    header: reading.header,
    lines: reading.lines.slice(0, PREVIEW_LINES).map(({ key: _key, ...l }) => l),
    total: reading.lines.length,
    problems: reading.problems.map(describeProblem),
    warnings: [...warnings, ...reading.notices.map(describeProblem)],
    fatal: reading.fatal,
  };
}

/** The dialog's preview: decodes, reads, and warns — changes nothing. */
export function csvPreview(base64: string, sourceName: string, layout?: unknown): CsvPreview {
  const { text, charset } = decodeCsvBase64(String(base64 ?? ''));
  const refused = preflight(SHEET.ledger, SHEET.sources);
  if (refused)
    return previewOf({ ...readCsv('', ''), fatal: refused.messages.join(' ') }, charsetLabel(charset), []);
  const typed = String(sourceName ?? '');
  const problem = sourceNameProblem(typed);
  const { name, source: listed } = problem ? { name: '', source: undefined } : canonicalName(typed);
  const effective = effectiveChoice(choiceOf(layout), listed);
  if (!effective.ok)
    return previewOf({ ...readCsv('', ''), fatal: effective.reason }, charsetLabel(charset), []);
  const reading = readCsv(text, name, effective.choice, today());
  const warnings: string[] = [];
  if (problem) warnings.push(problem);
  else {
    const masters = readMasters();
    const source = listed ?? sourceFor(name, reading.layout, masters);
    if (!listed)
      warnings.push(
        `取込元「${name}」はまだありません。取り込むと 勘定科目 ${accountText(source)} で追加します。`,
      );
    warnings.push(...doubleCountWarnings([source], masters));
    const { index, trouble } = readIndexForLookup();
    if (stopsLookups(trouble)) warnings.push(troubleMessage(trouble));
    const lines = reading.lines.filter((l) => !archived(index, l));
    const plan = planCsvIntake(readLedger(), lines, name, '');
    plan.already += reading.lines.length - lines.length;
    const overlap = overlapWarning(name, plan.overlapDates);
    if (overlap) warnings.push(overlap);
    if (plan.already > 0) warnings.push(`${plan.already} 件は取込済みなので追加しません。`);
    warnings.push(...sideChangedMessages(plan.sideChanged));
  }
  warnings.push(...balanceBreaks(reading.lines).map((b) => b.message));
  return previewOf(reading, charsetLabel(charset), warnings, effective.saved);
}

/** The dialog's import: the same file bytes, decoded the same way, then importCsv's work. */
export function csvImportFile(base64: string, sourceName: string, layout?: unknown) {
  return runEntry(
    ACTION,
    undefined,
    (ctx) => {
      const { text, charset } = decodeCsvBase64(String(base64 ?? ''));
      const result = runImportCsv(ctx, text, sourceName, layout);
      return { ...result, charset: charsetLabel(charset) };
    },
    { show: false },
  );
}
