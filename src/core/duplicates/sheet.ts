/**
 * The 重複点検 sheet as data (DESIGN §3): one row per journal of a group, located by header, identified by
 * 仕訳ID. A re-run rebuilds the groups and carries over what people wrote (操作, メモ) and every delete in
 * progress or done (状態, 結果, 更新日時): a claim written before a DELETE must survive any re-run. Pure.
 */
import { headerIndex } from '../headers';
import { DUPLICATE_HEADERS, type DuplicateHeader } from '../schema';
import type { DuplicateGroup } from './detect';
import { canonical } from './facts';

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
// The delete plan: what the confirmation dialog lists and deleteDuplicates sends.

export interface PlannedDelete {
  journalId: string;
  group: string;
  rowNumber: number;
  record: DuplicateRecord;
}

export interface DeletionPlan {
  planned: PlannedDelete[];
  /** Groups whose every journal would be gone: nothing of theirs is deleted. */
  refused: { group: string; message: string }[];
  warnings: string[];
  /** Digest of what the plan rests on: the dialog's plan is sent only while the sheet still gives it. */
  token: string;
}

export const PLAN_MSG = {
  wholeGroup: (group: string) =>
    `グループ ${group} の仕訳をすべて削除することになるため、このグループは削除しません。少なくとも1件の操作を「残す」にしてください。`,
  genuine: (id: string, date: string) =>
    `仕訳 ${id}（${date}）は、それぞれ別の明細から作られたグループの仕訳です（本当に別の取引の可能性があります）。通帳で確かめてから削除してください。`,
} as const;

/**
 * Rows chosen for deletion (操作 削除, not deleted or in flight yet). A group keeps at least one journal:
 * if every member would be deleted or is being deleted, none of its rows is planned.
 */
export function planDeletion(table: DuplicateTable, digest: (text: string) => string): DeletionPlan {
  const candidates = table.rows.filter(
    (r) =>
      r.record.操作 === '削除' &&
      (r.record.状態 === DELETE_STATE.none || r.record.状態 === DELETE_STATE.failed),
  );
  const chosen = new Set(candidates);
  const planned: PlannedDelete[] = [];
  const refused: DeletionPlan['refused'] = [];
  const warnings: string[] = [];
  const groups = new Map<string, DuplicateRow[]>();
  for (const r of table.rows) {
    const list = groups.get(String(r.record.グループ)) ?? [];
    list.push(r);
    groups.set(String(r.record.グループ), list);
  }
  for (const [group, rows] of groups) {
    const mine = rows.filter((r) => chosen.has(r));
    if (mine.length === 0) continue;
    const survivors = rows.filter(
      (r) => !chosen.has(r) && r.record.状態 !== DELETE_STATE.deleted && !isDeleteInFlight(r.record),
    );
    if (survivors.length === 0) {
      refused.push({ group, message: PLAN_MSG.wholeGroup(group) });
      continue;
    }
    for (const r of mine) {
      planned.push({ journalId: String(r.record.仕訳ID), group, rowNumber: r.rowNumber, record: r.record });
      if (String(r.record.提案).startsWith('残す（'))
        warnings.push(PLAN_MSG.genuine(String(r.record.仕訳ID), String(r.record.取引日)));
    }
  }
  const basis = JSON.stringify([
    planned.map((p) => [
      p.journalId,
      p.group,
      p.record.取引日,
      p.record.金額,
      p.record.借方,
      p.record.貸方,
      p.record.状態,
    ]),
    refused.map((r) => r.group),
  ]);
  return { planned, refused, warnings, token: digest(basis) };
}
