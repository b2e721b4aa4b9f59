/**
 * What a person does on the spreadsheet, applied to the world directly (people's edits are not
 * executions): type a setting, add rules, edit a 台帳 cell, read a sheet as records.
 */
import type { World } from './gas/world';

function sheet(world: World, name: string) {
  const s = world.spreadsheet.sheets.find((x) => x.name === name);
  if (!s) throw new Error(`no sheet ${name}`);
  return s;
}

function headerColumns(world: World, name: string): Map<string, number> {
  const s = sheet(world, name);
  const cols = new Map<string, number>();
  for (let c = 1; c <= s.lastColumn(); c++) cols.set(String(s.value(1, c)), c);
  return cols;
}

/** Data rows of a sheet as records keyed by header (none when the sheet is gone). */
export function records(world: World, name: string): Record<string, unknown>[] {
  if (!world.spreadsheet.sheets.some((x) => x.name === name)) return [];
  const s = sheet(world, name);
  const cols = headerColumns(world, name);
  const out: Record<string, unknown>[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const rec: Record<string, unknown> = {};
    for (const [h, c] of cols) rec[h] = s.value(r, c);
    out.push(rec);
  }
  return out;
}

/** Types a value into 設定's 値 for `item`. */
export function setSetting(world: World, item: string, value: string): void {
  const s = sheet(world, '設定');
  const cols = headerColumns(world, '設定');
  const itemCol = cols.get('項目') ?? 1;
  const valueCol = cols.get('値') ?? 2;
  for (let r = 2; r <= s.lastRow(); r++) {
    if (s.value(r, itemCol) === item) {
      s.setValue(r, valueCol, value);
      return;
    }
  }
  throw new Error(`no setting ${item}`);
}

/** Appends rows to ルール under their headers. */
export function addRules(world: World, rules: readonly Record<string, unknown>[]): void {
  const s = sheet(world, 'ルール');
  const cols = headerColumns(world, 'ルール');
  for (const rule of rules) {
    const r = s.lastRow() + 1;
    for (const [h, v] of Object.entries(rule)) {
      const c = cols.get(h);
      // A ルール sheet from before issue 27 has no インボイス column: a person copying rules leaves it out.
      if (c === undefined && h === 'インボイス') continue;
      if (c === undefined) throw new Error(`no rule header ${h}`);
      s.setValue(r, c, v as never);
    }
  }
}

/** Sets one cell of the 台帳 row holding `key`. */
export function editLedger(world: World, key: string, header: string, value: unknown): void {
  const s = sheet(world, '台帳');
  const cols = headerColumns(world, '台帳');
  const keyCol = cols.get('キー') as number;
  const col = cols.get(header);
  if (col === undefined) throw new Error(`no ledger header ${header}`);
  for (let r = 2; r <= s.lastRow(); r++) {
    if (s.value(r, keyCol) === key) {
      s.setValue(r, col, value as never);
      return;
    }
  }
  throw new Error(`no row ${key}`);
}

/** A person deletes the 台帳 row holding `key` (rows below move up, as Sheets' 行を削除 does). */
export function deleteLedgerRow(world: World, key: string): void {
  const s = sheet(world, '台帳');
  const keyCol = headerColumns(world, '台帳').get('キー') as number;
  for (let r = 2; r <= s.lastRow(); r++) {
    if (s.value(r, keyCol) === key) {
      s.rows.splice(r - 1, 1);
      return;
    }
  }
  throw new Error(`no row ${key}`);
}

/** Sets one cell of the first row of `name` whose `keyHeader` cell is `keyValue` (e.g. 重複点検 by 仕訳ID). */
export function editRow(
  world: World,
  name: string,
  keyHeader: string,
  keyValue: unknown,
  header: string,
  value: unknown,
): void {
  const s = sheet(world, name);
  const cols = headerColumns(world, name);
  const keyCol = cols.get(keyHeader);
  const col = cols.get(header);
  if (keyCol === undefined || col === undefined)
    throw new Error(`no header ${keyHeader} or ${header} on ${name}`);
  for (let r = 2; r <= s.lastRow(); r++) {
    if (s.value(r, keyCol) === keyValue) {
      s.setValue(r, col, value as never);
      return;
    }
  }
  throw new Error(`no row ${String(keyValue)} on ${name}`);
}

/** Rules that cover most of the fake MF's seeded lines (half-width kana as banks send them). */
export const EXAMPLE_RULES: readonly Record<string, unknown>[] = [
  {
    優先度: 10,
    一致方法: '部分一致',
    キーワード: 'アマゾン',
    勘定科目: '消耗品費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 11,
    一致方法: '部分一致',
    キーワード: 'AMAZON',
    勘定科目: '消耗品費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 20,
    一致方法: '部分一致',
    キーワード: 'タクシー',
    勘定科目: '旅費交通費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 30,
    一致方法: '前方一致',
    キーワード: 'JR',
    勘定科目: '旅費交通費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '帳簿のみ',
    有効: true,
  },
  {
    優先度: 40,
    一致方法: '部分一致',
    キーワード: 'テスウリヨウ',
    勘定科目: '支払手数料',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 50,
    一致方法: '部分一致',
    キーワード: 'スターバックス',
    勘定科目: '会議費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 60,
    一致方法: '部分一致',
    キーワード: 'ヨドバシ',
    勘定科目: '消耗品費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 70,
    一致方法: '前方一致',
    キーワード: 'NTT',
    勘定科目: '通信費',
    税区分: '課税仕入 10%',
    自動承認: 'はい',
    インボイス: '適格',
    有効: true,
  },
  {
    優先度: 80,
    一致方法: '前方一致',
    キーワード: 'フリコミ',
    入出金: '入金',
    勘定科目: '売掛金',
    自動承認: 'いいえ',
    有効: true,
  },
];

/**
 * Types `text` into a cell as a person does in the Sheets window: Sheets reads it as typed — a number, a
 * date, a `=` formula, `'` for text — the rules SpreadsheetApp's setValue follows too (USER_ENTERED,
 * lib/coerce.ts), in the cell's own number format.
 */
export function typeInto(world: World, name: string, row: number, column: number, text: string): void {
  const s = sheet(world, name);
  const stored = world.spreadsheet.coerce(text, s, row, column);
  s.setValue(row, column, stored.value);
  s.updateMeta(row, column, {
    formula: stored.formula,
    ...(stored.numberFormat && !s.meta(row, column)?.numberFormat
      ? { numberFormat: stored.numberFormat }
      : {}),
  });
}
