/**
 * The 重複点検 sheet as data (DESIGN §3): one row per journal of a group, located by header, identified by
 * 仕訳ID. A re-run rebuilds the groups and carries over what people wrote (操作, メモ) and every delete in
 * progress or done (状態, 結果, 更新日時): a claim written before a DELETE must survive any re-run. Pure.
 */
import { headerIndex } from '../headers';
import { DUPLICATE_HEADERS, type DuplicateHeader } from '../schema';
import type { DuplicateGroup } from './detect';
import { canonical } from './facts';
import { type RecordedMember, type RecordProblem, RecordView } from './record';

export type DuplicateRecord = Record<DuplicateHeader, string | number>;

export interface DuplicateRow {
  rowNumber: number;
  record: DuplicateRecord;
}

export interface DuplicateTable {
  columns: Map<string, number>;
  width: number;
  rows: DuplicateRow[];
}

/** 操作 people choose. */
export const DUPLICATE_OPERATIONS = ['残す', '削除'] as const;

/** 状態 of a row's delete (empty: nothing asked or done). */
export const DELETE_STATE = {
  none: '',
  claimed: '削除中',
  deleted: '削除済み',
  unknown: '不明',
  failed: '失敗',
} as const;

/** Columns people write: kept across re-runs, never overwritten. */
export const DUPLICATE_PEOPLE_COLUMNS: ReadonlySet<string> = new Set(['操作', 'メモ']);

/** System columns that belong to a delete (carried across re-runs). */
const DELETE_COLUMNS = ['状態', '結果', '更新日時'] as const;

function text(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Object.prototype.toString.call(value) === '[object Date]') {
    const d = value as Date;
    const pad = (n: number) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  }
  return String(value);
}

export function emptyDuplicateRecord(): DuplicateRecord {
  return Object.fromEntries(DUPLICATE_HEADERS.map((h) => [h, ''])) as DuplicateRecord;
}

/** The sheet's values (one getValues) as rows; rows without a 仕訳ID are not journals (notes, blanks). */
export function parseDuplicateSheet(values: readonly (readonly unknown[])[]): DuplicateTable {
  const header = values[0] ?? [];
  const columns = headerIndex(header);
  const rows: DuplicateRow[] = [];
  for (let i = 1; i < values.length; i++) {
    const record = emptyDuplicateRecord();
    for (const h of DUPLICATE_HEADERS) {
      const col = columns.get(h);
      const v = col === undefined ? '' : values[i][col];
      record[h] = h === '金額' && typeof v === 'number' ? v : text(v).trim() === '' ? '' : text(v);
    }
    if (String(record.仕訳ID).trim() === '') continue;
    rows.push({ rowNumber: i + 1, record });
  }
  return { columns, width: header.length, rows };
}

export function isDeleteInFlight(r: DuplicateRecord): boolean {
  return r.状態 === DELETE_STATE.claimed || r.状態 === DELETE_STATE.unknown;
}

/**
 * The sheet after a new audit: the groups found now, each row carrying its journal's 操作 and メモ and any
 * delete state from the sheet; rows whose delete is in flight, unknown or done stay even when their
 * journal is no longer in a group (a deleted journal is not listed any more).
 */
