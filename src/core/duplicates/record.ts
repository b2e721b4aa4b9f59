/**
 * What a 重複点検 found, as kicho recorded it (issue 25): every group, its journals, how each looked in MF
 * and which 台帳 rows it belonged to. 重複を削除 takes the groups and the journals from here, never from the
 * 重複点検 sheet: people copy, move and retype that sheet's rows, and a group must never lose its last
 * journal because a row claimed to belong where it does not. The sheet supplies only the person's choice.
 *
 * Where it lives: the record of a large audit (thousands of journals, a few hundred bytes each) is far
 * beyond a script property's 9 KB and the store's 500 KB (reference/gas-platform.md §5.1), so its text goes
 * into the hidden sheet 重複点検記録 (column A, one cell per 40,000 characters) and only its SHA-256, its
 * id and its size into script property KICHO_DUPLICATE_AUDIT. A person may unhide that sheet and edit or
 * delete it; the digest then no longer matches and nothing is deleted until a new audit. Pure.
 */
import { sha256Hex } from '../sha256';
import type { DuplicateGroup } from './detect';
import { canonical } from './facts';

export const DUPLICATE_RECORD_SHEET = '重複点検記録';
export const DUPLICATE_RECORD_PROPERTY = 'KICHO_DUPLICATE_AUDIT';

/** Characters of the record's text per cell (Sheets holds 50,000 a cell; room for the apostrophe). */
export const RECORD_CELL_CHARS = 40_000;

/** One journal of a recorded group, as the audit saw it in MF. */
export interface RecordedMember {
  id: string;
  group: string;
  date: string;
  amount: number;
  debit: string;
  credit: string;
  remark: string;
  origin: string;
  proposal: string;
  /** 台帳 keys the journal belonged to (MF仕訳ID, its tag, its statement line). */
  keys: string[];
}

export interface AuditRecord {
  v: 1;
  /** The audit's own id: its time and a digest of what it found. */
  audit: string;
  at: string;
  start: string;
  end: string;
  members: RecordedMember[];
}

/** What the property keeps: enough to find the text and to know it is the audit's own. */
export interface RecordStamp {
  audit: string;
  at: string;
  cells: number;
  digest: string;
  journals: number;
}

export type RecordProblem = 'none' | 'missing' | 'changed';

/** The record with its lookups. */
export class RecordView {
  readonly byCid = new Map<string, RecordedMember>();
  readonly byGroup = new Map<string, RecordedMember[]>();
  constructor(readonly record: AuditRecord) {
    for (const m of record.members) {
      this.byCid.set(canonical(m.id), m);
      const list = this.byGroup.get(m.group);
      if (list) list.push(m);
      else this.byGroup.set(m.group, [m]);
    }
  }
  member(journalId: string): RecordedMember | undefined {
    return this.byCid.get(canonical(journalId));
  }
  group(label: string): readonly RecordedMember[] {
    return this.byGroup.get(label) ?? [];
  }
}

/**
 * The record of an audit: the groups found now, plus — for journals whose rows the sheet carries over (a
 * delete in flight, unknown or done) and which are in no group now — their entries from the previous record,
 * unchanged (a delete claimed under that record is settled by it). Nothing is taken from the sheet.
 */
export function recordOf(
  groups: readonly DuplicateGroup[],
  carried: readonly string[],
  previous: RecordView | null,
  meta: { at: string; start: string; end: string },
): AuditRecord {
  const members: RecordedMember[] = [];
  const placed = new Set<string>();
  for (const g of groups) {
    for (const m of g.members) {
      const f = m.facts;
      placed.add(f.cid);
      members.push({
        id: f.id,
        group: g.anchor,
        date: f.date,
        amount: f.amount,
        debit: f.debitLabel,
        credit: f.creditLabel,
        remark: f.remark,
        origin: f.originLabel,
        proposal: m.proposal,
        keys: [...f.ledgerKeys],
      });
    }
  }
  for (const id of carried) {
    const cid = canonical(id);
    if (placed.has(cid)) continue;
    const old = previous?.byCid.get(cid);
    if (!old) continue;
    placed.add(cid);
    members.push({ ...old, keys: [...old.keys] });
  }
  const found = sha256Hex(JSON.stringify(members)).slice(0, 12);
  return { v: 1, audit: `${meta.at}/${found}`, at: meta.at, start: meta.start, end: meta.end, members };
}

/** The record as the cells of column A, and the stamp that vouches for them. */
export function formatRecord(record: AuditRecord): { cells: string[]; stamp: RecordStamp } {
  const text = JSON.stringify(record);
  const cells: string[] = [];
  for (let i = 0; i < text.length; i += RECORD_CELL_CHARS) cells.push(text.slice(i, i + RECORD_CELL_CHARS));
  return {
    cells,
    stamp: {
      audit: record.audit,
      at: record.at,
      cells: cells.length,
      digest: sha256Hex(text),
      journals: record.members.length,
    },
  };
}

export function parseStamp(value: string | null): RecordStamp | null {
  if (value === null) return null;
  try {
    const s = JSON.parse(value);
    if (
      s &&
      typeof s.audit === 'string' &&
      typeof s.digest === 'string' &&
      Number.isInteger(s.cells) &&
      s.cells > 0
    )
      return {
        audit: s.audit,
        at: String(s.at ?? ''),
        cells: s.cells,
        digest: s.digest,
        journals: Number(s.journals) || 0,
      };
  } catch (_e) {
    // An unreadable stamp vouches for nothing.
  }
  return null;
}

function isMember(m: unknown): m is RecordedMember {
  const x = m as RecordedMember;
  return (
    !!x &&
    typeof x.id === 'string' &&
    typeof x.group === 'string' &&
    typeof x.date === 'string' &&
    typeof x.amount === 'number' &&
    Array.isArray(x.keys)
  );
}

/**
 * The record from column A's cells, or why there is none: no stamp (no audit by this version), no sheet or
 * too few cells (deleted), or a text whose digest is not the stamp's (edited, or another audit's).
 */
export function parseRecord(
  cells: readonly unknown[] | null,
  stamp: RecordStamp | null,
): { view: RecordView } | { problem: RecordProblem } {
  if (!stamp) return { problem: 'none' };
  if (!cells || cells.length < stamp.cells) return { problem: 'missing' };
  const text = cells
    .slice(0, stamp.cells)
    .map((c) => (c === null || c === undefined ? '' : String(c)))
    .join('');
  if (sha256Hex(text) !== stamp.digest) return { problem: 'changed' };
  try {
    const record = JSON.parse(text) as AuditRecord;
    if (record?.v !== 1 || record.audit !== stamp.audit || !Array.isArray(record.members))
      return { problem: 'changed' };
    if (!record.members.every(isMember)) return { problem: 'changed' };
    return { view: new RecordView(record) };
  } catch (_e) {
    return { problem: 'changed' };
  }
}
