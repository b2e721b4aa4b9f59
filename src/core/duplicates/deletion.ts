/**
 * Deleting the duplicates a person chose (重複点検, 操作 削除) with the posting protocol's discipline
 * (DESIGN §5): look each journal up, claim it (状態 削除中, written and flushed under the script lock), send
 * DELETE once, settle under the lock. An unknown outcome (timeout, 5xx) is looked up at once and, failing
 * that, later; it is never sent again without a person confirming again. A 台帳 row whose journal is
 * deleted becomes 除外 (or keeps the group's surviving journal of its own), so it is never posted again.
 *
 * What "claimed" means here: a row in 削除中 may have reached MF. Younger than the lease it belongs to a
 * live execution and nothing touches it; older (its execution was killed) it is looked up: gone → 削除済み
 * and the 台帳 settled; still there → back to no state, and only a person's new confirmation sends it.
 */
import { LEASE_MS, STOP_SENDING_AT_MS } from '../budget';
import type { LedgerTable, RowChange } from '../ledger';
import { type ClockPort, type LedgerPort, type LockPort, underLock } from '../ports';
import { type AuditJournal, canonical, journalFacts, LedgerLinks } from './facts';
import {
  DELETE_STATE,
  type DuplicateRecord,
  type DuplicateRow,
  type DuplicateTable,
  planDeletion,
} from './sheet';

/** One change to the 重複点検 row holding a journal. */
export interface DuplicateChange {
  journalId: string;
  rowNumber: number;
  patch: Partial<DuplicateRecord>;
}

export interface DuplicateSheetPort {
  read(): DuplicateTable;
  write(table: DuplicateTable, changes: readonly DuplicateChange[]): void;
}

/** What became of one DELETE, in the core's terms (the app maps MF's answers and Apps Script's refusals). */
export type DeleteResult =
  | { kind: 'deleted' }
  | { kind: 'absent' }
  | { kind: 'rejected'; explanation: string }
  | { kind: 'rate-limited'; retryAfterMs: number | null }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'unknown'; reason: string }
  /** Apps Script refused to send it (quota, permission): nothing left. */
  | { kind: 'not-sent'; reason: string };

export interface DeleterPort {
  /** The journal as MF has it now, or null when MF has no such id. Throws when MF cannot be asked. */
  journal(id: string): AuditJournal | null;
  deleteJournal(id: string): DeleteResult;
}

export interface DeletionClock extends ClockPort {
  /** Now as people read it in the script's time zone (yyyy-MM-dd HH:mm). */
  stamp(): string;
}

/** 429s one DELETE may get before it is left for the person to confirm again. */
const RATE_LIMIT_RETRIES = 2;

export interface DeletionInput {
  sheet: DuplicateSheetPort;
  ledger: LedgerPort;
  lock: LockPort;
  deleter: DeleterPort;
  clock: DeletionClock;
  who: string;
  startedAt: number;
  digest: (text: string) => string;
  leaseMs?: number;
  /**
   * The キー of a row moved to 台帳アーカイブ whose MF仕訳ID is this journal, or null. Such a journal is not
   * deleted: only the 台帳 is settled after a delete, so the archived row would go on naming a journal MF
   * no longer has. Throws when the archive cannot be read (then nothing is deleted).
   */
  archivedHolder?: (journal: AuditJournal) => string | null;
}

