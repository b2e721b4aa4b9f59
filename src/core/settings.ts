/** 設定 sheet items and their defaults (DESIGN §3). Values are what a person sees in the 値 column. */
export const SETTING_DEFAULTS: ReadonlyArray<readonly [item: string, value: string]> = [
  ['取込開始日', ''],
  ['取込終了日', ''],
  ['対象口座', ''],
  ['自動実行', 'オフ'],
  ['照合間隔（分）', '15'],
  ['照合猶予（分）', '15'],
  ['最大試行回数', '3'],
  ['1回の送信上限', '200'],
  ['AI判定', 'オフ'],
  ['AI信頼度しきい値', '0.8'],
  ['売掛金科目', '売掛金'],
  ['回収期限（日）', '60'],
];
