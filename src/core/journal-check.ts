/**
 * Is each 完了 row's journal still in MF? (issue 25.) A journal can be deleted in MF's own screen — by a
 * person tidying duplicates, say — and the 台帳 would go on saying 完了 for a line with no journal at all.
 * Nothing else looks: reconcile asks only about unsettled rows, and posting never touches a 完了 row again.
 *
 * How, cheaply: MF lists journals by date, 10,000 a page, so the check lists whole calendar months (one call
 * a page) and compares ids; only a row whose journal no listing showed is asked about by id, and only MF's
 * own "no such id" (GET → 400 invalid_request_path_parameter, mf-api.md §5) counts as gone — a journal whose
 * date a person changed is found that way. The months go in this order: those holding 台帳 rows of the last
 * 重複点検's groups (where people are told to delete), then the months checked longest ago; each run lists
 * at most {@link CHECK_PAGES} pages. A small office's whole 台帳 is checked every day; a large one's in a
 * rolling cycle of a few days. Pure.
 *
 * What it does: a row whose journal is gone but another journal carries its tag or its statement line is
 * relinked to that journal (as reconcile would find it); otherwise the row goes 完了 → 要確認 with MF仕訳ID
 * kept and a メモ saying what happened and what to do. Nothing is ever sent again without a person's 承認.
 */
import { remoteTagOf } from './keys';
import type { LedgerRecord, LedgerRow } from './ledger';
import { transition } from './states';

/** Listing pages (calls) one check may use: ~240,000 journals, and a few seconds a page in Apps Script. */
export const CHECK_PAGES = 24;

/** Journals looked up by id per check (each one call); the rest wait for the next day. */
export const CHECK_LOOKUPS = 50;

/** A scheduled run starts the check only this early in its execution (listings are slow to read). */
export const CHECK_START_BEFORE_MS = 3 * 60_000;

/** ...and lists no new month after this (room for the lookups and the write before 6 minutes). */
export const CHECK_LIST_UNTIL_MS = 4 * 60_000;

/** Once a day (scheduled runs), like the full 要確認 check. */
export const CHECK_EVERY_MS = 24 * 3_600_000;

export const JOURNAL_CHECK_PROPERTY = 'KICHO_JOURNAL_CHECK';

/** What is kept between checks: when the last one ran, and when each month was last listed (ms). */
export interface CheckMarks {
  at: number;
  months: Record<string, number>;
}

export function parseMarks(value: string | null): CheckMarks {
  try {
    const v = JSON.parse(value ?? 'null');
    if (v && typeof v.at === 'number' && v.months && typeof v.months === 'object')
      return { at: v.at, months: { ...v.months } };
  } catch (_e) {
    // Unreadable marks: every month is due, which only costs calls.
  }
  return { at: 0, months: {} };
}

export function checkDue(marks: CheckMarks, nowMs: number): boolean {
  return marks.at <= 0 || nowMs - marks.at >= CHECK_EVERY_MS || nowMs < marks.at;
}

export const JOURNAL_CHECK_MSG = {
  gone: (journal: string, at: string, mfLine: boolean) =>
    `MF の仕訳 ${journal} が MF にありません（${at} に確認。MF の画面などで削除されています）。この明細の仕訳は今 MF にありません。登録し直すなら操作で「承認」（または「再試行」）を、登録しないなら「除外」を選んでください。${mfLine ? 'MF では明細から作った仕訳を削除するとその明細が「対象外」になり、MF の画面で戻すまで登録できないことがあります。' : ''}自動では送り直しません。`,
  relinked: (journal: string, other: string, how: 'tag' | 'line') =>
    `MF仕訳ID の仕訳 ${journal} が MF になかったため、${how === 'tag' ? 'この行のタグを持つ' : '同じ明細から作られた'}仕訳 ${other} につなぎ直しました。`,
  summary: (checked: number, months: number, gone: number, relinked: number) =>
    `MF の仕訳の確認: 完了の行 ${checked} 行（${months} か月分）を確かめ${gone + relinked === 0 ? '、すべて MF に仕訳がありました。' : `、${gone > 0 ? `仕訳がなくなっていた ${gone} 行を要確認にしました` : ''}${gone > 0 && relinked > 0 ? '、' : ''}${relinked > 0 ? `${relinked} 行を残っている仕訳につなぎ直しました` : ''}。`}`,
  partial: (left: number) => `残りの ${left} か月分は次の確認で確かめます。`,
  failed: (message: string) =>
    `MF の仕訳の確認ができませんでした（${message}）。次の確認でもう一度確かめます。`,
} as const;

