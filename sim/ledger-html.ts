/**
 * A picture of the 台帳 as a person sees it in Sheets: Japanese headers, frozen header row, and the
 * state colours the sheet's own conditional-format rules give each row (read from the world).
 */
import { escapeHtml } from '../src/core/html';
import { displayValue } from './gas/lib/coerce';
import type { World } from './gas/world';

const SHOWN = [
  '状態',
  '取引日',
  '入出金',
  '金額',
  '摘要',
  '口座',
  '勘定科目',
  '税区分',
  '判定元',
  'MF仕訳ID',
  '試行回数',
  'メモ',
];

export function ledgerHtml(world: World, title: string): string {
  const sheet = world.spreadsheet.sheets.find((s) => s.name === '台帳');
  if (!sheet) return '';
  const cols = new Map<string, number>();
  for (let c = 1; c <= sheet.lastColumn(); c++) cols.set(String(sheet.value(1, c)), c);
  const stateCol = cols.get('状態') ?? 0;
  const colour = (state: string) => {
    for (const rule of sheet.conditionalFormats) {
      const onState = rule.ranges.some((r) => r.c <= stateCol && stateCol < r.c + r.w);
      if (onState && rule.condition.type === 'TEXT_EQUAL_TO' && rule.condition.values[0] === state)
        return rule.format;
    }
    return {};
  };
  const head = SHOWN.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body: string[] = [];
  for (let r = 2; r <= sheet.lastRow(); r++) {
    const state = String(sheet.value(r, stateCol));
    const f = colour(state);
    const style = `${f.background ? `background:${f.background};` : ''}${f.fontColor ? `color:${f.fontColor};` : ''}`;
    const cells = SHOWN.map((h) => {
      const c = cols.get(h);
      // As Sheets shows it: the value through the cell's number format.
      const text =
        c === undefined
          ? ''
          : displayValue(sheet.value(r, c), sheet.meta(r, c)?.numberFormat, world.timeZone);
      const cls = h === '金額' || h === '試行回数' ? ' class="num"' : '';
      return `<td${cls}${h === '状態' ? ` style="${style}"` : ''}>${escapeHtml(text)}</td>`;
    }).join('');
    body.push(`<tr>${cells}</tr>`);
  }
  return `<!doctype html>
<html lang="ja"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
body{font-family:"Noto Sans JP",sans-serif;font-size:13px;margin:16px;color:#202124}
h1{font-size:18px}table{border-collapse:collapse}th,td{border:1px solid #e0e0e0;padding:3px 8px;white-space:nowrap;max-width:360px;overflow:hidden;text-overflow:ellipsis}
thead th{position:sticky;top:0;background:#f3f3f3;font-weight:bold}td.num{text-align:right}
</style></head><body><h1>${escapeHtml(title)}</h1>
<table><thead><tr>${head}</tr></thead><tbody>
${body.join('\n')}
</tbody></table></body></html>
`;
}
