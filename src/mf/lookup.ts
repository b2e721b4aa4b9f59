/**
 * The reconciler's lookup port over MF (DESIGN §5 Reconcile): MF calls grow with accounting periods and
 * date windows — not with rows (the client sends transaction ids 50 to a call).
 */
import { isCsvKey, isMfKey, journalIdsByRemoteTag, remoteTagOf } from '../core/keys';
import type { LookupPort } from '../core/ports';
import { type LookupResult, lookupResultOf, type ReconcileCandidate } from '../core/reconcile';
import { type MfClient, TRANSACTION_IDS_PER_CALL } from './client';
import { IdMap } from './ids';
import type { MfAccountingPeriod } from './types';
import { accountingPeriodFor, type DateWindow, isIsoDate, splitByPeriods } from './windows';

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
  client: MfClient,
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
    const { start, end } = dateRange(other, fallback);
    const byTag = journalIdsByRemoteTag(client.journalsBetween(start, end));
    for (const c of other) {
      const journal = byTag.get(remoteTagOf(c.key));
      results.set(c, journal ? { kind: 'found', journalId: journal } : { kind: 'absent' });
    }
  }
  return results;
}

/**
 * The lookup over `client`. A row whose 取引日 is no date, or whose line MF does not list near it, is
 * looked for over `fallback` (the import window).
 */
export function mfLookup(client: MfClient, fallback: DateWindow): LookupPort {
  return { lookUp: (candidates) => lookUp(client, candidates, fallback) };
}
