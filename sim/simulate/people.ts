/**
 * People on the 台帳, between service calls of the executions: what they type is applied to the
 * spreadsheet at once (people's edits are not buffered), and remembered so the invariants can check
 * that the system never overwrote it.
 */
import type { World } from '../gas/world';
import type { PersonAct } from './scenario';

/** Names as in the fake MF's masters (sim/mf/seed-catalog.ts). */
export const ACCOUNTS = [
  '消耗品費',
  '雑費',
  '会議費',
  '旅費交通費',
  '通信費',
  '支払手数料',
  '新聞図書費',
] as const;
const TAX = '課税仕入 10%';
const STRAY_OPS = ['承認', '再試行', '除外'] as const;
const SORT_COLUMNS = ['金額', '取引日', '摘要', '状態', 'キー', '口座', '勘定科目'] as const;

/** What people typed into people-owned columns, per key (the last value they typed). */
export type Typed = Map<string, Partial<Record<'勘定科目' | '税区分' | '操作', string>>>;

function ledger(world: World) {
  return world.spreadsheet.sheets.find((s) => s.name === '台帳');
}

function columns(world: World): Map<string, number> {
  const s = ledger(world);
  const cols = new Map<string, number>();
  if (!s) return cols;
  for (let c = 1; c <= s.lastColumn(); c++) cols.set(String(s.value(1, c)), c);
  return cols;
}

interface RowRef {
  row: number;
  key: string;
  state: string;
}

function rows(world: World, cols: Map<string, number>): RowRef[] {
  const s = ledger(world);
  const keyCol = cols.get('キー');
  const stateCol = cols.get('状態');
  if (!s || keyCol === undefined || stateCol === undefined) return [];
  const out: RowRef[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const key = String(s.value(r, keyCol));
    if (key !== '') out.push({ row: r, key, state: String(s.value(r, stateCol)) });
  }
  return out;
}

/** Applies one act; returns a short description, or null when no row fits it. */
export function act(world: World, a: PersonAct, typed: Typed): string | null {
  const s = ledger(world);
  if (!s) return null;
  const cols = columns(world);
  const all = rows(world, cols);
  const type = (r: RowRef, header: '勘定科目' | '税区分' | '操作', value: string) => {
    const c = cols.get(header);
    if (c === undefined) return;
    s.setValue(r.row, c, value);
    typed.set(r.key, { ...typed.get(r.key), [header]: value });
  };
  const choose = (states: readonly string[], pick: number): RowRef | null => {
    const fit = all.filter((r) => states.includes(r.state));
    return fit.length === 0 ? null : fit[pick % fit.length];
  };
  switch (a.k) {
    case 'approve': {
      const r = choose(['要確認', '未判定'], a.pick);
      if (!r) return null;
      type(r, '勘定科目', ACCOUNTS[a.account % ACCOUNTS.length]);
      if (a.tax) type(r, '税区分', TAX);
      type(r, '操作', '承認');
      return `承認 ${r.key} (${r.state})`;
    }
    case 'exclude': {
      const r = choose(['未判定', '要確認', '送信待ち', '失敗'], a.pick);
      if (!r) return null;
      type(r, '操作', '除外');
      return `除外 ${r.key} (${r.state})`;
    }
    case 'retry': {
      const r = choose(['失敗'], a.pick);
      if (!r) return null;
      type(r, '勘定科目', ACCOUNTS[a.account % ACCOUNTS.length]);
      type(r, '操作', '再試行');
      return `再試行 ${r.key}`;
    }
    case 'edit': {
      const r = choose(['未判定', '要確認', '送信待ち', '送信中', '完了', '不明', '失敗'], a.pick);
      if (!r) return null;
      type(r, '勘定科目', ACCOUNTS[a.account % ACCOUNTS.length]);
      return `勘定科目 ${r.key} (${r.state})`;
    }
    case 'stray': {
      const r = choose(['送信中', '完了', '不明', '除外', '送信待ち'], a.pick);
      if (!r) return null;
      type(r, '操作', STRAY_OPS[a.op % STRAY_OPS.length]);
      return `stray ${STRAY_OPS[a.op % STRAY_OPS.length]} ${r.key} (${r.state})`;
    }
    case 'sort': {
      const header = SORT_COLUMNS[a.column % SORT_COLUMNS.length];
      const c = cols.get(header);
      const last = s.lastRow();
      if (c === undefined || last < 3) return null;
      const data = s.rows.slice(1, last);
      const value = (row: (typeof data)[number]) => row?.v[c - 1] ?? '';
      data.sort((x, y) => {
        const a1 = value(x);
        const b1 = value(y);
        const d =
          typeof a1 === 'number' && typeof b1 === 'number'
            ? a1 - b1
            : String(a1).localeCompare(String(b1), 'ja');
        return a.descending ? -d : d;
      });
      s.rows.splice(1, data.length, ...data);
      return `sort ${header}${a.descending ? ' desc' : ''}`;
    }
  }
}
