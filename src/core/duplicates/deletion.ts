/**
 * Duplicate deletion (重複点検, 操作 削除; DESIGN §5) as the second instance of the exactly-once skeleton
 * (exactly-once/skeleton.ts owns the loop, the lock sections, the stops). What is particular to deletion,
 * in the order a run meets it:
 *   1. recover — 削除中 rows past the lease and 不明 rows looked up in MF and settled; never sent again
 *   2. look    — the plan the dialog showed still the sheet's, and MF asked whether each group still
 *                keeps a journal as the audit saw it (deletion-checks.ts); outside the lock
 *   3. claim   — under the lock: the plan again, every refusal on its rows, the rest 削除中 (one write)
 *   4. act     — one DELETE per claim, its answer sorted into an outcome kind (deleteOutcomeKind)
 *   5. settle  — under the lock: each row's 状態 from its outcome kind, and the 台帳 (deletion-ledger.ts)
 * An unknown outcome (timeout, 5xx) is looked up at once and, failing that, later; it is never sent again
 * without a person confirming again. A confirmed plan is claimed whole in one section and settled in the
 * next. Which journals make a group, and which 台帳 rows each belongs to, come from the audit's record
 * (record.ts), never from the sheet (issue 25).
 *
 * What "claimed" means here: a row in 削除中 may have reached MF. Younger than the lease it belongs to a
 * live execution and nothing touches it; older (its execution was killed) it is looked up: gone → 削除済み
 * and the 台帳 settled; still there → back to no state, and only a person's new confirmation sends it.
 */
import { LEASE_MS, STOP_SENDING_AT_MS } from '../budget';
import { type ClaimState, type OutcomeKind, recoverable, SETTLES_TO } from '../exactly-once/outcomes';
import { type Acted, type ExactlyOnceJob, type RunEnd, runExactlyOnce } from '../exactly-once/skeleton';
import type { RowChange } from '../ledger';
import { underLock } from '../ports';
import {
  current,
  type GroupVerdicts,
  keysOf,
  leavesLineBare,
  lookInMf,
  type MfView,
  unchangedJournal,
  verdicts,
} from './deletion-checks';
import { type DeletedJournal, ledgerChangesForDeleted } from './deletion-ledger';
import { DELETE_MSG } from './deletion-messages';
import type { DeleteResult, DeletionInput, DuplicateChange } from './deletion-ports';
import { canonical } from './facts';
import type { RecordedMember, RecordProblem, RecordView } from './record';
import {
  DELETE_STATE,
  type DuplicateRecord,
  type DuplicateRow,
  type DuplicateTable,
  planDeletion,
} from './sheet';

/** 429s one DELETE may get before it is left for the person to confirm again. */
const RATE_LIMIT_RETRIES = 2;

export interface DeletionSummary {
  busy: boolean;
  refusedPlan: boolean;
  deleted: string[];
  absent: string[];
  failed: number;
  unknown: number;
  returned: number;
  changed: number;
  /** Journals not deleted because a row in 台帳アーカイブ holds them. */
  archived: number;
  /** Journals kicho posted that no 台帳 row holds now (not deleted). */
  rowless: number;
  /** Journals not deleted because their line would keep no journal (a possibly genuine group). */
  lineLeftBare: number;
  stillThere: number;
  recovered: number;
  ledgerExcluded: number;
  ledgerRelinked: number;
  /** Groups nothing of which was deleted (the sheet disagreed with the record, or MF no longer keeps one). */
  refusedGroups: string[];
  messages: string[];
}

function emptySummary(): DeletionSummary {
  return {
    busy: false,
    refusedPlan: false,
    deleted: [],
    absent: [],
    failed: 0,
    unknown: 0,
    returned: 0,
    changed: 0,
    archived: 0,
    rowless: 0,
    lineLeftBare: 0,
    stillThere: 0,
    recovered: 0,
    ledgerExcluded: 0,
    ledgerRelinked: 0,
    refusedGroups: [],
    messages: [],
  };
}