export const DELETE_MSG = {
  claimed: (who: string, at: string) => `削除中（${who || '実行した人'}、${at}）`,
  deleted: (who: string, at: string) => `${who || '実行した人'} が ${at} に MF から削除しました。`,
  absent: (at: string) => `MF に既にありませんでした（${at} に確認）。MF の画面などで先に削除されています。`,
  foundGone: (at: string) =>
    `削除の結果がわからなかったため MF で確かめたところ、仕訳はありませんでした（${at}）。削除済みです。`,
  stillThere:
    'MF の応答がなかったため確かめたところ、仕訳は MF に残っています（削除されていません）。削除するときは、もう一度「重複を削除」から確認してください。',
  claimNotSent:
    '前回の削除は MF に届いていませんでした（仕訳は残っています）。削除するときは、もう一度「重複を削除」から確認してください。',
  unknown: (reason: string) =>
    `削除できたかわかりません（${reason}）。次の「重複点検」か「重複を削除」で MF に確かめます（確かめるまで送り直しません）。`,
  changed:
    '点検のあとで MF の仕訳（取引日・金額・科目）が変わっています。削除していません。もう一度「重複点検」を実行して確かめてください。',
  notSent: (reason: string) => `削除を送りませんでした（${reason}）。操作は「削除」のままです。`,
  time: '実行時間の上限が近いため送りませんでした',
  stopped: 'MF への送信を止めたため送りませんでした',
  rateLimited: 'MF が混み合っていたため送りませんでした',
  planChanged:
    '削除の確認のあとでシート「重複点検」が変わったため、何も削除しませんでした。もう一度「重複を削除」を開いて確かめてください。',
  lookupFailed: (message: string) =>
    `削除の前に MF で仕訳を確かめられなかったため、何も削除していません（${message}）。`,
  ledgerExcluded: (journal: string, kept: readonly string[], who: string, at: string) =>
    `重複点検で MF の仕訳 ${journal} を削除したため除外にしました（${who || '実行した人'}、${at}）。${kept.length > 0 ? `同じお金は 仕訳 ${kept.join('、')} に記帳されています。` : ''}この行は登録しません。`,
  ledgerRelinked: (journal: string, kept: string) =>
    `重複点検で仕訳 ${journal} を削除しました。この行の仕訳として 仕訳 ${kept} を残しています。`,
  archived: (key: string) =>
    `この仕訳は台帳アーカイブの行（キー ${key}）が登録した仕訳のため、削除していません。削除するときは、その行を「アーカイブから戻す」で台帳に戻し、もう一度「重複点検」を実行してから確かめてください。`,
  ledgerSending: (key: string) =>
    `台帳の行（キー ${key}）は送信中のため変えていません。照合のあとで、もう一度「重複点検」を実行してください。`,
} as const;

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
  stillThere: number;
  recovered: number;
  ledgerExcluded: number;
  ledgerRelinked: number;
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
    stillThere: 0,
    recovered: 0,
    ledgerExcluded: 0,
    ledgerRelinked: 0,
    refusedGroups: [],
    messages: [],
  };
}

/** The journal still looks as the audit showed it (a person may have edited it in MF since). */
function unchangedJournal(j: AuditJournal, r: DuplicateRecord): boolean {
  const [facts] = journalFacts([j], new LedgerLinks([]));
  return (
    facts.date === String(r.取引日) &&
    facts.amount === Number(r.金額) &&
    facts.debitLabel === String(r.借方) &&
    facts.creditLabel === String(r.貸方)
  );
}

/** 台帳 keys a journal belongs to now: the audit's, plus its tag's and line's rows, plus MF仕訳ID. */
function keysOf(j: AuditJournal, ledger: LedgerTable, previous: string): string[] {
  const [facts] = journalFacts([j], new LedgerLinks(ledger.rows));
  const keys = new Set(facts.ledgerKeys);
  for (const k of previous.split(',').map((x) => x.trim())) if (k !== '') keys.add(k);
  return [...keys];
}

function rowsByJournal(table: DuplicateTable): Map<string, DuplicateRow> {
  const out = new Map<string, DuplicateRow>();
  for (const r of table.rows) out.set(canonical(String(r.record.仕訳ID)), r);
  return out;
}

/**
 * The 台帳 after journals were deleted: each row tied to a deleted journal (its 台帳のキー, or MF仕訳ID)
 * keeps a surviving journal of its own from the same group, or becomes 除外. A 完了 row whose own journal
 * survives, an 除外 row and a row being sent are left alone.
 */
