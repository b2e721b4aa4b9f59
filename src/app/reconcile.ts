/**
 * reconcile(): looks up 不明 rows and stale 送信中 rows in MF before anything is sent again.
 * MF calls grow with accounting periods, date windows and groups of 50 ids — not with rows.
 */
import { isCsvKey, isMfKey, remoteTag } from '../core/keys';
import { indexByKey, type RowChange } from '../core/ledger';
import { applyChanges } from '../core/protocol';
import {
  type LookupResult,
  type ReconcileCandidate,
  reconcileCandidates,
  reconcilePatch,
  unchanged,
} from '../core/reconcile';
import { SAFETY } from '../core/safety';
import { SHEET } from '../core/schema';
import { SETTING_NEEDS } from '../core/settings';
import { today } from '../gas/clock';
import { readLedger, restoreKeys, writeLedgerChanges } from '../gas/ledger-sheet';
import { underScriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import type { MfClient } from '../mf/client';
import { IdMap } from '../mf/ids';
import type { MfAccountingPeriod } from '../mf/types';
import { accountingPeriodFor, isIsoDate, splitByPeriods } from '../mf/windows';
import { noteCompleted } from './done-rows';
import { importWindow } from './import-transactions';
import { preflight, settingsFor } from './preflight';
import { noteSends } from './recent-sends';
import { refreshReviewSheet } from './review-sheet';
import { type RunContext, type RunResult, runEntry } from './run';

const IDS_PER_CALL = 50;

/** A candidate's 取引日, or null when a person typed something that is not a date there. */
function dateOf(c: ReconcileCandidate): string | null {
  const d = String(c.record.取引日);
  return isIsoDate(d) ? d : null;
}

/**
 * The dates to look `cs` up in. A row whose 取引日 is no date is still looked up (it may have been
 * sent): over the import window, so one bad cell never stops reconcile.
 */
function dateRange(cs: readonly ReconcileCandidate[], fallback: Window): { start: string; end: string } {
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

interface Window {
  start: string;
  end: string;
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
  return isMfKey(c.key) || (!isCsvKey(c.key) && String(c.record.明細ID).trim() !== '');
}

/** One result per candidate (keyed by the candidate: rows whose key was cleared share the key ''). */
export function lookUp(
  client: MfClient,
  candidates: readonly ReconcileCandidate[],
  fallback: Window = { start: '2000-01-01', end: '2000-01-01' },
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
  const search = (group: readonly ReconcileCandidate[], windows: readonly Window[]) => {
    for (const { start, end } of windows) {
      for (let i = 0; i < group.length; i += IDS_PER_CALL) {
        const ids = group.slice(i, i + IDS_PER_CALL).map((c) => String(c.record.明細ID));
        for (const j of client.listJournals({ startDate: start, endDate: end, transactionIds: ids })) {
          if (j.transaction_id) journalOf.set(j.transaction_id, j.id);
        }
      }
    }
    const unseen = group.filter((c) => !journalOf.has(String(c.record.明細ID)));
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
    const id = String(c.record.明細ID);
    return !journalOf.has(id) && !status.has(id) && dateOf(c) !== null;
  });
  if (lost.length > 0) search(lost, splitByPeriods(fallback.start, fallback.end, periods));
  for (const c of mf) {
    const id = String(c.record.明細ID);
    const journal = journalOf.get(id);
    const s = status.get(id);
    results.set(
      c,
      journal
        ? { kind: 'found', journalId: journal }
        : s === 'none'
          ? { kind: 'absent' }
          : s === 'excluded'
            ? { kind: 'excluded' }
            : s === undefined
              ? { kind: 'missing' }
              : { kind: 'pending' },
    );
  }

  if (other.length > 0) {
    const { start, end } = dateRange(other, fallback);
    const byTag = new Map<string, string>();
    for (const j of client.journalsBetween(start, end)) for (const t of j.tags) byTag.set(t, j.id);
    for (const c of other) {
      const journal = byTag.get(remoteTag(c.key));
      results.set(c, journal ? { kind: 'found', journalId: journal } : { kind: 'absent' });
    }
  }
  return results;
}

export function runReconcile(_ctx: RunContext, client?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings);
  if (refused) return refused;
  const { settings, refusal } = settingsFor(SETTING_NEEDS.reconcile);
  if (refusal) return refusal;
  const candidates = reconcileCandidates(readLedger().rows, Date.now());
  if (candidates.length === 0)
    return { count: 0, messages: ['照合が必要な行はありません。'], found: 0, resend: 0, review: 0 };
  const window = importWindow(settings, today());
  const results = lookUp(client ?? mfClient(), candidates, window);

  const done = underScriptLock(() => {
    const nowMs = Date.now();
    const policy = {
      nowMs,
      now: new Date(nowMs).toISOString(),
      graceMs: SAFETY.gracePeriod ? settings.graceMinutes * 60_000 : 0,
      maxAttempts: settings.maxAttempts,
    };
    const table = readLedger();
    const byKey = indexByKey(table.rows);
    const changes: RowChange[] = [];
    for (const c of candidates) {
      // Re-located by key under the lock; skipped if another run changed the row meanwhile.
      const row = (byKey.get(c.key) ?? []).find((r) => unchanged(c, r.record));
      const result = results.get(c);
      if (!row || !result) continue;
      const patch = reconcilePatch(c, result, policy);
      // A key given back must not be one another row holds already (the duplicate-key guard's case).
      if (patch?.キー !== undefined && byKey.has(String(patch.キー))) continue;
      if (patch) changes.push({ key: c.key, rowNumber: row.rowNumber, patch });
    }
    writeLedgerChanges(
      table,
      changes.filter((c) => c.patch.キー === undefined),
    );
    restoreKeys(
      table,
      changes.filter((c) => c.patch.キー !== undefined),
    );
    noteCompleted(table, changes);
    noteSends(changes, settings.graceMinutes);
    refreshReviewSheet(applyChanges(table, changes), settings.graceMinutes);
    return changes;
  });
  if (!done)
    return { ok: false, count: 0, messages: ['別の実行が進行中です。次の照合で確認します。'], busy: true };
  const changes = done.value;
  const found = changes.filter((c) => c.patch.状態 === '完了').length;
  const resend = changes.filter((c) => c.patch.状態 === '送信待ち').length;
  const review = changes.filter((c) => c.patch.状態 === '要確認').length;
  const waiting = candidates.length - changes.length;
  return {
    count: changes.length,
    messages: [
      `照合: ${candidates.length} 件を確認し、完了 ${found} 件、再送待ち ${resend} 件、要確認 ${review} 件` +
        (waiting > 0 ? `、${waiting} 件は次の照合で確かめます。` : '。'),
    ],
    found,
    resend,
    review,
    waiting,
  };
}

export function reconcile(e?: unknown) {
  return runEntry('照合', e, (ctx) => runReconcile(ctx));
}