export function auditRecords(
  groups: readonly DuplicateGroup[],
  existing: readonly DuplicateRow[],
): DuplicateRecord[] {
  const old = new Map<string, DuplicateRecord>();
  for (const r of existing) old.set(canonical(String(r.record.仕訳ID)), r.record);
  const out: DuplicateRecord[] = [];
  const placed = new Set<string>();
  const byGroup = new Map<string, DuplicateRecord[]>();
  for (const r of existing) {
    const s = r.record.状態;
    if (s === DELETE_STATE.claimed || s === DELETE_STATE.unknown || s === DELETE_STATE.deleted) {
      const list = byGroup.get(String(r.record.グループ)) ?? [];
      list.push(r.record);
      byGroup.set(String(r.record.グループ), list);
    }
  }
  const keepOld = (label: string) => {
    for (const r of byGroup.get(label) ?? []) {
      const id = canonical(String(r.仕訳ID));
      if (placed.has(id)) continue;
      placed.add(id);
      out.push({ ...r });
    }
  };
  for (const g of groups) {
    for (const m of g.members) {
      const f = m.facts;
      const prev = old.get(f.cid);
      const record: DuplicateRecord = {
        ...emptyDuplicateRecord(),
        グループ: g.anchor,
        仕訳ID: f.id,
        取引日: f.date,
        金額: f.amount,
        借方: f.debitLabel,
        貸方: f.creditLabel,
        摘要: f.remark,
        作成元: f.originLabel,
        推定原因: g.cause,
        確認すること: g.check,
        提案: m.proposal,
        台帳のキー: f.ledgerKeys.join(', '),
        操作: prev?.操作 ?? '',
        メモ: prev?.メモ ?? '',
      };
      // What a delete did (or found) stays with the journal's row, including "not deleted, confirm again".
      if (prev) for (const h of DELETE_COLUMNS) record[h] = prev[h];
      placed.add(f.cid);
      out.push(record);
    }
    keepOld(g.anchor);
  }
  for (const label of byGroup.keys()) keepOld(label);
  return out;
}

// ---------------------------------------------------------------------------------------------
// The delete plan: what the confirmation dialog lists and deleteDuplicates sends. The groups, their journals
// and how each looked come from the audit's record (record.ts); the sheet gives only the rows set to 削除.

export interface PlannedDelete {
  journalId: string;
  group: string;
  rowNumber: number;
  /** The journal as the audit recorded it (what the dialog shows and MF is compared with). */
  member: RecordedMember;
}

/** A recorded group some of whose journals are chosen: the rest must keep at least one in MF. */
export interface PlannedGroup {
  group: string;
  members: readonly RecordedMember[];
  chosen: PlannedDelete[];
  /** Recorded journals of the group not chosen, not deleted and not being deleted. */
  survivors: RecordedMember[];
}

export interface PlanRefusal {
  group: string;
  /** Sheet rows the reason is written to (結果). */
  rows: number[];
  message: string;
}

export interface DeletionPlan {
  planned: PlannedDelete[];
  groups: PlannedGroup[];
  /** Groups nothing of which is deleted, and why (naming the sheet rows). */
  refused: PlanRefusal[];
  warnings: string[];
  /** The audit the plan rests on (null: no usable record). */
  audit: string | null;
  /** Digest of what the plan rests on: the dialog's plan is sent only while the sheet still gives it. */
  token: string;
}

const at = (row: number) => `シート「重複点検」の ${row} 行目`;

export const PLAN_MSG = {
  wholeGroup: (group: string) =>
    `グループ ${group} の仕訳をすべて削除することになるため、このグループは削除しません。少なくとも1件の操作を「残す」にしてください。`,
  genuine: (id: string, date: string) =>
    `仕訳 ${id}（${date}）は、それぞれ別の明細から作られたグループの仕訳です（本当に別の取引の可能性があります）。通帳で確かめてから削除してください。`,
  noRecord: (problem: RecordProblem) =>
    `${problem === 'none' ? 'この版の kicho ではまだ重複点検をしていない' : '重複点検の記録（非表示のシート「重複点検記録」）が見つからないか、点検のあとで書き換えられている'}ため、何も削除しません。もう一度「重複点検」を実行してから、削除する仕訳を選び直してください（操作とメモは引き継ぎます）。`,
  notRecorded: (row: number, id: string, group: string) =>
    `${at(row)}の仕訳 ${id} は、最後の重複点検で見つけた仕訳ではありません（行を貼り付けたか、仕訳ID を書き換えた可能性があります）。その行を元に戻すか消してから、もう一度「重複を削除」を開いてください。新しく調べるときは「重複点検」を実行してください。グループ ${group} は削除しません。`,
  moved: (row: number, id: string, label: string, recorded: string) =>
    `${at(row)}の仕訳 ${id} は、重複点検ではグループ ${recorded} の仕訳です（この行のグループは「${label}」）。行を別のグループに移したか、グループを書き換えた可能性があります。グループを「${recorded}」に戻すか、もう一度「重複点検」を実行してください。グループ ${label === recorded ? recorded : `${label} と ${recorded}`} は削除しません。`,
  copied: (rows: readonly number[], id: string, group: string) =>
    `シート「重複点検」の ${rows.join('・')} 行目に同じ仕訳 ${id} があります（行をコピーした可能性があります）。余分な行を消してから、もう一度「重複を削除」を開いてください。グループ ${group} は削除しません。`,
} as const;

