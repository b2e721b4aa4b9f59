/**
 * CSV warnings for the dry run (DESIGN §5 Guards): double counting against MF's connected accounts,
 * sources whose counter account cannot be posted, and days imported by more than one import.
 */
import { isCsvKey } from '../keys';
import type { LedgerRow } from '../ledger';
import { type Masters, resolvePosting } from '../masters';
import { parseSavedLayout, savedLayoutProblem } from './saved-layout';
import { type CsvSource, doubleCountWarnings, findSource } from './sources';

const SETTLED = new Set(['完了', '除外']);

export function csvDryRunWarnings(
  rows: readonly LedgerRow[],
  sources: readonly CsvSource[],
  masters: Masters,
): string[] {
  // A saved format that cannot be read is a setting problem: named wherever settings are checked.
  const layoutProblems = sources.flatMap((s) => {
    const saved = parseSavedLayout(s.取込形式);
    return saved && !saved.ok ? [savedLayoutProblem(s.name, s.row ?? 0, saved.reason)] : [];
  });
  const open = rows.filter((r) => isCsvKey(r.record.キー) && !SETTLED.has(r.record.状態));
  if (open.length === 0) return layoutProblems;
  const names = [...new Set(open.map((r) => r.record.口座))];
  const warnings: string[] = [...layoutProblems];
  const used: CsvSource[] = [];
  for (const name of names) {
    const s = findSource(sources, name);
    if (!s) {
      warnings.push(
        `取込元「${name}」がシート「取込元」にありません。この取込元の行は登録できません。取込元に名前と勘定科目を追加してください。`,
      );
      continue;
    }
    used.push(s);
    const counter = resolvePosting(masters, {
      勘定科目: s.勘定科目,
      補助科目: s.補助科目,
      税区分: '',
      取引先: '',
    });
    if (!counter.ok)
      warnings.push(`取込元「${s.name}」の相手科目を登録に使えません: ${counter.problems.join(' ')}`);
  }
  warnings.push(...doubleCountWarnings(used, masters));
  // Rows of one source and day that came from different imports (初回検知 differs): an overlapping
  // file may have added a line twice under shifted occurrence numbers (DESIGN §2).
  const imports = new Map<string, Set<string>>();
  for (const r of open) {
    const k = `${r.record.口座}\u0000${r.record.取引日}`;
    const set = imports.get(k) ?? new Set<string>();
    set.add(r.record.初回検知);
    imports.set(k, set);
  }
  const overlap = [...imports].filter(([, set]) => set.size > 1).map(([k]) => k.split('\u0000'));
  if (overlap.length > 0) {
    const list = overlap
      .slice(0, 5)
      .map(([s, d]) => `${s} ${d}`)
      .join('、');
    warnings.push(
      `CSVの同じ取込元・同じ日の行が別々の取込で追加されています（${list}${overlap.length > 5 ? ` ほか ${overlap.length - 5} 件` : ''}）。同じ明細が二重になっていないか台帳で確認してください。`,
    );
  }
  return warnings;
}