/** The 重複点検 状態 cell in the skeleton's terms (null: a state a person typed — never claimed nor recovered). */
const CLAIM_STATES: ReadonlyMap<string, ClaimState> = new Map<string, ClaimState>([
  [DELETE_STATE.none, 'open'],
  [DELETE_STATE.claimed, 'claimed'],
  [DELETE_STATE.deleted, 'done'],
  [DELETE_STATE.failed, 'failed'],
  [DELETE_STATE.unknown, 'unknown'],
]);

/** The 状態 a settle writes for each state of the skeleton's (a refusal leaves the row 失敗). */
const STATE_OF: Readonly<Record<ClaimState, string>> = {
  open: DELETE_STATE.none,
  claimed: DELETE_STATE.claimed,
  done: DELETE_STATE.deleted,
  failed: DELETE_STATE.failed,
  unknown: DELETE_STATE.unknown,
};

export function deleteClaimState(state: string): ClaimState | null {
  return CLAIM_STATES.get(state) ?? null;
}

/** One DELETE's answer once an unknown one was looked up: `still-there` — MF has the journal, not deleted. */
export type DeleteAnswer = DeleteResult | { kind: 'still-there' };

/**
 * What a DELETE's answer means for its claim: gone (deleted now, or MF's 404) is done; a timeout or 5xx
 * MF could not settle by a lookup is unknown (不明, looked up later, never resent); a 429, a refused
 * authentication or Apps Script's refusal never reached MF, and a journal found still there was not
 * deleted: the row goes back to no state.
 */
export function deleteOutcomeKind(answer: DeleteAnswer): OutcomeKind {
  switch (answer.kind) {
    case 'deleted':
    case 'absent':
      return 'done';
    case 'rejected':
      return 'rejected';
    case 'unknown':
      return 'unknown';
    case 'still-there':
    case 'rate-limited':
    case 'unauthorized':
    case 'not-sent':
      return 'returned';
  }
}

/** The 結果 a settle writes on a row; its 状態 follows from the outcome's kind. */
export interface RowResult {
  結果: string;
  更新日時: string;
}

/** One row's outcome as a settle writes it (an act's, or one decided without an act). */
type RowOutcome = Pick<Acted<RowResult, never>, 'kind' | 'answer'>;

/** The row's new cells for an outcome. */
export function outcomePatch(o: RowOutcome): Partial<DuplicateRecord> {
  return { 状態: STATE_OF[SETTLES_TO[o.kind]], 結果: o.answer.結果, 更新日時: o.answer.更新日時 };
}

/** An answer that stops the run (MF refused our authentication, Apps Script refused to send): its words. */
type DeleteStop = string;

function rowsByJournal(table: DuplicateTable): Map<string, DuplicateRow> {
  const out = new Map<string, DuplicateRow>();
  for (const r of table.rows) out.set(canonical(String(r.record.仕訳ID)), r);
  return out;
}

/** What a settle needs besides the outcomes: the record's entries and the journals seen alive. */
interface SettleContext {
  member: (id: string) => RecordedMember | null;
  alive: ReadonlyMap<string, readonly RecordedMember[]>;
  claimKeys: ReadonlyMap<string, readonly string[]>;
}

/**
 * 5. The settle, under the lock: each row found again by its journal and given its outcome; the 台帳 rows
 * tied to a journal now gone settled first (if the run dies before the sheet's write, the next lookup
 * finds the journal gone and settles the 台帳 again, which changes nothing the second time).
 */
