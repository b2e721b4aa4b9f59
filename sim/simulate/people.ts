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
export type Typed = Map<string, Partial<Record<'勘定科目' | '税区分' | '操作' | 'インボイス', string>>>;

/**
 * What people did to the 台帳 beyond its people-owned columns (issue 14), for the invariants: rows
 * they deleted are not the system's deletions, keys they broke are theirs, a 完了 they typed is not a
 * journal, and a damaged sheet is to be repaired the way the runs' messages say.
 */
export interface Marks {
  /** Keys of rows people deleted (or whose key they changed away), and keys they made by changing one. */
  deleted: Set<string>;
  /** 状態 people typed, per key (the last value). */
  typedState: Map<string, string>;
  /**
   * Keys people made by changing one, and on how many rows: the same slip twice (an event resent after
   * its row's key was changed, then changed again) puts one key on two rows, both the person's.
   */
  made: Map<string, number>;
  /** Whether people damaged the sheet (a header, the sheet itself) since the last repair. */
  damaged: boolean;
  /** Whether people deleted rows or the sheet since the last 台帳を復元. */
  lostRows: boolean;
}

export function newMarks(): Marks {
  return { deleted: new Set(), typedState: new Map(), made: new Map(), damaged: false, lostRows: false };
}

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
  // A person sees their rows even when a header was cleared: 初期設定 lays キー and 状態 out first.
  const keyCol = cols.get('キー') ?? 1;
  const stateCol = cols.get('状態') ?? 2;
  if (!s || keyCol === undefined || stateCol === undefined) return [];
  const out: RowRef[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const key = String(s.value(r, keyCol));
    if (key !== '') out.push({ row: r, key, state: String(s.value(r, stateCol)) });
  }
  return out;
}

const STATE_WORDS = ['', '完了', '済み'] as const;

/** One character of a key changed (a slip of the keyboard), still looking like a key. */
function slip(key: string): string {
  const last = key.slice(-1);
  return `${key.slice(0, -1)}${last === 'A' ? 'B' : last === '0' ? '1' : /[0-9]/.test(last) ? '0' : 'A'}`;
}

/** Applies one act; returns a short description, or null when no row fits it. */
export function act(world: World, a: PersonAct, typed: Typed, marks: Marks = newMarks()): string | null {
  if (a.k === 'ledger-sheet') {
    const sheet = ledger(world);
    if (!sheet) return null;
    if (a.how === 'rename') {
      if (world.spreadsheet.sheets.some((x) => x.name === '台帳のコピー')) return null;
      sheet.name = '台帳のコピー';
    } else {
      for (const r of rows(world, columns(world))) {
        marks.deleted.add(r.key);
        typed.delete(r.key);
      }
      world.spreadsheet.sheets = world.spreadsheet.sheets.filter((x) => x !== sheet);
      marks.lostRows = true;
    }
    marks.damaged = true;
    return `台帳 ${a.how === 'rename' ? 'renamed' : 'deleted'}`;
  }
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
    case 'clear-header': {
      const width = s.lastColumn();
      if (width === 0) return null;
      if (a.whole) {
        for (let c = 1; c <= width; c++) s.setValue(1, c, '');
        marks.damaged = true;
        return 'header row cleared';
      }
      const named = [...cols].filter(([h]) => h !== '');
      if (named.length === 0) return null;
      const [header, c] = named[a.column % named.length];
      s.setValue(1, c, '');
      marks.damaged = true;
      return `header ${header} cleared`;
    }
    case 'edit-state': {
      const to = STATE_WORDS[a.to];
      const r =
        to === '完了'
          ? choose(['送信待ち'], a.pick)
          : choose(['未判定', '要確認', '送信待ち', '送信中', '完了', '不明', '失敗'], a.pick);
      const c = cols.get('状態');
      if (!r || c === undefined) return null;
      s.setValue(r.row, c, to);
      marks.typedState.set(r.key, to);
      return `状態 ${r.key} (${r.state}) → 「${to}」`;
    }
    case 'edit-key': {
      const r = choose(['未判定', '要確認', '送信待ち', '送信中', '完了', '不明', '失敗', '除外'], a.pick);
      const c = cols.get('キー');
      if (!r || c === undefined) return null;
      const next = slip(r.key);
      s.setValue(r.row, c, next);
      marks.deleted.add(r.key);
      // The broken key is the person's: when the system gives the row its key back, it goes.
      marks.deleted.add(next);
      marks.made.set(next, (marks.made.get(next) ?? 0) + 1);
      const t = typed.get(r.key);
      typed.delete(r.key);
      if (t) typed.set(next, t);
      return `キー ${r.key} → ${next} (${r.state})`;
    }
    case 'edit-field': {
      const r = choose(['未判定', '要確認', '送信待ち'], a.pick);
      const c = cols.get(a.field);
      if (!r || c === undefined) return null;
      const v = s.value(r.row, c);
      const next =
        a.field === '金額'
          ? typeof v === 'number'
            ? v * 10
            : 1000
          : /^\d{4}-\d{2}-\d{2}$/.test(String(v))
            ? `${String(v).slice(0, 8)}${String(v).slice(8) === '28' ? '27' : '28'}`
            : '2026-05-28';
      s.setValue(r.row, c, next);
      return `${a.field} ${r.key} ${String(v)} → ${next} (${r.state})`;
    }
    case 'delete-rows': {
      if (all.length === 0) return null;
      const first = all[a.pick % all.length];
      const gone = all.filter((r) => r.row >= first.row && r.row < first.row + a.count);
      for (const r of gone) {
        marks.deleted.add(r.key);
        typed.delete(r.key);
        marks.typedState.delete(r.key);
      }
      // A person deletes rows: everything below moves up.
      s.rows.splice(first.row - 1, a.count);
      if (s.maxRows > a.count + 1) s.maxRows -= a.count;
      marks.lostRows = true;
      return `deleted ${a.count} row(s) from ${first.row} (${gone.map((r) => r.state).join(',')})`;
    }
  }
}
