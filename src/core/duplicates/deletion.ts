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
 *
 * Which journals make a group, and which 台帳 rows each belongs to, come from the audit's record
 * (record.ts), never from the sheet (issue 25). Just before anything is claimed, MF is asked — one listing
 * per window of the groups' dates, not one call per row — whether each group still holds a journal that
 * is not being deleted and still looks as the audit saw it; a group without one is refused whole.
 */
import { LEASE_MS, STOP_SENDING_AT_MS } from '../budget';
import type { LedgerTable, RowChange } from '../ledger';
import { type ClockPort, type LedgerPort, type LockPort, underLock } from '../ports';
import { transition } from '../states';
import { PROPOSAL } from './detect';
import { type AuditJournal, canonical, journalFacts, LedgerLinks } from './facts';
import type { RecordedMember, RecordProblem, RecordView } from './record';
import {
  DELETE_STATE,
  type DuplicateRecord,
  type DuplicateRow,
  type DuplicateTable,
  type PlannedGroup,
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

/** Dates yyyy-MM-dd, both ends included. */
export interface DateWindow {
  start: string;
  end: string;
}

export interface DeleterPort {
  /** The journal as MF has it now, or null when MF has no such id. Throws when MF cannot be asked. */
  journal(id: string): AuditJournal | null;
  /**
   * The journals dated inside `windows` whose decoded id is in `wanted` (one listing per window and
   * accounting period, paged). Throws when MF cannot be asked.
   */
  journalsIn(windows: readonly DateWindow[], wanted: ReadonlySet<string>): Map<string, AuditJournal>;
  deleteJournal(id: string): DeleteResult;
}

export interface DeletionClock extends ClockPort {
  /** Now as people read it in the script's time zone (yyyy-MM-dd HH:mm). */
  stamp(): string;
}

/** 429s one DELETE may get before it is left for the person to confirm again. */
const RATE_LIMIT_RETRIES = 2;

/**
 * Groups' date ranges this close are listed as one window: a listing costs a call a page whatever its
 * span, so nearby groups share one instead of one call each.
 */
const WINDOW_GAP_DAYS = 7;

export interface DeletionInput {
  sheet: DuplicateSheetPort;
  ledger: LedgerPort;
  lock: LockPort;
  deleter: DeleterPort;
  clock: DeletionClock;
  /** The last audit's record (record.ts), read afresh each time it is asked. */
  record: () => RecordView | RecordProblem;
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
  /** The group's journals to keep, each with what MF says of it now. */
  keptMissing: (group: string, parts: readonly string[]) =>
    `グループ ${group} で残す仕訳がありません: ${parts.join('、')}。このまま削除するとこの取引の仕訳がなくなるため、このグループは削除していません（操作は「削除」のままです）。MF の仕訳帳で確かめ、もう一度「重複点検」を実行してから選び直してください。`,
  keptGone: (id: string) =>
    `仕訳 ${id} は MF にありません（点検のあとで MF の画面などで削除されたか、取引日が変わっています）`,
  keptChanged: (id: string) => `仕訳 ${id} は点検のあとで MF で変わっています（取引日・金額・科目）`,
  ledgerExcluded: (journal: string, kept: readonly string[], who: string, at: string) =>
    `重複点検で MF の仕訳 ${journal} を削除したため除外にしました（${who || '実行した人'}、${at}）。${kept.length > 0 ? `同じお金は 仕訳 ${kept.join('、')} に記帳されています。` : ''}この行は登録しません。`,
  ledgerRelinked: (journal: string, kept: string) =>
    `重複点検で仕訳 ${journal} を削除しました。この行の仕訳として 仕訳 ${kept} を残しています。`,
  unrecorded: (id: string) =>
    `仕訳 ${id} は重複点検の記録にない行のため、台帳は変えていません。台帳でこの仕訳の行を確かめてください。`,
  archived: (key: string) =>
    `この仕訳は台帳アーカイブの行（キー ${key}）が登録した仕訳のため、削除していません。削除するときは、その行を「アーカイブから戻す」で台帳に戻し、もう一度「重複点検」を実行してから確かめてください。`,
  lineLeftBare:
    'このグループは別々の本当の取引の可能性があり、この仕訳を削除すると、その明細の仕訳がなくなります（残す仕訳はどれも別の明細のものです）。削除していません。MF の仕訳帳で同じ取引かを確かめ、本当に二重なら、もう一度「重複点検」を実行してから選び直してください。',
  rowless:
    'この仕訳は kicho が登録したものですが、台帳にその行がありません（行が削除されたか、台帳が入れ替わっています）。削除すると台帳で確かめられなくなるため、削除していません。メニュー「記帳 > 台帳 > 台帳を復元」で行を戻してから、もう一度「重複点検」を実行してください。',
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

/** The journal still looks as the audit recorded it (a person may have edited it in MF since). */
export function unchangedJournal(j: AuditJournal, m: RecordedMember): boolean {
  const [facts] = journalFacts([j], new LedgerLinks([]));
  return (
    facts.date === m.date &&
    facts.amount === m.amount &&
    facts.debitLabel === m.debit &&
    facts.creditLabel === m.credit
  );
}

/**
 * 台帳 keys a journal belongs to: `all` — the audit's, plus its tag's and line's rows, plus MF仕訳ID;
 * `now` — only the rows the 台帳 holds now, and whether kicho's tag is on the journal.
 */
function keysOf(
  j: AuditJournal,
  ledger: LedgerTable,
  recorded: readonly string[],
): { all: string[]; now: string[]; tagged: boolean } {
  const [facts] = journalFacts([j], new LedgerLinks(ledger.rows));
  return {
    all: [...new Set([...recorded, ...facts.ledgerKeys])],
    now: facts.ledgerKeys,
    tagged: facts.kichoTags.length > 0,
  };
}

function rowsByJournal(table: DuplicateTable): Map<string, DuplicateRow> {
  const out = new Map<string, DuplicateRow>();
  for (const r of table.rows) out.set(canonical(String(r.record.仕訳ID)), r);
  return out;
}

const DAY_MS = 86_400_000;

function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The windows to list for these journals: each group's dates, merged when they overlap or lie within
 * WINDOW_GAP_DAYS of each other. Calls grow with windows and pages, never with rows.
 */
export function lookupWindows(members: readonly RecordedMember[]): DateWindow[] {
  const byGroup = new Map<string, DateWindow>();
  for (const m of members) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(m.date)) continue;
    const w = byGroup.get(m.group);
    if (!w) byGroup.set(m.group, { start: m.date, end: m.date });
    else {
      if (m.date < w.start) w.start = m.date;
      if (m.date > w.end) w.end = m.date;
    }
  }
  const sorted = [...byGroup.values()].sort((a, b) => a.start.localeCompare(b.start));
  const out: DateWindow[] = [];
  for (const w of sorted) {
    const last = out.length > 0 ? out[out.length - 1] : undefined;
    if (last && w.start <= shiftDate(last.end, WINDOW_GAP_DAYS)) {
      if (w.end > last.end) last.end = w.end;
    } else out.push({ ...w });
  }
  return out;
}