function settle(
  input: DeletionInput,
  outcomes: ReadonlyMap<string, RowOutcome>,
  expected: ReadonlyMap<string, { 状態: string; 更新日時: string }> | null,
  context: SettleContext,
): { excluded: number; relinked: number; messages: string[]; written: Set<string> } {
  const now = input.clock.iso();
  const table = input.sheet.read();
  const byJournal = rowsByJournal(table);
  const changes: DuplicateChange[] = [];
  const written = new Set<string>();
  for (const [cid, outcome] of outcomes) {
    const row = byJournal.get(cid);
    if (!row) continue;
    // A recovery writes only over the state it looked up (another run may have settled it since).
    const was = expected?.get(cid);
    if (was && (row.record.状態 !== was.状態 || String(row.record.更新日時) !== was.更新日時)) continue;
    changes.push({
      journalId: String(row.record.仕訳ID),
      rowNumber: row.rowNumber,
      patch: outcomePatch(outcome),
    });
    written.add(cid);
  }
  const deleted: DeletedJournal[] = [...written]
    .filter((cid) => SETTLES_TO[outcomes.get(cid)?.kind ?? 'returned'] === 'done')
    .map((cid) => {
      const id = String(byJournal.get(cid)?.record.仕訳ID ?? cid);
      return { id, member: context.member(id), claimKeys: context.claimKeys.get(cid) ?? [] };
    });
  let ledgerResult = { changes: [] as RowChange[], excluded: 0, relinked: 0, messages: [] as string[] };
  if (deleted.length > 0) {
    const ledger = input.ledger.read();
    ledgerResult = ledgerChangesForDeleted(
      ledger,
      deleted,
      context.alive,
      input.who,
      now,
      input.clock.stamp(),
    );
    input.ledger.write(ledger, ledgerResult.changes);
  }
  input.sheet.write(table, changes);
  return { ...ledgerResult, written };
}

function memberOf(record: RecordView | RecordProblem): (id: string) => RecordedMember | null {
  return typeof record === 'string' ? () => null : (id) => record.member(id) ?? null;
}

/**
 * 1. Recovery: rows whose delete may have reached MF and whose execution is gone (削除中 past the lease, or
 * 不明) looked up in MF (one listing for their groups, then by id what it missed), then settled under the
 * lock. Never sends a DELETE.
 */
function recover(input: DeletionInput, summary: DeletionSummary): 'recovered' | 'busy' {
  const lease = input.leaseMs ?? LEASE_MS;
  const nowMs = input.clock.now();
  const stale = input.sheet
    .read()
    .rows.filter((r) =>
      recoverable(
        deleteClaimState(String(r.record.状態)),
        nowMs - Date.parse(String(r.record.更新日時)),
        lease,
      ),
    );
  if (stale.length === 0) return 'recovered';
  const record = input.record();
  const member = memberOf(record);
  const recorded = stale.map((r) => member(String(r.record.仕訳ID))).filter((m): m is RecordedMember => !!m);
  const groupsOf = new Set(recorded.map((m) => m.group));
  const groupMembers = typeof record === 'string' ? [] : [...groupsOf].flatMap((g) => [...record.group(g)]);
  let view: MfView;
  try {
    view = lookInMf(input.deleter, groupMembers, recorded);
    // A row the record does not hold (a delete claimed before this version's record) is asked by id.
    for (const r of stale) {
      const cid = canonical(String(r.record.仕訳ID));
      if (current(view, cid) === undefined)
        view.byId.set(cid, input.deleter.journal(String(r.record.仕訳ID)));
    }
  } catch (e) {
    summary.messages.push(DELETE_MSG.unknown(e instanceof Error ? e.message : String(e)));
    return 'recovered';
  }
  const outcomes = new Map<string, RowOutcome>();
  const expected = new Map<string, { 状態: string; 更新日時: string }>();
  const idOf = new Map(stale.map((r) => [canonical(String(r.record.仕訳ID)), String(r.record.仕訳ID)]));
  const at = input.clock.iso();
  const shown = input.clock.stamp();
  const gone = new Set<string>();
  for (const r of stale) {
    const cid = canonical(String(r.record.仕訳ID));
    const journal = current(view, cid);
    expected.set(cid, { 状態: String(r.record.状態), 更新日時: String(r.record.更新日時) });
    if (journal === null) gone.add(cid);
    outcomes.set(
      cid,
      journal === null
        ? { kind: 'done', answer: { 結果: DELETE_MSG.foundGone(shown), 更新日時: at } }
        : { kind: 'returned', answer: { 結果: DELETE_MSG.claimNotSent, 更新日時: at } },
    );
  }
  // The group's journals MF holds: the ones a 台帳 row may be relinked to or told about.
  const alive = new Map<string, RecordedMember[]>();
  for (const m of groupMembers) {
    const cid = canonical(m.id);
    if (gone.has(cid) || !view.listed.has(cid)) continue;
    alive.set(m.group, [...(alive.get(m.group) ?? []), m]);
  }
  const settled = underLock(input.lock, () =>
    settle(input, outcomes, expected, { member, alive, claimKeys: new Map() }),
  );
  if (!settled) {
    summary.busy = true;
    return 'busy';
  }
  const done = settled.value;
  summary.recovered = done.written.size;
  for (const cid of done.written) {
    if (outcomes.get(cid)?.kind === 'done') summary.deleted.push(idOf.get(cid) ?? cid);
    else summary.stillThere++;
  }
  summary.ledgerExcluded += done.excluded;
  summary.ledgerRelinked += done.relinked;
  summary.messages.push(...done.messages);
  return 'recovered';
}