/** A 完了 row that names its journal: the rows this check is about. */
export function checkable(record: LedgerRecord): boolean {
  return record.状態 === '完了' && record.MF仕訳ID.trim() !== '' && /^\d{4}-\d{2}-\d{2}$/.test(record.取引日);
}

export function monthOf(date: string): string {
  return date.slice(0, 7);
}

/** The first and last day of a month yyyy-MM. */
export function monthWindow(month: string): { start: string; end: string } {
  const [y, m] = month.split('-').map(Number);
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  return { start: `${month}-01`, end: `${month}-${String(last).padStart(2, '0')}` };
}

/**
 * The months to list, in order: those holding a `priority` row, then the ones checked longest ago (never
 * first), the latest first among equals.
 */
export function monthsToCheck(
  rows: readonly LedgerRow[],
  marks: CheckMarks,
  priority: (record: LedgerRecord) => boolean,
): string[] {
  const months = new Map<string, boolean>();
  for (const r of rows) {
    if (!checkable(r.record)) continue;
    const m = monthOf(r.record.取引日);
    months.set(m, (months.get(m) ?? false) || priority(r.record));
  }
  return [...months]
    .sort(
      ([a, pa], [b, pb]) =>
        Number(pb) - Number(pa) || (marks.months[a] ?? 0) - (marks.months[b] ?? 0) || b.localeCompare(a),
    )
    .map(([m]) => m);
}

/** What the listings showed: every journal id (decoded), and the journals by kicho tag and by line. */
export interface SeenJournals {
  ids: Set<string>;
  byTag: Map<string, string>;
  byLine: Map<string, string>;
}

export function emptySeen(): SeenJournals {
  return { ids: new Set(), byTag: new Map(), byLine: new Map() };
}

/** A checked row whose journal no listing showed: relinked by tag or line, else looked up by id. */
export type Finding =
  | { kind: 'relink'; row: LedgerRow; journalId: string; how: 'tag' | 'line' }
  | { kind: 'lookup'; row: LedgerRow };

/**
 * Rows of the listed months whose MF仕訳ID no listing showed. `canonical` decodes an MF id once (ids are
 * percent-encoded as MF hands them out).
 */
export function findings(
  rows: readonly LedgerRow[],
  listed: ReadonlySet<string>,
  seen: SeenJournals,
  canonical: (id: string) => string,
  /** Rows completed after this (ms) are left for the next check: MF's listings may not show them yet. */
  freshAfter = Number.POSITIVE_INFINITY,
): Finding[] {
  const out: Finding[] = [];
  for (const row of rows) {
    const r = row.record;
    if (!checkable(r) || !listed.has(monthOf(r.取引日))) continue;
    if (seen.ids.has(canonical(r.MF仕訳ID.trim()))) continue;
    const done = Date.parse(r.完了日時);
    if (Number.isFinite(done) && done > freshAfter) continue;
    const tagged = seen.byTag.get(remoteTagOf(r.キー));
    if (tagged) {
      out.push({ kind: 'relink', row, journalId: tagged, how: 'tag' });
      continue;
    }
    const line = r.明細ID.trim() === '' ? undefined : seen.byLine.get(canonical(r.明細ID.trim()));
    if (line) {
      out.push({ kind: 'relink', row, journalId: line, how: 'line' });
      continue;
    }
    out.push({ kind: 'lookup', row });
  }
  return out;
}

/** The row's change for a finding (a relink, or gone: 完了 → 要確認, MF仕訳ID kept as the journal it had). */
export function findingPatch(
  finding: Finding,
  now: string,
  at: string,
  isMfLine: boolean,
): Partial<LedgerRecord> {
  const journal = finding.row.record.MF仕訳ID.trim();
  if (finding.kind === 'relink')
    return {
      MF仕訳ID: finding.journalId,
      更新日時: now,
      メモ: JOURNAL_CHECK_MSG.relinked(journal, finding.journalId, finding.how),
    };
  return {
    状態: transition(finding.row.record.状態, '要確認', 'journal check: journal gone'),
    更新日時: now,
    メモ: JOURNAL_CHECK_MSG.gone(journal, at, isMfLine),
  };
}

/**
 * A 要確認 row that keeps the MF仕訳ID of a journal found gone: it had a journal, so MF's 対象外 on its
 * line (which MF sets when a line's journal is deleted) is not a person excluding it.
 */
export function journalWentMissing(record: Pick<LedgerRecord, '状態' | 'MF仕訳ID'>): boolean {
  return record.状態 === '要確認' && String(record.MF仕訳ID).trim() !== '';
}
