/**
 * The daily check that each 完了 row's journal is still in MF (core/journal-check.ts): from the scheduled
 * run once a day and from 要確認を開く. Listings outside the lock, one lookup by id for each row no listing
 * showed, then under the lock the 台帳 re-read, each row re-located by key and changed only if it is still
 * the 完了 row that was checked; the sent-rows mark and the 要確認 sheet follow the write.
 */

import type { AuditJournal } from '../core/duplicates/facts';
import { canonical } from '../core/duplicates/facts';
import { RecordView } from '../core/duplicates/record';
import {
  CHECK_LIST_UNTIL_MS,
  CHECK_LOOKUPS,
  CHECK_PAGES,
  type CheckMarks,
  checkDue,
  emptySeen,
  type Finding,
  findingPatch,
  findings,
  JOURNAL_CHECK_MSG,
  JOURNAL_CHECK_PROPERTY,
  monthOf,
  monthsToCheck,
  monthWindow,
  parseMarks,
} from '../core/journal-check';
import { isMfKey, isRemoteTag } from '../core/keys';
import {
  applyChanges,
  indexByKey,
  type LedgerRecord,
  type LedgerTable,
  type RowChange,
} from '../core/ledger';
import { nowInScriptZone } from '../gas/clock';
import { readAuditRecord } from '../gas/duplicate-record';
import { readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { connectionMode, mfClient, officeRefusal } from '../gas/mf-connection';
import { scriptProperties } from '../gas/properties';
import type { MfClient } from '../mf/client';
import { mfLookup } from '../mf/lookup';
import { noteCompleted } from './done-rows';
import { refreshReviewSheet } from './review-sheet';
import type { RunResult } from './run';

function readMarks(): CheckMarks {
  return parseMarks(scriptProperties().getProperty(JOURNAL_CHECK_PROPERTY));
}

function storeMarks(marks: CheckMarks): void {
  scriptProperties().setProperty(JOURNAL_CHECK_PROPERTY, JSON.stringify(marks));
}

/** Whether the scheduled runs' daily check is due (never done, or a day ago). */
export function journalCheckDue(nowMs = Date.now()): boolean {
  // The marks first: one property read on the runs of the day that are not due.
  return checkDue(readMarks(), nowMs) && connectionMode() !== 'none';
}

/** Rows of the last 重複点検's groups: where people are asked to delete journals, so looked at first. */
function duplicateRows(): (record: LedgerRecord) => boolean {
  const record = readAuditRecord();
  if (!(record instanceof RecordView)) return () => false;
  const keys = new Set(record.record.members.flatMap((m) => m.keys));
  return (r) => keys.has(r.キー) || record.byCid.has(canonical(r.MF仕訳ID.trim()));
}

function stampNow(): string {
  return nowInScriptZone('yyyy-MM-dd HH:mm');
}

export interface JournalCheckOptions {
  /** When the execution started (the listings stop in time). */
  startedAt: number;
  graceMinutes: number;
  /** The whole 台帳 as just read (else read here). */
  table?: LedgerTable | null;
  client?: MfClient;
}

export function runJournalCheck(o: JournalCheckOptions): RunResult {
  const marks = readMarks();
  const table = o.table ?? readLedger();
  const months = monthsToCheck(table.rows, marks, duplicateRows());
  const nowMs = Date.now();
  if (months.length === 0) {
    storeMarks({ at: nowMs, months: {} });
    return { count: 0, messages: [], gone: 0, relinked: 0 };
  }
  const client = o.client ?? mfClient();
  const otherOffice = officeRefusal(client);
  if (otherOffice) return { ok: false, count: 0, messages: [otherOffice] };
  // "Is this journal still in MF?" goes through the one lookup (mf/lookup.ts). The month listings below do
  // not: they page through every journal of a month, counting pages and stopping in time, to see which
  // rows' journals are there at all — a listing, not a lookup, and MfLookup's journalsBetween would read
  // each whole period in one go, other requests than these.
  const lookup = mfLookup(client);

  const seen = emptySeen();
  const listed = new Set<string>();
  let pages = 0;
  let failure: string | null = null;
  for (const month of months) {
    if (pages >= CHECK_PAGES || Date.now() - o.startedAt >= CHECK_LIST_UNTIL_MS) break;
    const w = monthWindow(month);
    try {
      client.eachJournalPage(w.start, w.end, (page) => {
        pages++;
        for (const j of page as AuditJournal[]) {
          seen.ids.add(canonical(j.id));
          for (const t of j.tags ?? []) if (isRemoteTag(t)) seen.byTag.set(t, j.id);
          if (j.transaction_id) seen.byLine.set(canonical(j.transaction_id), j.id);
        }
      });
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
      break;
    }
    listed.add(month);
  }

  // Only MF's "no such journal" counts as gone; a journal dated elsewhere now is found by its id.
  const decided: Finding[] = [];
  const unresolved = new Set<string>();
  let lookups = 0;
  // A journal posted within 照合猶予 may not be listed yet (MF's listing lag): not asked about until tomorrow.
  for (const f of findings(table.rows, listed, seen, canonical, nowMs - o.graceMinutes * 60_000)) {
    if (f.kind === 'relink') {
      decided.push(f);
      continue;
    }
    if (failure !== null || lookups >= CHECK_LOOKUPS) {
      unresolved.add(monthOf(f.row.record.取引日));
      continue;
    }
    lookups++;
    try {
      if (lookup.journal(f.row.record.MF仕訳ID.trim()) === null) decided.push(f);
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
      unresolved.add(monthOf(f.row.record.取引日));
    }
  }

  let gone = 0;
  let relinked = 0;
  /** Rows the 要確認 sheet lists after this check's own refresh (undefined: it wrote nothing). */
  let review: number | undefined;
  if (decided.length > 0) {
    const written = underScriptLock(() => {
      const now = new Date().toISOString();
      const at = stampNow();
      const fresh = readLedger();
      const byKey = indexByKey(fresh.rows);
      const changes: RowChange[] = [];
      for (const f of decided) {
        const was = f.row.record;
        // Still the 完了 row that was checked, naming the same journal (nobody changed it meanwhile).
        const row = (byKey.get(was.キー) ?? []).find(
          (r) => r.record.状態 === '完了' && r.record.MF仕訳ID.trim() === was.MF仕訳ID.trim(),
        );
        if (!row) continue;
        changes.push({
          key: was.キー,
          rowNumber: row.rowNumber,
          patch: findingPatch(f, now, at, isMfKey(was.キー)),
        });
      }
      const { withheld } = writeLedgerChanges(fresh, changes);
      const held = new Set(withheld.map((c) => c.rowNumber));
      const applied = changes.filter((c) => !held.has(c.rowNumber));
      // A row made 要確認 is one sent row fewer by kicho's own hand (done-rows.ts).
      noteCompleted(fresh, applied);
      review = refreshReviewSheet(applyChanges(fresh, applied), o.graceMinutes);
      return applied;
    });
    if (!written) return { ok: false, count: 0, messages: [BUSY_MESSAGE], busy: true };
    gone = written.value.filter((c) => c.patch.状態 === '要確認').length;
    relinked = written.value.length - gone;
  }

  // A check MF could not answer is tried again by the next run; one that finished waits a day.
  const next: CheckMarks = { at: failure === null ? Date.now() : marks.at, months: {} };
  const present = new Set(months);
  for (const [m, t] of Object.entries(marks.months)) if (present.has(m)) next.months[m] = t;
  for (const m of listed) if (!unresolved.has(m)) next.months[m] = Date.now();
  storeMarks(next);

  const checked = table.rows.filter(
    (r) =>
      r.record.状態 === '完了' && listed.has(monthOf(r.record.取引日)) && r.record.MF仕訳ID.trim() !== '',
  ).length;
  const messages = [JOURNAL_CHECK_MSG.summary(checked, listed.size, gone, relinked)];
  const left = months.filter((m) => !listed.has(m) || unresolved.has(m)).length;
  if (failure !== null) messages.push(JOURNAL_CHECK_MSG.failed(failure));
  else if (left > 0) messages.push(JOURNAL_CHECK_MSG.partial(left));
  return {
    ok: failure === null,
    count: gone + relinked,
    messages,
    gone,
    relinked,
    checked,
    months: listed.size,
    pages,
    lookups,
    left,
    review,
  };
}