export function ledgerChangesForDeleted(
  ledger: LedgerTable,
  sheet: DuplicateTable,
  deletedIds: ReadonlySet<string>,
  who: string,
  now: string,
  at: string,
): { changes: RowChange[]; excluded: number; relinked: number; messages: string[] } {
  const changes: RowChange[] = [];
  const messages: string[] = [];
  let excluded = 0;
  let relinked = 0;
  const keysOfRow = (r: DuplicateRecord) =>
    String(r.台帳のキー)
      .split(',')
      .map((k) => k.trim())
      .filter((k) => k !== '');
  const deleted = sheet.rows.filter((r) => deletedIds.has(canonical(String(r.record.仕訳ID))));
  const touched = new Set<number>();
  for (const d of deleted) {
    const dId = canonical(String(d.record.仕訳ID));
    const keys = new Set(keysOfRow(d.record));
    const kept = sheet.rows.filter(
      (r) =>
        r.record.グループ === d.record.グループ &&
        !deletedIds.has(canonical(String(r.record.仕訳ID))) &&
        r.record.状態 !== DELETE_STATE.deleted,
    );
    for (const row of ledger.rows) {
      if (touched.has(row.rowNumber)) continue;
      const key = row.record.キー;
      const ownJournal = row.record.MF仕訳ID.trim();
      const tied = keys.has(key) || (ownJournal !== '' && canonical(ownJournal) === dId);
      if (!tied) continue;
      const state = row.record.状態;
      if (state === '除外') continue;
      if (
        state === '完了' &&
        ownJournal !== '' &&
        canonical(ownJournal) !== dId &&
        !deletedIds.has(canonical(ownJournal))
      )
        continue;
      if (state === '送信中') {
        messages.push(DELETE_MSG.ledgerSending(key));
        continue;
      }
      touched.add(row.rowNumber);
      const mine = kept.find((k) => keysOfRow(k.record).includes(key));
      if (mine) {
        relinked++;
        changes.push({
          key,
          rowNumber: row.rowNumber,
          patch: {
            状態: '完了',
            MF仕訳ID: String(mine.record.仕訳ID),
            更新日時: now,
            ...(row.record.完了日時 === '' ? { 完了日時: now } : {}),
            メモ: DELETE_MSG.ledgerRelinked(String(d.record.仕訳ID), String(mine.record.仕訳ID)),
          },
        });
        continue;
      }
      excluded++;
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: {
          状態: '除外',
          更新日時: now,
          メモ: DELETE_MSG.ledgerExcluded(
            String(d.record.仕訳ID),
            kept.map((k) => String(k.record.仕訳ID)),
            who,
            at,
          ),
        },
      });
    }
  }
  return { changes, excluded, relinked, messages };
}

/** Writes sheet outcomes and the 台帳 rows they settle, under the lock (the 台帳 first: see the header). */
function settle(
  input: DeletionInput,
  outcomes: ReadonlyMap<string, Partial<DuplicateRecord>>,
  expected: ReadonlyMap<string, { 状態: string; 更新日時: string }> | null,
): { excluded: number; relinked: number; messages: string[]; written: Set<string> } {
  const now = input.clock.iso();
  const table = input.sheet.read();
  const byJournal = rowsByJournal(table);
  const changes: DuplicateChange[] = [];
  const written = new Set<string>();
  for (const [cid, patch] of outcomes) {
    const row = byJournal.get(cid);
    if (!row) continue;
    // A recovery writes only over the state it looked up (another run may have settled it since).
    const was = expected?.get(cid);
    if (was && (row.record.状態 !== was.状態 || String(row.record.更新日時) !== was.更新日時)) continue;
    changes.push({ journalId: String(row.record.仕訳ID), rowNumber: row.rowNumber, patch });
    written.add(cid);
  }
  const deletedIds = new Set([...written].filter((cid) => outcomes.get(cid)?.状態 === DELETE_STATE.deleted));
  let ledgerResult = { changes: [] as RowChange[], excluded: 0, relinked: 0, messages: [] as string[] };
  if (deletedIds.size > 0) {
    const ledger = input.ledger.read();
    ledgerResult = ledgerChangesForDeleted(ledger, table, deletedIds, input.who, now, input.clock.stamp());
    // The 台帳 first: if the run dies before the sheet's write, the next lookup finds the journal gone
    // and settles the 台帳 again, which changes nothing the second time.
    input.ledger.write(ledger, ledgerResult.changes);
  }
  input.sheet.write(table, changes);
  return { ...ledgerResult, written };
}

/**
 * Rows whose delete may have reached MF and whose execution is gone (削除中 past the lease, or 不明):
 * looked up in MF, then settled under the lock. Never sends a DELETE.
 */
