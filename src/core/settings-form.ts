/**
 * The 設定 editor dialog's model: each 設定 item as a form field with its kind, choices and a hint,
 * and the problems of a proposed set of values, by item. Validation is parseSettings itself, so the
 * dialog and the runs can never disagree about what is valid.
 */
import { canonicalItem, dateText, parseSettings, SETTING_DEFAULTS, type SettingRow } from './settings';

export type FieldKind = 'date' | 'choice' | 'int' | 'number' | 'text';

export interface SettingField {
  item: string;
  value: string;
  kind: FieldKind;
  options?: readonly string[];
  hint: string;
}

interface FieldSpec {
  kind: FieldKind;
  options?: readonly string[];
  hint: string;
}

const FIELDS: Readonly<Record<string, FieldSpec>> = {
  取込開始日: { kind: 'date', hint: 'この日以降の明細を取り込みます（例: 2026-04-01）。' },
  取込終了日: { kind: 'date', hint: '空なら今日まで。' },
  対象口座: { kind: 'text', hint: 'MFの口座名をカンマ区切りで。空ならすべての口座。' },
  自動実行: {
    kind: 'choice',
    options: ['オン', 'オフ'],
    hint: 'オンにすると定期実行で取込・判定・登録まで行います。',
  },
  '照合間隔（分）': { kind: 'choice', options: ['5', '10', '15', '30'], hint: '定期実行（照合）の間隔。' },
  '照合猶予（分）': {
    kind: 'int',
    hint: '結果が不明な行を、この時間MFに現れなければ送り直します（1〜1440）。',
  },
  最大試行回数: { kind: 'int', hint: 'これを超えたら要確認にします（1〜20）。' },
  '1回の送信上限': { kind: 'int', hint: '1回の実行で送る件数の上限（1〜1000）。' },
  AI判定: {
    kind: 'choice',
    options: ['オフ', 'openai', 'anthropic', 'gemini'],
    hint: 'ルールで決まらない明細をAIに判定させます。',
  },
  AI信頼度しきい値: { kind: 'number', hint: 'これ未満のAIの判定は要確認にします（0〜1）。' },
  AI自動承認: {
    kind: 'choice',
    options: ['オフ', 'オン'],
    hint: 'オンのときだけ、しきい値以上のAIの判定を確認なしで送信待ちにします。',
  },
  AI1回の上限: { kind: 'int', hint: '1回の実行でAIに尋ねる件数の上限。' },
  AI1日の上限: { kind: 'int', hint: '1日（日本時間）にAIに尋ねる件数の上限。' },
  売掛金科目: { kind: 'text', hint: '売掛金チェックで見る勘定科目。' },
  '回収期限（日）': { kind: 'int', hint: '発生からこの日数を過ぎた売掛金を期日超過にします。' },
  売掛金の定期チェック: {
    kind: 'choice',
    options: ['オフ', 'オン'],
    hint: 'オンにすると、毎週月曜の朝に売掛金チェックを行います。',
  },
  振込手数料上限: {
    kind: 'int',
    hint: '入金がこの金額（円）以内だけ足りないときは、振込手数料の差額として回収済にします（0〜10000）。',
  },
  バックアップ世代数: { kind: 'int', hint: '毎日の台帳のコピーをいくつ残すか（0〜30、0 はしない）。' },
  重複とみなす日数: {
    kind: 'int',
    hint: '重複点検で、取引日がこの日数まで離れた同じ金額・同じ科目の仕訳を同じお金の二重記帳とみなします（0〜31）。',
  },
  アーカイブまでの月数: {
    kind: 'int',
    hint: '「古い行をアーカイブ」で、取引日と最後の更新がこの月数より前の「完了」「除外」の行をシート「台帳アーカイブ」に移します（0〜120、空はしない）。',
  },
  インボイス未判定の扱い: {
    kind: 'choice',
    options: ['保留', '送信'],
    hint: '保留なら、インボイス欄が未判定の仕入れは登録しません（送信にすると区分なしで登録し、MF では「適格」になります）。',
  },
  少額特例: {
    kind: 'choice',
    options: ['オフ', 'オン'],
    hint: '基準期間の課税売上高が1億円以下（または特定期間が5千万円以下）なら、税込1万円未満の仕入れを「適格」として扱います（2029-09-30 まで）。',
  },
  消費税の特例: {
    kind: 'choice',
    options: ['なし', '2割特例', '3割特例'],
    hint: '2割特例・3割特例で申告する年は、仕入れのインボイス区分で税額が変わらないため、判定しません。',
  },
};

function display(value: unknown, kind: FieldKind): string {
  if (value === null || value === undefined) return '';
  if (kind === 'date') return dateText(value) ?? String(value);
  return String(value);
}

/** The fields in sheet order, then any item the sheet lacks, with its default. */
export function settingFields(rows: readonly SettingRow[]): SettingField[] {
  const known = new Set(SETTING_DEFAULTS.map(([item]) => item));
  const fields: SettingField[] = [];
  const seen = new Set<string>();
  const field = (item: string, value: unknown): SettingField => {
    const spec = FIELDS[item] ?? { kind: 'text', hint: '' };
    return { item, value: display(value, spec.kind), ...spec };
  };
  for (const r of rows) {
    const item = canonicalItem(r.item) ?? r.item.trim();
    if (!known.has(item) || seen.has(item)) continue;
    seen.add(item);
    fields.push(field(item, r.value));
  }
  for (const [item, value] of SETTING_DEFAULTS) if (!seen.has(item)) fields.push(field(item, value));
  return fields;
}

/** What parseSettings says of the sheet's rows with `values` typed over them, by item. */
export function problemsOf(
  rows: readonly SettingRow[],
  values: Readonly<Record<string, string>>,
): Record<string, string> {
  let next = rows.length + 2;
  const itemOf = (r: SettingRow) => canonicalItem(r.item) ?? r.item.trim();
  const proposed: SettingRow[] = rows.map((r) => ({
    ...r,
    value: values[itemOf(r)] !== undefined ? values[itemOf(r)] : r.value,
  }));
  for (const [item, value] of Object.entries(values)) {
    if (!rows.some((r) => itemOf(r) === item)) proposed.push({ item, value, rowNumber: next++ });
  }
  const out: Record<string, string> = {};
  for (const p of parseSettings(proposed).problems) {
    const item = SETTING_DEFAULTS.map(([i]) => i).find((i) => p.message.startsWith(`${i}: `));
    const key = item ?? '';
    const text = item ? p.message.slice(item.length + 2) : p.message;
    out[key] = out[key] ? `${out[key]} ${text}` : text;
  }
  return out;
}