function isCandidate(r: DuplicateRecord): boolean {
  return r.操作 === '削除' && (r.状態 === DELETE_STATE.none || r.状態 === DELETE_STATE.failed);
}

/**
 * Rows chosen for deletion (操作 削除, not deleted or in flight yet), checked against the audit's record:
 * a row whose journal the record does not hold, whose グループ is not the record's, or whose journal is on
 * two rows is refused with its row named, and so is every group it touches. A group keeps at least one
 * recorded journal: if every one would be deleted or is being deleted, none of its rows is planned.
 */
export function planDeletion(
  table: DuplicateTable,
  record: RecordView | RecordProblem,
  digest: (text: string) => string,
): DeletionPlan {
  const candidates = table.rows.filter((r) => isCandidate(r.record));
  const planned: PlannedDelete[] = [];
  const groups: PlannedGroup[] = [];
  const refused: PlanRefusal[] = [];
  const warnings: string[] = [];
  const token = (audit: string | null) =>
    digest(
      JSON.stringify([
        audit,
        planned.map((p) => [
          p.journalId,
          p.group,
          p.member.date,
          p.member.amount,
          p.member.debit,
          p.member.credit,
        ]),
        refused.map((r) => [r.group, r.message]),
      ]),
    );
  if (!(record instanceof RecordView)) {
    if (candidates.length > 0)
      refused.push({
        group: '',
        rows: candidates.map((r) => r.rowNumber),
        message: PLAN_MSG.noRecord(record),
      });
    return { planned, groups, refused, warnings, audit: null, token: token(null) };
  }
  // Every row that names a journal is checked, not only the chosen ones: a row moved into a group or
  // pasted there would make a person believe that group keeps a journal it does not.
  const rowsOf = new Map<string, DuplicateRow[]>();
  for (const r of table.rows) {
    const cid = canonical(String(r.record.仕訳ID));
    rowsOf.set(cid, [...(rowsOf.get(cid) ?? []), r]);
  }
  const blocked = new Map<string, PlanRefusal[]>();
  const block = (groupsHit: readonly string[], rows: number[], message: string) => {
    const refusal = { group: groupsHit.join('、'), rows, message };
    for (const g of groupsHit) blocked.set(g, [...(blocked.get(g) ?? []), refusal]);
  };
  for (const r of table.rows) {
    const label = String(r.record.グループ);
    const id = String(r.record.仕訳ID);
    const member = record.member(id);
    // A delete done before this version's record (history): never chosen again, nothing to check.
    if (!member && r.record.状態 === DELETE_STATE.deleted) continue;
    if (!member) {
      block([label], [r.rowNumber], PLAN_MSG.notRecorded(r.rowNumber, id, label));
      continue;
    }
    if (member.group !== label) {
      block(
        [...new Set([label, member.group])],
        [r.rowNumber],
        PLAN_MSG.moved(r.rowNumber, id, label, member.group),
      );
      continue;
    }
    const same = rowsOf.get(canonical(id)) ?? [];
    if (same.length > 1 && same[0] === r)
      block(
        [member.group],
        same.map((x) => x.rowNumber),
        PLAN_MSG.copied(
          same.map((x) => x.rowNumber),
          id,
          member.group,
        ),
      );
  }
  const chosenByGroup = new Map<string, DuplicateRow[]>();
  for (const r of candidates) {
    const label = String(r.record.グループ);
    chosenByGroup.set(label, [...(chosenByGroup.get(label) ?? []), r]);
  }
  for (const [group, rows] of chosenByGroup) {
    const reasons = blocked.get(group);
    if (reasons) {
      // Each reason names its own rows; the chosen rows of the group get it too.
      for (const reason of reasons)
        refused.push({
          group,
          rows: [...new Set([...reason.rows, ...rows.map((r) => r.rowNumber)])],
          message: reason.message,
        });
      continue;
    }
    const members = record.group(group);
    const chosen = new Set(rows.map((r) => canonical(String(r.record.仕訳ID))));
    const survivors = members.filter((m) => {
      const cid = canonical(m.id);
      if (chosen.has(cid)) return false;
      // A journal the sheet shows deleted or being deleted does not keep the group (the safe reading).
      return !(rowsOf.get(cid) ?? []).some(
        (r) => r.record.状態 === DELETE_STATE.deleted || isDeleteInFlight(r.record),
      );
    });
    if (survivors.length === 0) {
      refused.push({ group, rows: rows.map((r) => r.rowNumber), message: PLAN_MSG.wholeGroup(group) });
      continue;
    }
    const picked: PlannedDelete[] = [];
    for (const r of rows) {
      const member = record.member(String(r.record.仕訳ID)) as RecordedMember;
      picked.push({ journalId: member.id, group, rowNumber: r.rowNumber, member });
      if (member.proposal.startsWith('残す（')) warnings.push(PLAN_MSG.genuine(member.id, member.date));
    }
    planned.push(...picked);
    groups.push({ group, members, chosen: picked, survivors });
  }
  return {
    planned,
    groups,
    refused,
    warnings,
    audit: record.record.audit,
    token: token(record.record.audit),
  };
}

