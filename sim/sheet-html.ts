/**
 * A picture of a system sheet (重複点検, 残高照合) as a person sees it in Sheets: the chosen columns, the row
 * colours the sheet's own conditional-format rules give (`=$K2="…"` rules and text-equal rules), and each
 * embedded chart drawn from its range as an SVG column chart. For the README's pictures (browser tests).
 */
import { escapeHtml } from '../src/core/html';
import { displayValue } from './gas/lib/coerce';
import type { ChartSpec, SheetModel } from './gas/services/sheets-model';
import type { World } from './gas/world';

function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

/** The background and colour a row gets from `=$X2="text"` rules over the whole row. */
function rowStyle(sheet: SheetModel, row: number): string {
  for (const rule of sheet.conditionalFormats) {
    const formula = String(rule.condition.values[0] ?? '');
    const m = /^=\$([A-Z]+)2="(.*)"$/.exec(formula);
    if (!m) continue;
    if (String(sheet.value(row, columnIndex(m[1]))) !== m[2]) continue;
    const f = rule.format;
    return `${f.background ? `background:${f.background};` : ''}${f.fontColor ? `color:${f.fontColor};` : ''}`;
  }
  return '';
}

const PALETTE = ['#1a73e8', '#e8710a', '#188038', '#d93025', '#9334e6', '#12b5cb'];

/** A grouped column chart of the chart's first range: first column the categories, the rest series. */
function chartSvg(sheet: SheetModel, chart: ChartSpec): string {
  const range = chart.ranges[0];
  if (!range) return '';
  const names: string[] = [];
  for (let c = 1; c < range.w; c++) names.push(String(sheet.value(range.r, range.c + c)));
  const categories: string[] = [];
  const values: number[][] = [];
  for (let r = 1; r < range.h; r++) {
    categories.push(String(sheet.value(range.r + r, range.c)));
    values.push(names.map((_, i) => Number(sheet.value(range.r + r, range.c + 1 + i)) || 0));
  }
  const all = values.flat();
  const max = Math.max(1, ...all.map(Math.abs));
  const width = 640;
  const height = 260;
  const top = 36;
  const plot = height - top - 60;
  const zero = top + (Math.max(...all, 0) / (Math.max(...all, 0) - Math.min(...all, 0) || 1)) * plot;
  const scale = plot / (Math.max(...all, 0) - Math.min(...all, 0) || max);
  const group = (width - 80) / Math.max(1, categories.length);
  const bar = Math.max(4, (group - 16) / Math.max(1, names.length));
  const bars: string[] = [];
  values.forEach((vs, i) => {
    vs.forEach((v, k) => {
      const x = 60 + i * group + 8 + k * bar;
      const h = Math.abs(v) * scale;
      const y = v >= 0 ? zero - h : zero;
      bars.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(bar - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}"/>`,
      );
    });
    bars.push(
      `<text x="${(60 + i * group + group / 2).toFixed(1)}" y="${height - 44}" font-size="11" text-anchor="middle">${escapeHtml(categories[i])}</text>`,
    );
  });
  const legend = names
    .map(
      (n, k) =>
        `<rect x="${60 + k * 200}" y="${height - 24}" width="10" height="10" fill="${PALETTE[k % PALETTE.length]}"/><text x="${74 + k * 200}" y="${height - 15}" font-size="11">${escapeHtml(n.replace(/^差額: /, ''))}</text>`,
    )
    .join('');
  const title = escapeHtml(String(chart.options.title ?? ''));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" role="img" aria-label="${title}">
<rect width="100%" height="100%" fill="#fff" stroke="#dadce0"/>
<text x="${width / 2}" y="22" font-size="13" text-anchor="middle" font-weight="bold">${title}</text>
<line x1="56" x2="${width - 16}" y1="${zero.toFixed(1)}" y2="${zero.toFixed(1)}" stroke="#5f6368"/>
${bars.join('\n')}
${legend}
</svg>`;
}

export function sheetHtml(
  world: World,
  name: string,
  title: string,
  shown: readonly string[],
  wide: readonly string[] = [],
): string {
  const sheet = world.spreadsheet.sheets.find((s) => s.name === name);
  if (!sheet) return '';
  const cols = new Map<string, number>();
  for (let c = 1; c <= sheet.lastColumn(); c++)
    if (!cols.has(String(sheet.value(1, c)))) cols.set(String(sheet.value(1, c)), c);
  const head = shown.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body: string[] = [];
  const lastTableRow = (() => {
    const first = cols.get(shown[0]) ?? 1;
    let last = 1;
    for (let r = 2; r <= sheet.lastRow(); r++) if (String(sheet.value(r, first)) !== '') last = r;
    return last;
  })();
  for (let r = 2; r <= lastTableRow; r++) {
    const style = rowStyle(sheet, r);
    const cells = shown
      .map((h) => {
        const c = cols.get(h);
        const raw = c === undefined ? '' : sheet.value(r, c);
        const text = c === undefined ? '' : displayValue(raw, sheet.meta(r, c)?.numberFormat, world.timeZone);
        const cls = typeof raw === 'number' ? ' class="num"' : wide.includes(h) ? ' class="wide"' : '';
        return `<td${cls}>${escapeHtml(text)}</td>`;
      })
      .join('');
    body.push(`<tr style="${style}">${cells}</tr>`);
  }
  const charts = sheet.charts.map((c) => chartSvg(sheet, c)).join('\n');
  return `<!doctype html>
<html lang="ja"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
body{font-family:"Noto Sans JP",sans-serif;font-size:12px;margin:16px;color:#202124}
h1{font-size:16px}table{border-collapse:collapse;margin-bottom:16px}th,td{border:1px solid #e0e0e0;padding:3px 6px;white-space:nowrap;max-width:220px;overflow:hidden;text-overflow:ellipsis;vertical-align:top}
td.wide{white-space:normal;max-width:360px;min-width:240px}
thead th{background:#f3f3f3;font-weight:bold}td.num{text-align:right}
</style></head><body><h1>${escapeHtml(title)}</h1>
<table><thead><tr>${head}</tr></thead><tbody>
${body.join('\n')}
</tbody></table>
${charts}
</body></html>
`;
}
