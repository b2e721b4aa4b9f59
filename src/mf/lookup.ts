/**
 * "Does MF already have it?" — the one place kicho asks (issue 28): reconcile (DESIGN §5 Reconcile),
 * the look-up after MF refused a journalize (§5 step 4), an event's tag before its send (issue 17), MF's
 * own lines before a chunk is sent (§3), restore's and the lost-ledger guard's journals in a window, and
 * the daily check's "is this 完了 row's journal still there?" (services/journal-check.ts).
 * Each method makes the MF calls it always made, in the same order: the simulation replays fixed call
 * offsets. Reconcile's calls grow with accounting periods and date windows — not with rows (the client
 * sends transaction ids 50 to a call).
 */
import { isCsvKey, isMfKey, journalIdsByRemoteTag, remoteTagOf } from '../core/keys';
import type { LookupPort } from '../core/ports';
import { type LookupResult, lookupResultOf, type ReconcileCandidate } from '../core/reconcile';
import { type MfClient, TRANSACTION_IDS_PER_CALL } from './client';
import { IdMap, sameMfId } from './ids';
import type { MfAccountingPeriod, MfJournal, MfTransaction } from './types';
import { accountingPeriodFor, type DateWindow, isIsoDate, splitByPeriods } from './windows';

/** The client's reads the lookup asks through (a recording fake in test/mf/lookup.test.ts). */
export type LookupClient = Pick<
  MfClient,
  | 'periods'
  | 'periodOf'
  | 'listTransactions'
  | 'listJournals'
  | 'listJournalsWithin'
  | 'journalsBetween'
  | 'journal'
>;

/**
 * The MF lookup port. Core sees only its LookupPort part (reconcile); the rest answers in MF's own types,
 * so it is declared here beside its one implementation. Every method throws what the client throws
 * (MfAuthError, a failed read): the caller decides what an unanswered question means.
 */
export interface MfLookup extends LookupPort {
  /**
   * One statement line after MF refused its journalize: its journal by transaction_ids at `date`; when
   * none, the line's journalizing status there (found, absent, excluded, pending, or missing when MF does
   * not list the line at that date).
   */
  line(id: string, date: string): LookupResult;
  /**
   * Each kicho tag on MF's journals in `windows` → the journal carrying it. With `wide`, each window is
   * first stretched to the whole accounting periods it touches (a person may have changed a line's 取引日
   * before it was posted); a date outside every period stays as it is.
   */
  journalsByTag(windows: readonly DateWindow[], wide: boolean): Map<string, string>;
  /** MF's statement lines in `windows`, one listing per window, in order. */
  statementLines(windows: readonly DateWindow[]): MfTransaction[];
  /** Every journal between two dates (one listing per accounting period). */
  journalsBetween(start: string, end: string): MfJournal[];
  /** One journal by its id (one call), or null when MF has no such journal. */
  journal(id: string): MfJournal | null;
}

/** A candidate's 取引日, or null when a person typed something that is not a date there. */
function dateOf(c: ReconcileCandidate): string | null {
  const d = c.record.取引日;
  return isIsoDate(d) ? d : null;
}

/**
 * The dates to look `cs` up in. A row whose 取引日 is no date is still looked up (it may have been
 * sent): over the import window, so one bad cell never stops reconcile.
 */
function dateRange(cs: readonly ReconcileCandidate[], fallback: DateWindow): { start: string; end: string } {
  const dates = cs
    .map(dateOf)
    .filter((d): d is string => d !== null)
    .sort();
  if (dates.length < cs.length || dates.length === 0) {
    dates.push(fallback.start, fallback.end);
    dates.sort();
  }
  return { start: dates[0], end: dates[dates.length - 1] };
}

/**
 * Candidates grouped by accounting period. A row dated outside every period is apart (MF cannot be
 * asked: DESIGN §5); a row whose 取引日 is no date is grouped on its own and looked up over the window.
 */