/** What the archive must leave on the 台帳 while a delete is in flight (issue 25, simulation seed 199). */
export interface DeletionHold {
  /** 台帳 keys named by a 重複点検 row whose delete is 削除中 or 不明. */
  keys: Set<string>;
  /** Journals whose delete is 削除中 or 不明. */
  journals: Set<string>;
}

/** The headers the hold is read by; a sheet with rows but without one of them cannot be read safely. */
const HOLD_HEADERS = ['仕訳ID', '状態', '台帳のキー'] as const;

/**
 * Rows 重複を削除 may still settle: its claim (削除中) is written before the DELETE and its settle finds the
 * 台帳 row by key afterwards, so an archive run in between must not move that row away (the settle would
 * find nothing, and the row would stay 完了 in the archive with a journal MF no longer has). `null` values:
 * no 重複点検 sheet. `missing` names the headers a sheet with rows lacks (a person renamed one).
 */
export function deletionHold(
  values: readonly (readonly unknown[])[] | null,
): { hold: DeletionHold; missing?: undefined } | { missing: string[]; hold?: undefined } {
  const hold: DeletionHold = { keys: new Set(), journals: new Set() };
  if (!values || values.length < 2) return { hold };
  const columns = headerIndex(values[0] ?? []);
  const hasRows = values.slice(1).some((row) => row.some((v) => text(v).trim() !== ''));
  const missing = HOLD_HEADERS.filter((h) => !columns.has(h));
  if (missing.length > 0) return hasRows ? { missing } : { hold };
  for (const row of parseDuplicateSheet(values).rows) {
    if (!isDeleteInFlight(row.record)) continue;
    hold.journals.add(String(row.record.仕訳ID).trim());
    for (const key of String(row.record.台帳のキー).split(',')) if (key.trim()) hold.keys.add(key.trim());
  }
  return { hold };
}
