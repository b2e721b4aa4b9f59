/**
 * 「この形式を保存」 (issue 26): a 取込元's layout kept in its 取込形式 cell on the sheet 取込元, where people
 * can read and edit it, and checked like every setting (a value that cannot be read names its cell and
 * stops the import of that source until it is fixed or cleared — never a silent default).
 *
 * The cell holds either a layout's name (三菱UFJ銀行, a generic preset's name) or the columns, 1-based:
 *   列: 日付=1, 摘要=2+3, 出金=4, 入金=5, 残高=6, 見出し=あり
 *   列: 日付=1, 摘要=2, 金額=3, プラス=出金, 見出し=なし
 */
import type { LayoutChoice, ResolvedLayout } from './layouts';
import { layoutIdByName } from './layouts';

export const SAVED_LAYOUT_HEADER = '取込形式';

const COLUMN_PREFIX = '列:';

/** The cell text for a layout the person imported with (null: nothing to keep). */
export function savedLayoutText(layout: ResolvedLayout): string | null {
  if (layout.id !== 'custom') return layout.name;
  if (!('at' in layout.date)) return null;
  const n = (i: number) => String(i + 1);
  const parts = [`日付=${n(layout.date.at)}`, `摘要=${layout.description.map(n).join('+')}`];
  if (layout.kind === 'split') parts.push(`出金=${n(layout.withdrawal)}`, `入金=${n(layout.deposit)}`);
  else parts.push(`金額=${n(layout.amount[0])}`, `プラス=${layout.positive}`);
  if (layout.balance >= 0) parts.push(`残高=${n(layout.balance)}`);
  parts.push(`見出し=${layout.headerAt >= 0 ? 'あり' : 'なし'}`);
  return `${COLUMN_PREFIX} ${parts.join(', ')}`;
}

export type SavedLayout = { ok: true; choice: LayoutChoice } | { ok: false; reason: string };

const EXAMPLE = '例: 「三菱UFJ銀行」、「列: 日付=1, 摘要=2+3, 出金=4, 入金=5, 残高=6, 見出し=あり」';

function columnNumber(v: string): number | null {
  return /^[1-9]\d{0,2}$/.test(v) ? Number(v) : null;
}

/** Reads a 取込形式 cell; null when it is empty (no saved format). */
export function parseSavedLayout(raw: unknown): SavedLayout | null {
  const text = String(raw ?? '')
    .normalize('NFKC')
    .trim();
  if (text === '') return null;
  if (!text.startsWith(COLUMN_PREFIX)) {
    const id = layoutIdByName(text);
    return id
      ? { ok: true, choice: { preset: id } }
      : {
          ok: false,
          reason: `「${text}」という列の並びはありません（対応している銀行・カードの名前か「列: …」の形で書きます。${EXAMPLE}）。`,
        };
  }
  const choice: LayoutChoice = { preset: 'custom', header: true };
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const item of text.slice(COLUMN_PREFIX.length).split(/[,、]/)) {
    const t = item.trim();
    if (t === '') continue;
    const m = /^([^=]+)=(.*)$/.exec(t);
    if (!m) {
      problems.push(`「${t}」は「名前=値」の形ではありません。`);
      continue;
    }
    const name = m[1].trim();
    const value = m[2].trim();
    if (seen.has(name)) problems.push(`「${name}」が 2 回あります。`);
    seen.add(name);
    const col = columnNumber(value);
    switch (name) {
      case '日付':
      case '出金':
      case '入金':
      case '金額':
      case '残高': {
        if (col === null)
          problems.push(`${name}の列「${value}」を読めません（1 から始まる列の番号を書きます）。`);
        const key = {
          日付: 'date',
          出金: 'withdrawal',
          入金: 'deposit',
          金額: 'amount',
          残高: 'balance',
        } as const;
        if (col !== null) choice[key[name]] = col;
        break;
      }
      case '摘要': {
        const cols = value.split('+').map((v) => columnNumber(v.trim()));
        if (cols.length > 2 || cols.some((c) => c === null))
          problems.push(`摘要の列「${value}」を読めません（列の番号、2 列なら「2+3」と書きます）。`);
        else {
          choice.description = cols[0] as number;
          if (cols.length === 2) choice.description2 = cols[1] as number;
        }
        break;
      }
      case 'プラス':
        if (value === '入金' || value === '出金') choice.positive = value;
        else problems.push(`プラスの金額の向き「${value}」を読めません（入金 か 出金 と書きます）。`);
        break;
      case '見出し':
        if (value === 'あり' || value === 'なし') choice.header = value === 'あり';
        else problems.push(`見出し「${value}」を読めません（あり か なし と書きます）。`);
        break;
      default:
        problems.push(
          `「${name}」という項目はありません（日付・摘要・出金・入金・金額・プラス・残高・見出し）。`,
        );
    }
  }
  if (choice.date === undefined) problems.push('日付の列がありません。');
  if (choice.description === undefined && !problems.some((p) => p.startsWith('摘要')))
    problems.push('摘要の列がありません。');
  const split = choice.withdrawal !== undefined || choice.deposit !== undefined;
  if (split && choice.amount !== undefined) problems.push('「金額」と「出金・入金」は一緒に書けません。');
  if (!split && choice.amount === undefined)
    problems.push('金額の列（金額、または出金と入金）がありません。');
  if (split && (choice.withdrawal === undefined || choice.deposit === undefined))
    problems.push('出金と入金の両方の列を書きます。');
  if (choice.amount !== undefined && choice.positive === undefined)
    problems.push('金額が 1 列のときは「プラス=入金」か「プラス=出金」を書きます。');
  if (problems.length > 0) return { ok: false, reason: `${problems.join(' ')}（${EXAMPLE}）` };
  return { ok: true, choice };
}

/** The message for a 取込元 whose saved format cannot be read (names the cell, says what to do). */
export function savedLayoutProblem(source: string, row: number, reason: string): string {
  return `シート「取込元」の ${row} 行目（${source}）の「${SAVED_LAYOUT_HEADER}」を読めません: ${reason} 直すか、空にしてから取り込んでください（空なら列の並びはファイルから判定します）。`;
}