/** Recovery on its own (重複点検 runs it before each audit). */
export function recoverDeletions(input: DeletionInput): DeletionSummary {
  const summary = emptySummary();
  recover(input, summary);
  return summary;
}

/** What the look before the claim found: the record it read, MF's view and each group's verdict. */
interface Looked {
  record: RecordView | RecordProblem;
  view: MfView;
  judged: GroupVerdicts;
}

/** 2. The look, outside the lock: the plan still the dialog's, then MF asked about its groups. */
function look(input: DeletionInput, token: string, summary: DeletionSummary): Looked | string {
  const record = input.record();
  const plan = planDeletion(input.sheet.read(), record, input.digest);
  if (plan.token !== token) {
    summary.refusedPlan = true;
    return DELETE_MSG.planChanged;
  }
  for (const r of plan.refused) {
    summary.refusedGroups.push(r.group);
    summary.messages.push(r.message);
  }
  // One listing for the groups' windows: each group must still hold a journal to keep, and each
  // journal to delete must still be the one the audit recorded.
  let view: MfView = { listed: new Map(), byId: new Map() };
  if (plan.groups.length > 0) {
    try {
      view = lookInMf(
        input.deleter,
        plan.groups.flatMap((g) => [...g.members]),
        plan.planned.map((p) => p.member),
      );
    } catch (e) {
      return DELETE_MSG.lookupFailed(e instanceof Error ? e.message : String(e));
    }
  }
  return { record, view, judged: verdicts(plan.groups, view) };
}

/** What the claim section decided: the journals claimed, and outcomes that need no DELETE. */
interface Claimed {
  ids: string[];
  /** Journals MF no longer had (settled as deleted with the batch). */
  gone: Map<string, RowOutcome>;
  /** 台帳 keys found for each claimed journal (the settle finds its rows by them). */
  keys: Map<string, string[]>;
}

/**
 * 3. The claim, under the lock: re-reads the plan (null when it changed since the dialog), writes every
 * refusal on its rows, and claims each journal still the one the audit recorded, in a group MF still
 * keeps a journal of; a journal already gone gets its outcome here, settled with the batch.
 */