/** What MF holds of some recorded journals: listed, or looked up by id when the listing missed them. */
interface MfView {
  listed: Map<string, AuditJournal>;
  /** Looked up by id after the listing missed them: null = MF has no such journal. */
  byId: Map<string, AuditJournal | null>;
}

function current(view: MfView, cid: string): AuditJournal | null | undefined {
  return view.listed.get(cid) ?? view.byId.get(cid);
}

/**
 * One listing for the groups' windows; then, by id, only the journals in `confirm` it did not show (a
 * journal gone, or dated elsewhere now): a delete's "already gone" must be MF's own answer.
 */
function lookInMf(
  deleter: DeleterPort,
  members: readonly RecordedMember[],
  confirm: readonly RecordedMember[],
): MfView {
  const wanted = new Set(members.map((m) => canonical(m.id)));
  const listed = wanted.size === 0 ? new Map() : deleter.journalsIn(lookupWindows(members), wanted);
  const byId = new Map<string, AuditJournal | null>();
  for (const m of confirm) {
    const cid = canonical(m.id);
    if (listed.has(cid) || byId.has(cid)) continue;
    byId.set(cid, deleter.journal(m.id));
  }
  return { listed, byId };
}

/** The statement line behind a journal now (MF line id, or a CSV line's 台帳 key), or null. */
function statementLineOf(j: AuditJournal, ledger: LedgerTable): string | null {
  return journalFacts([j], new LedgerLinks(ledger.rows))[0].lineId;
}

/**
 * A group the audit took for possibly two real payments (each journal its own line): deleting a journal
 * whose line no kept journal shares leaves that line with no journal at all (simulation seed 978265).
 */
function leavesLineBare(
  g: PlannedGroup,
  journal: AuditJournal,
  alive: readonly RecordedMember[],
  view: MfView,
  ledger: LedgerTable,
): boolean {
  if (!g.members.some((m) => m.proposal === PROPOSAL.genuine)) return false;
  const line = statementLineOf(journal, ledger);
  if (line === null) return false;
  return !alive.some((s) => {
    const kept = view.listed.get(canonical(s.id));
    return kept !== undefined && statementLineOf(kept, ledger) === line;
  });
}

/**
 * The group's journals that keep it: survivors MF still holds as the audit saw them. None → the reason, in
 * the group's words (each journal to keep and what MF says of it).
 */