function byPeriod(
  cs: readonly ReconcileCandidate[],
  periods: readonly MfAccountingPeriod[],
): { groups: ReconcileCandidate[][]; outside: ReconcileCandidate[] } {
  const groups = new Map<string, ReconcileCandidate[]>();
  const outside: ReconcileCandidate[] = [];
  for (const c of cs) {
    const d = dateOf(c);
    const p = d ? accountingPeriodFor(d, periods) : null;
    if (d && !p) {
      outside.push(c);
      continue;
    }
    const k = p ? p.start_date : 'no-date';
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  return { groups: [...groups.values()], outside };
}

/** An MF line's row (also one whose キー a person cleared: its 明細ID still names the line). */
function isMfRow(c: ReconcileCandidate): boolean {
  return isMfKey(c.key) || (!isCsvKey(c.key) && c.record.明細ID.trim() !== '');
}

/** One result per candidate (keyed by the candidate: rows whose key was cleared share the key ''). */
function lookUp(
  client: LookupClient,
  candidates: readonly ReconcileCandidate[],
  fallback: DateWindow = { start: '2000-01-01', end: '2000-01-01' },
): Map<ReconcileCandidate, LookupResult> {
  const results = new Map<ReconcileCandidate, LookupResult>();
  if (candidates.length === 0) return results;
  const periods = client.periods();
  const { groups, outside } = byPeriod(candidates, periods);
  // A row outside every period goes to a person; the rest of the run goes on (DESIGN §5).
  for (const c of outside) results.set(c, { kind: 'outside-period' });
  const inside = groups.flat();
  const mf = inside.filter(isMfRow);
  const other = inside.filter((c) => !isMfRow(c));

  // journal.transaction_id is compared by canonical form: a difference in hex case must not hide it.
  const journalOf = new IdMap<string>();
  const status = new IdMap<string>();
  const search = (group: readonly ReconcileCandidate[], windows: readonly DateWindow[]) => {
    // The client sends the ids 50 to a call (MF's limit). With more than 50, the window's whole listing
    // (10,000 journals a page) may take fewer calls: it is asked first and used when it does (issue 18).
    const ids = group.map((c) => c.record.明細ID);
    const wanted = new IdMap<true>();
    for (const id of ids) wanted.set(id, true);
    const batches = Math.ceil(new Set(ids).size / TRANSACTION_IDS_PER_CALL);
    for (const { start, end } of windows) {
      const listed =
        batches > 2 ? client.listJournalsWithin({ startDate: start, endDate: end }, batches - 1) : null;
      const found = listed ?? client.listJournals({ startDate: start, endDate: end, transactionIds: ids });
      for (const j of found) {
        if (j.transaction_id && wanted.has(j.transaction_id)) journalOf.set(j.transaction_id, j.id);
      }
    }
    const unseen = group.filter((c) => !journalOf.has(c.record.明細ID));
    if (unseen.length === 0) return;
    for (const { start, end } of windows) {
      for (const t of client.listTransactions({ startDate: start, endDate: end }))
        status.set(t.id, t.journalizing_status);
    }
  };
  for (const group of groups) {
    const rows = group.filter(isMfRow);
    if (rows.length === 0) continue;
    const range = dateRange(rows, fallback);
    // A group of rows without a date spans the import window: one listing per accounting period in it.
    search(
      rows,
      rows.every((c) => dateOf(c) !== null) ? [range] : splitByPeriods(range.start, range.end, periods),
    );
  }
  // A line MF does not list at the row's 取引日 (a person changed the date): looked for over the window.
  const lost = mf.filter((c) => {
    const id = c.record.明細ID;
    return !journalOf.has(id) && !status.has(id) && dateOf(c) !== null;
  });
  if (lost.length > 0) search(lost, splitByPeriods(fallback.start, fallback.end, periods));
  for (const c of mf) {
    const id = c.record.明細ID;
    results.set(c, lookupResultOf(journalOf.get(id), status.get(id)));
  }

  if (other.length > 0) {
    const byTag = journalsByTag(client, [dateRange(other, fallback)], false);
    for (const c of other) {
      const journal = byTag.get(remoteTagOf(c.key));
      results.set(c, journal ? { kind: 'found', journalId: journal } : { kind: 'absent' });
    }
  }
  return results;
}

/** `windows`, or with `wide` each stretched to the accounting periods it touches (every periodOf first). */
function tagWindows(client: LookupClient, windows: readonly DateWindow[], wide: boolean): DateWindow[] {
  if (!wide) return [...windows];
  const out = new Map<string, DateWindow>();
  for (const w of windows) {
    const start = client.periodOf(w.start)?.start_date ?? w.start;
    const end = client.periodOf(w.end)?.end_date ?? w.end;
    out.set(`${start}..${end}`, { start, end });
  }
  return [...out.values()];
}

function journalsByTag(
  client: LookupClient,
  windows: readonly DateWindow[],
  wide: boolean,
): Map<string, string> {
  const byTag = new Map<string, string>();
  for (const w of tagWindows(client, windows, wide))
    for (const [tag, id] of journalIdsByRemoteTag(client.journalsBetween(w.start, w.end))) byTag.set(tag, id);
  return byTag;
}

function line(client: LookupClient, id: string, date: string): LookupResult {
  const journal = client
    .journalsBetween(date, date, { transactionIds: [id] })
    .find((j) => sameMfId(j.transaction_id, id));
  if (journal) return { kind: 'found', journalId: journal.id };
  const listed = client.listTransactions({ startDate: date, endDate: date }).find((t) => sameMfId(t.id, id));
  return lookupResultOf(undefined, listed?.journalizing_status);
}

/**
 * The lookup over `client`. For reconcile, a row whose 取引日 is no date, or whose line MF does not list
 * near it, is looked for over `fallback` (the import window).
 */
export function mfLookup(client: LookupClient, fallback?: DateWindow): MfLookup {
  return {
    lookUp: (candidates) => lookUp(client, candidates, fallback),
    line: (id, date) => line(client, id, date),
    journalsByTag: (windows, wide) => journalsByTag(client, windows, wide),
    statementLines: (windows) =>
      windows.flatMap((w) => client.listTransactions({ startDate: w.start, endDate: w.end })),
    journalsBetween: (start, end) => client.journalsBetween(start, end),
    journal: (id) => client.journal(id),
  };
}