function claim(
  input: DeletionInput,
  token: string,
  looked: Looked,
  summary: DeletionSummary,
): Claimed | null {
  const { view, judged } = looked;
  const out: Claimed = { ids: [], gone: new Map(), keys: new Map() };
  const table = input.sheet.read();
  const again = planDeletion(table, input.record(), input.digest);
  if (again.token !== token) return null;
  const ledger = input.ledger.read();
  const now = input.clock.iso();
  const claims: DuplicateChange[] = [];
  const byRow = new Map(table.rows.map((r) => [r.rowNumber, r]));
  const tell = (rowNumber: number, message: string) => {
    const row = byRow.get(rowNumber);
    // Only rows nothing is in flight on: a claim's own 結果 is never overwritten.
    if (!row || (row.record.状態 !== DELETE_STATE.none && row.record.状態 !== DELETE_STATE.failed)) return;
    claims.push({ journalId: String(row.record.仕訳ID), rowNumber, patch: { 結果: message, 更新日時: now } });
  };
  /** A refusal of one journal: no state, and why on its row. */
  const refuse = (p: { journalId: string; rowNumber: number }, message: string) =>
    claims.push({
      journalId: p.journalId,
      rowNumber: p.rowNumber,
      patch: { 状態: DELETE_STATE.none, 結果: message, 更新日時: now },
    });
  for (const r of again.refused) for (const n of r.rows) tell(n, r.message);
  for (const g of again.groups) {
    const refusal = judged.refused.get(g.group);
    if (refusal !== undefined) {
      summary.refusedGroups.push(g.group);
      summary.messages.push(refusal);
      for (const p of g.chosen) tell(p.rowNumber, refusal);
      continue;
    }
    for (const p of g.chosen) {
      const cid = canonical(p.journalId);
      const journal = current(view, cid);
      if (journal === null) {
        // Already gone: nothing to send; settled with the batch like a delete.
        out.gone.set(cid, {
          kind: 'done',
          answer: { 結果: DELETE_MSG.absent(input.clock.stamp()), 更新日時: now },
        });
        summary.absent.push(p.journalId);
        continue;
      }
      if (!journal || !unchangedJournal(journal, p.member)) {
        refuse(p, DELETE_MSG.changed);
        summary.changed++;
        continue;
      }
      const holder = input.archivedHolder?.(journal) ?? null;
      if (holder !== null) {
        refuse(p, DELETE_MSG.archived(holder));
        summary.archived++;
        continue;
      }
      if (leavesLineBare(g, journal, judged.alive.get(g.group) ?? [], view, ledger)) {
        refuse(p, DELETE_MSG.lineLeftBare);
        summary.lineLeftBare++;
        continue;
      }
      const found = keysOf(journal, ledger, p.member.keys);
      if (found.tagged && found.now.length === 0) {
        // kicho posted it, yet no 台帳 row holds it (rows deleted, the 台帳 replaced): the settle would have
        // no row to mark 除外, and the line would lose its journal unseen (simulation seed 19).
        refuse(p, DELETE_MSG.rowless);
        summary.rowless++;
        continue;
      }
      out.keys.set(cid, found.all);
      claims.push({
        journalId: p.journalId,
        rowNumber: p.rowNumber,
        patch: {
          状態: DELETE_STATE.claimed,
          結果: DELETE_MSG.claimed(input.who, input.clock.stamp()),
          台帳のキー: found.all.join(', '),
          更新日時: now,
        },
      });
      out.ids.push(p.journalId);
    }
  }
  input.sheet.write(table, claims);
  return out;
}

/**
 * 4. One DELETE, outside the lock. A 429 means MF did nothing with it: sent again after the wait MF asked
 * for, at most twice. An unknown answer is never guessed: MF is asked at once whether the journal is there.
 */
function deleteOnce(input: DeletionInput, id: string): DeleteAnswer {
  let result = input.deleter.deleteJournal(id);
  for (let retry = 0; result.kind === 'rate-limited' && retry < RATE_LIMIT_RETRIES; retry++) {
    input.clock.sleep(result.retryAfterMs ?? 1000);
    result = input.deleter.deleteJournal(id);
  }
  if (result.kind !== 'unknown') return result;
  try {
    return input.deleter.journal(id) === null ? { kind: 'deleted' } : { kind: 'still-there' };
  } catch (_e) {
    // MF cannot tell now: 不明, looked up by the next audit or delete.
    return result;
  }
}