function keepers(g: PlannedGroup, view: MfView): { alive: RecordedMember[]; refusal: string | null } {
  const alive: RecordedMember[] = [];
  const parts: string[] = [];
  for (const s of g.survivors) {
    const j = view.listed.get(canonical(s.id));
    if (j && unchangedJournal(j, s)) alive.push(s);
    else parts.push(j ? DELETE_MSG.keptChanged(s.id) : DELETE_MSG.keptGone(s.id));
  }
  return { alive, refusal: alive.length > 0 ? null : DELETE_MSG.keptMissing(g.group, parts) };
}

/** A journal deleted (or found gone), with what ties it to the 台帳. */
export interface DeletedJournal {
  id: string;
  /** Its record entry (null: a row the record does not hold — the 台帳 is not touched for it). */
  member: RecordedMember | null;
  /** 台帳 keys found at the claim (the journal's tag and line against the 台帳 then). */
  claimKeys: readonly string[];
}

/**
 * The 台帳 after journals were deleted: each row tied to a deleted journal (the record's keys for it, the
 * keys found at its claim, or MF仕訳ID) keeps a surviving journal of its own from the same recorded group, or
 * becomes 除外. `alive` are the group's journals MF was seen to hold (the only ones named or relinked to).
 * A 完了 row whose own journal survives, an 除外 row and a row being sent are left alone.
 */
export function ledgerChangesForDeleted(
  ledger: LedgerTable,
  deleted: readonly DeletedJournal[],
  alive: ReadonlyMap<string, readonly RecordedMember[]>,
  who: string,
  now: string,
  at: string,
): { changes: RowChange[]; excluded: number; relinked: number; messages: string[] } {
  const changes: RowChange[] = [];
  const messages: string[] = [];
  let excluded = 0;
  let relinked = 0;
  const deletedIds = new Set(deleted.map((d) => canonical(d.id)));
  const touched = new Set<number>();
  for (const d of deleted) {
    if (!d.member) {
      messages.push(DELETE_MSG.unrecorded(d.id));
      continue;
    }
    const dId = canonical(d.id);
    const keys = new Set([...d.member.keys, ...d.claimKeys]);
    const kept = (alive.get(d.member.group) ?? []).filter((m) => !deletedIds.has(canonical(m.id)));
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
      const mine = kept.find((k) => k.keys.includes(key));
      if (mine) {
        relinked++;
        changes.push({
          key,
          rowNumber: row.rowNumber,
          patch: {
            状態: transition(state, '完了', '重複を削除: relinked to a surviving journal'),
            MF仕訳ID: mine.id,
            更新日時: now,
            ...(row.record.完了日時 === '' ? { 完了日時: now } : {}),
            メモ: DELETE_MSG.ledgerRelinked(d.id, mine.id),
          },
        });
        continue;
      }
      excluded++;
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: {
          状態: transition(state, '除外', '重複を削除: its journal deleted'),
          更新日時: now,
          メモ: DELETE_MSG.ledgerExcluded(
            d.id,
            kept.map((k) => k.id),
            who,
            at,
          ),
        },
      });
    }
  }
  return { changes, excluded, relinked, messages };
}

/** What a settle needs besides the outcomes: the record's entries and the journals seen alive. */
interface SettleContext {
  member: (id: string) => RecordedMember | null;
  alive: ReadonlyMap<string, readonly RecordedMember[]>;
  claimKeys: ReadonlyMap<string, readonly string[]>;
}

/** Writes sheet outcomes and the 台帳 rows they settle, under the lock (the 台帳 first: see the header). */
function settle(
  input: DeletionInput,
  outcomes: ReadonlyMap<string, Partial<DuplicateRecord>>,
  expected: ReadonlyMap<string, { 状態: string; 更新日時: string }> | null,
  context: SettleContext,
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
  const deleted: DeletedJournal[] = [...written]
    .filter((cid) => outcomes.get(cid)?.状態 === DELETE_STATE.deleted)
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
    // The 台帳 first: if the run dies before the sheet's write, the next lookup finds the journal gone
    // and settles the 台帳 again, which changes nothing the second time.
    input.ledger.write(ledger, ledgerResult.changes);
  }
  input.sheet.write(table, changes);
  return { ...ledgerResult, written };
}

function memberOf(record: RecordView | RecordProblem): (id: string) => RecordedMember | null {
  return typeof record === 'string' ? () => null : (id) => record.member(id) ?? null;
}

/**
 * Rows whose delete may have reached MF and whose execution is gone (削除中 past the lease, or 不明):
 * looked up in MF (one listing for their groups, then by id what it missed), then settled under the lock.
 * Never sends a DELETE.
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
    return summary;
  }
  const outcomes = new Map<string, Partial<DuplicateRecord>>();
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
        ? { 状態: DELETE_STATE.deleted, 結果: DELETE_MSG.foundGone(shown), 更新日時: at }
        : { 状態: DELETE_STATE.none, 結果: DELETE_MSG.claimNotSent, 更新日時: at },
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

/** What the MF check decided before the claim: per group, refused (why) or the journals that keep it. */
interface GroupVerdicts {
  refused: Map<string, string>;
  alive: Map<string, RecordedMember[]>;
}