export function recoverDeletions(input: DeletionInput): DeletionSummary {
  const summary = emptySummary();
  const lease = input.leaseMs ?? LEASE_MS;
  const nowMs = input.clock.now();
  const stale = input.sheet.read().rows.filter((r) => {
    if (r.record.状態 === DELETE_STATE.unknown) return true;
    if (r.record.状態 !== DELETE_STATE.claimed) return false;
    const t = Date.parse(String(r.record.更新日時));
    return !Number.isFinite(t) || nowMs - t >= lease;
  });
  if (stale.length === 0) return summary;
  const outcomes = new Map<string, Partial<DuplicateRecord>>();
  const expected = new Map<string, { 状態: string; 更新日時: string }>();
  const idOf = new Map(stale.map((r) => [canonical(String(r.record.仕訳ID)), String(r.record.仕訳ID)]));
  const at = input.clock.iso();
  const shown = input.clock.stamp();
  for (const r of stale) {
    let journal: AuditJournal | null;
    try {
      journal = input.deleter.journal(String(r.record.仕訳ID));
    } catch (e) {
      summary.messages.push(DELETE_MSG.unknown(e instanceof Error ? e.message : String(e)));
      continue;
    }
    const cid = canonical(String(r.record.仕訳ID));
    expected.set(cid, { 状態: String(r.record.状態), 更新日時: String(r.record.更新日時) });
    outcomes.set(
      cid,
      journal === null
        ? { 状態: DELETE_STATE.deleted, 結果: DELETE_MSG.foundGone(shown), 更新日時: at }
        : { 状態: DELETE_STATE.none, 結果: DELETE_MSG.claimNotSent, 更新日時: at },
    );
  }
  if (outcomes.size === 0) return summary;
  const settled = underLock(input.lock, () => settle(input, outcomes, expected));
  if (!settled) {
    summary.busy = true;
    return summary;
  }
  const done = settled.value;
  summary.recovered = done.written.size;
  for (const cid of done.written) {
    const o = outcomes.get(cid);
    if (o?.状態 === DELETE_STATE.deleted) summary.deleted.push(idOf.get(cid) ?? cid);
    else summary.stillThere++;
  }
  summary.ledgerExcluded += done.excluded;
  summary.ledgerRelinked += done.relinked;
  summary.messages.push(...done.messages);
  return summary;
}

/**
 * Under the lock: re-reads the plan (null when it changed since the dialog) and claims each journal still the
 * one the audit showed; journals already gone or changed get their outcome here. Returns the claimed ids.
 */
function claimDeletions(
  input: DeletionInput,
  token: string,
  looked: ReadonlyMap<string, AuditJournal | null>,
  outcomes: Map<string, Partial<DuplicateRecord>>,
  summary: DeletionSummary,
): string[] | null {
  const claimed: string[] = [];
  const table = input.sheet.read();
  const again = planDeletion(table, input.digest);
  if (again.token !== token) return null;
  const ledger = input.ledger.read();
  const now = input.clock.iso();
  const claims: DuplicateChange[] = [];
  for (const p of again.planned) {
    const cid = canonical(p.journalId);
    const journal = looked.get(cid);
    if (journal === null) {
      // Already gone: nothing to send; settled below like a delete.
      outcomes.set(cid, {
        状態: DELETE_STATE.deleted,
        結果: DELETE_MSG.absent(input.clock.stamp()),
        更新日時: now,
      });
      summary.absent.push(p.journalId);
      continue;
    }
    if (!journal || !unchangedJournal(journal, p.record)) {
      claims.push({
        journalId: p.journalId,
        rowNumber: p.rowNumber,
        patch: { 状態: DELETE_STATE.none, 結果: DELETE_MSG.changed, 更新日時: now },
      });
      summary.changed++;
      continue;
    }
    const holder = input.archivedHolder?.(journal) ?? null;
    if (holder !== null) {
      claims.push({
        journalId: p.journalId,
        rowNumber: p.rowNumber,
        patch: { 状態: DELETE_STATE.none, 結果: DELETE_MSG.archived(holder), 更新日時: now },
      });
      summary.archived++;
      continue;
    }
    claims.push({
      journalId: p.journalId,
      rowNumber: p.rowNumber,
      patch: {
        状態: DELETE_STATE.claimed,
        結果: DELETE_MSG.claimed(input.who, input.clock.stamp()),
        台帳のキー: keysOf(journal, ledger, String(p.record.台帳のキー)).join(', '),
        更新日時: now,
      },
    });
    claimed.push(p.journalId);
  }
  input.sheet.write(table, claims);
  return claimed;
}

/**
 * The confirmed plan: `token` is the plan the dialog showed; if the sheet no longer gives it, nothing is
 * deleted. Stale claims are recovered first.
 */