/** The answer as the skeleton sees it, counted into the summary (as it comes: a lost settle keeps the count). */
function sorted(
  input: DeletionInput,
  summary: DeletionSummary,
  id: string,
  answer: DeleteAnswer,
): Acted<RowResult, DeleteStop> {
  const kind = deleteOutcomeKind(answer);
  // The time of the answer, before the words that name it (a stamp is a call of its own).
  const at = input.clock.iso();
  const result = (結果: string, stop?: DeleteStop) => ({ kind, answer: { 結果, 更新日時: at }, stop });
  switch (answer.kind) {
    case 'deleted':
      summary.deleted.push(id);
      return result(DELETE_MSG.deleted(input.who, input.clock.stamp()));
    case 'absent':
      summary.absent.push(id);
      return result(DELETE_MSG.absent(input.clock.stamp()));
    case 'still-there':
      summary.stillThere++;
      return result(DELETE_MSG.stillThere);
    case 'unknown':
      summary.unknown++;
      return result(DELETE_MSG.unknown(answer.reason));
    case 'rejected':
      summary.failed++;
      return result(answer.explanation);
    case 'rate-limited':
      summary.returned++;
      return result(DELETE_MSG.notSent(DELETE_MSG.rateLimited));
    case 'unauthorized':
    case 'not-sent': {
      const reason = answer.kind === 'unauthorized' ? answer.message : answer.reason;
      summary.returned++;
      summary.messages.push(reason);
      return result(DELETE_MSG.notSent(reason), reason);
    }
  }
}

/** Deletion as the skeleton's job: the steps above, with what each adds to the summary. */
function deletionJob(
  input: DeletionInput,
  token: string,
  summary: DeletionSummary,
): ExactlyOnceJob<string, RowResult, DeleteStop> {
  let looked: Looked | null = null;
  let claimed: Claimed | null = null;
  return {
    lock: input.lock,
    recover: () => recover(input, summary),
    look() {
      const found = look(input, token, summary);
      if (typeof found === 'string') return found;
      looked = found;
      return null;
    },
    // A person confirmed this plan whole: it is claimed in one section, settled in the next.
    room: () => Number.POSITIVE_INFINITY,
    lockedPhase(batch) {
      if (!looked) throw new Error('重複を削除: claimed before the look');
      if (batch === null) {
        claimed = claim(input, token, looked, summary);
        if (claimed === null) {
          summary.refusedPlan = true;
          return { kind: 'refused', message: DELETE_MSG.planChanged };
        }
        const nothing = claimed.ids.length === 0 && claimed.gone.size === 0;
        return nothing ? { kind: 'nothing' } : { kind: 'claimed', claims: claimed.ids };
      }
      const outcomes = new Map(claimed?.gone);
      batch.claims.forEach((id, i) => {
        outcomes.set(canonical(id), batch.outcomes[i]);
      });
      const context = {
        member: memberOf(looked.record),
        alive: looked.judged.alive,
        claimKeys: claimed?.keys ?? new Map(),
      };
      const done = settle(input, outcomes, null, context);
      summary.ledgerExcluded += done.excluded;
      summary.ledgerRelinked += done.relinked;
      summary.messages.push(...done.messages);
      return { kind: 'nothing' };
    },
    outOfTime: () => input.clock.now() - input.startedAt >= STOP_SENDING_AT_MS,
    act: (id) => sorted(input, summary, id, deleteOnce(input, id)),
    notActed(_id, why) {
      summary.returned++;
      const reason = why.kind === 'time' ? DELETE_MSG.time : DELETE_MSG.stopped;
      return { 結果: DELETE_MSG.notSent(reason), 更新日時: input.clock.iso() };
    },
  };
}

/** Why the run ended, in the summary's terms (the counts were kept as the steps went). */
function ending(summary: DeletionSummary, end: RunEnd<DeleteStop>): void {
  // The claims of a batch whose settle found the lock held stay 削除中: recovery looks them up after the lease.
  if (end.kind === 'busy') summary.busy = true;
  if (end.kind === 'refused') summary.messages.push(end.message);
}

/**
 * The confirmed plan: `token` is the plan the dialog showed; if the sheet (or the record) no longer gives it,
 * nothing is deleted. Stale claims are recovered first.
 */
export function deleteDuplicates(input: DeletionInput, token: string): DeletionSummary {
  const summary = emptySummary();
  ending(summary, runExactlyOnce(deletionJob(input, token, summary)));
  return summary;
}