function verdicts(groups: readonly PlannedGroup[], view: MfView): GroupVerdicts {
  const refused = new Map<string, string>();
  const alive = new Map<string, RecordedMember[]>();
  for (const g of groups) {
    const k = keepers(g, view);
    if (k.refusal) refused.set(g.group, k.refusal);
    else alive.set(g.group, k.alive);
  }
  return { refused, alive };
}

/**
 * Under the lock: re-reads the plan (null when it changed since the dialog), writes every refusal on its
 * rows, and claims each journal still the one the audit recorded, in a group MF still keeps a journal of;
 * journals already gone or changed get their outcome here. Returns the claimed ids.
 */
function claimDeletions(
  input: DeletionInput,
  token: string,
  view: MfView,
  judged: GroupVerdicts,
  outcomes: Map<string, Partial<DuplicateRecord>>,
  claimKeys: Map<string, string[]>,
  summary: DeletionSummary,
): string[] | null {
  const claimed: string[] = [];
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
        // Already gone: nothing to send; settled below like a delete.
        outcomes.set(cid, {
          状態: DELETE_STATE.deleted,
          結果: DELETE_MSG.absent(input.clock.stamp()),
          更新日時: now,
        });
        summary.absent.push(p.journalId);
        continue;
      }
      if (!journal || !unchangedJournal(journal, p.member)) {
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
      if (leavesLineBare(g, journal, judged.alive.get(g.group) ?? [], view, ledger)) {
        claims.push({
          journalId: p.journalId,
          rowNumber: p.rowNumber,
          patch: { 状態: DELETE_STATE.none, 結果: DELETE_MSG.lineLeftBare, 更新日時: now },
        });
        summary.lineLeftBare++;
        continue;
      }
      const found = keysOf(journal, ledger, p.member.keys);
      if (found.tagged && found.now.length === 0) {
        // kicho posted it, yet no 台帳 row holds it (rows deleted, the 台帳 replaced): the settle would have
        // no row to mark 除外, and the line would lose its journal unseen (simulation seed 19).
        claims.push({
          journalId: p.journalId,
          rowNumber: p.rowNumber,
          patch: { 状態: DELETE_STATE.none, 結果: DELETE_MSG.rowless, 更新日時: now },
        });
        summary.rowless++;
        continue;
      }
      const keys = found.all;
      claimKeys.set(cid, keys);
      claims.push({
        journalId: p.journalId,
        rowNumber: p.rowNumber,
        patch: {
          状態: DELETE_STATE.claimed,
          結果: DELETE_MSG.claimed(input.who, input.clock.stamp()),
          台帳のキー: keys.join(', '),
          更新日時: now,
        },
      });
      claimed.push(p.journalId);
    }
  }
  input.sheet.write(table, claims);
  return claimed;
}

/**
 * The confirmed plan: `token` is the plan the dialog showed; if the sheet (or the record) no longer gives it,
 * nothing is deleted. Stale claims are recovered first.
 */
export function deleteDuplicates(input: DeletionInput, token: string): DeletionSummary {
  const summary = recoverDeletions(input);
  if (summary.busy) return summary;
  const record = input.record();
  const plan = planDeletion(input.sheet.read(), record, input.digest);
  if (plan.token !== token) {
    summary.refusedPlan = true;
    summary.messages.push(DELETE_MSG.planChanged);
    return summary;
  }
  for (const r of plan.refused) {
    summary.refusedGroups.push(r.group);
    summary.messages.push(r.message);
  }
  // Look first (one listing for the groups' windows): each group must still hold a journal to keep, and
  // each journal to delete must still be the one the audit recorded.
  let view: MfView = { listed: new Map(), byId: new Map() };
  if (plan.groups.length > 0) {
    try {
      view = lookInMf(
        input.deleter,
        plan.groups.flatMap((g) => [...g.members]),
        plan.planned.map((p) => p.member),
      );
    } catch (e) {
      summary.messages.push(DELETE_MSG.lookupFailed(e instanceof Error ? e.message : String(e)));
      return summary;
    }
  }
  const judged = verdicts(plan.groups, view);
  const outcomes = new Map<string, Partial<DuplicateRecord>>();
  const claimKeys = new Map<string, string[]>();
  // The claim is flushed (by underLock) before anything is sent.
  const locked = underLock(input.lock, () =>
    claimDeletions(input, token, view, judged, outcomes, claimKeys, summary),
  );
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
  const settled = underLock(input.lock, () =>
    settle(input, outcomes, null, { member: memberOf(record), alive: judged.alive, claimKeys }),
  );
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