export function deleteDuplicates(input: DeletionInput, token: string): DeletionSummary {
  const summary = recoverDeletions(input);
  if (summary.busy) return summary;
  const plan = planDeletion(input.sheet.read(), input.digest);
  summary.refusedGroups = plan.refused.map((r) => r.group);
  if (plan.token !== token) {
    summary.refusedPlan = true;
    summary.messages.push(DELETE_MSG.planChanged);
    return summary;
  }
  // Look first: the journal must still be the one the audit showed, and its 台帳 rows are known now.
  const looked = new Map<string, AuditJournal | null>();
  for (const p of plan.planned) {
    try {
      looked.set(canonical(p.journalId), input.deleter.journal(p.journalId));
    } catch (e) {
      summary.messages.push(DELETE_MSG.lookupFailed(e instanceof Error ? e.message : String(e)));
      return summary;
    }
  }
  const outcomes = new Map<string, Partial<DuplicateRecord>>();
  // The claim is flushed (by underLock) before anything is sent.
  const locked = underLock(input.lock, () => claimDeletions(input, token, looked, outcomes, summary));
  if (locked === null) {
    summary.busy = true;
    return summary;
  }
  if (locked.value === null) {
    summary.refusedPlan = true;
    summary.messages.push(DELETE_MSG.planChanged);
    return summary;
  }
  const claimed = locked.value;

  let stop: string | null = null;
  for (const id of claimed) {
    const cid = canonical(id);
    const now = input.clock.iso();
    if (stop === null && input.clock.now() - input.startedAt >= STOP_SENDING_AT_MS) stop = DELETE_MSG.time;
    if (stop !== null) {
      outcomes.set(cid, { 状態: DELETE_STATE.none, 結果: DELETE_MSG.notSent(stop), 更新日時: now });
      summary.returned++;
      continue;
    }
    let result = input.deleter.deleteJournal(id);
    // A 429 means MF did nothing with it: sent again after the wait MF asked for, at most twice.
    for (let retry = 0; result.kind === 'rate-limited' && retry < RATE_LIMIT_RETRIES; retry++) {
      input.clock.sleep(result.retryAfterMs ?? 1000);
      result = input.deleter.deleteJournal(id);
    }
    if (result.kind === 'unknown') {
      // Never guessed: MF is asked whether the journal is still there.
      try {
        const journal = input.deleter.journal(id);
        if (journal === null) result = { kind: 'deleted' };
        else {
          outcomes.set(cid, {
            状態: DELETE_STATE.none,
            結果: DELETE_MSG.stillThere,
            更新日時: input.clock.iso(),
          });
          summary.stillThere++;
          continue;
        }
      } catch (_e) {
        // MF cannot tell now: 不明, looked up by the next audit or delete.
      }
    }
    const at = input.clock.iso();
    switch (result.kind) {
      case 'deleted':
        outcomes.set(cid, {
          状態: DELETE_STATE.deleted,
          結果: DELETE_MSG.deleted(input.who, input.clock.stamp()),
          更新日時: at,
        });
        summary.deleted.push(id);
        break;
      case 'absent':
        outcomes.set(cid, {
          状態: DELETE_STATE.deleted,
          結果: DELETE_MSG.absent(input.clock.stamp()),
          更新日時: at,
        });
        summary.absent.push(id);
        break;
      case 'unknown':
        outcomes.set(cid, {
          状態: DELETE_STATE.unknown,
          結果: DELETE_MSG.unknown(result.reason),
          更新日時: at,
        });
        summary.unknown++;
        break;
      case 'rejected':
        outcomes.set(cid, { 状態: DELETE_STATE.failed, 結果: result.explanation, 更新日時: at });
        summary.failed++;
        break;
      case 'rate-limited':
        outcomes.set(cid, {
          状態: DELETE_STATE.none,
          結果: DELETE_MSG.notSent(DELETE_MSG.rateLimited),
          更新日時: at,
        });
        summary.returned++;
        break;
      case 'unauthorized':
      case 'not-sent': {
        const reason = result.kind === 'unauthorized' ? result.message : result.reason;
        outcomes.set(cid, { 状態: DELETE_STATE.none, 結果: DELETE_MSG.notSent(reason), 更新日時: at });
        summary.returned++;
        summary.messages.push(reason);
        stop = DELETE_MSG.stopped;
        break;
      }
    }
  }

  if (outcomes.size === 0) return summary;
  const settled = underLock(input.lock, () => settle(input, outcomes, null));
  if (!settled) {
    // The claims stay 削除中: the next audit or delete looks them up after the lease.
    summary.busy = true;
    return summary;
  }
  summary.ledgerExcluded += settled.value.excluded;
  summary.ledgerRelinked += settled.value.relinked;
  summary.messages.push(...settled.value.messages);
  return summary;
}
