/**
 * What 重複を削除 writes on the 重複点検 rows, in the summary and on the 台帳 (one place for the words of
 * core/duplicates/deletion*.ts; the run's own summary lines are in app/duplicate-delete.ts).
 */
export const DELETE_MSG = {
  claimed: (who: string, at: string) => `削除中（${who || '実行した人'}、${at}）`,
  deleted: (who: string, at: string) => `${who || '実行した人'} が ${at} に MF から削除しました。`,
  absent: (at: string) => `MF に既にありませんでした（${at} に確認）。MF の画面などで先に削除されています。`,
  foundGone: (at: string) =>
    `削除の結果がわからなかったため MF で確かめたところ、仕訳はありませんでした（${at}）。削除済みです。`,
  stillThere:
    'MF の応答がなかったため確かめたところ、仕訳は MF に残っています（削除されていません）。削除するときは、もう一度「重複を削除」から確認してください。',
  claimNotSent:
    '前回の削除は MF に届いていませんでした（仕訳は残っています）。削除するときは、もう一度「重複を削除」から確認してください。',
  unknown: (reason: string) =>
    `削除できたかわかりません（${reason}）。次の「重複点検」か「重複を削除」で MF に確かめます（確かめるまで送り直しません）。`,
  changed:
    '点検のあとで MF の仕訳（取引日・金額・科目）が変わっています。削除していません。もう一度「重複点検」を実行して確かめてください。',
  notSent: (reason: string) => `削除を送りませんでした（${reason}）。操作は「削除」のままです。`,
  time: '実行時間の上限が近いため送りませんでした',
  stopped: 'MF への送信を止めたため送りませんでした',
  rateLimited: 'MF が混み合っていたため送りませんでした',
  planChanged:
    '削除の確認のあとでシート「重複点検」が変わったため、何も削除しませんでした。もう一度「重複を削除」を開いて確かめてください。',
  lookupFailed: (message: string) =>
    `削除の前に MF で仕訳を確かめられなかったため、何も削除していません（${message}）。`,
  /** The group's journals to keep, each with what MF says of it now. */
  keptMissing: (group: string, parts: readonly string[]) =>
    `グループ ${group} で残す仕訳がありません: ${parts.join('、')}。このまま削除するとこの取引の仕訳がなくなるため、このグループは削除していません（操作は「削除」のままです）。MF の仕訳帳で確かめ、もう一度「重複点検」を実行してから選び直してください。`,
  keptChangedSince: (group: string, parts: readonly string[]) =>
    `グループ ${group} は本当に別々の取引かもしれないグループで、残す仕訳が点検のあとで変わりました: ${parts.join('、')}。削除すると、その取引の仕訳がなくなるおそれがあるため、このグループは削除していません（操作は「削除」のままです）。MF の仕訳帳で確かめ、もう一度「重複点検」を実行してから選び直してください。`,
  keptGone: (id: string) =>
    `仕訳 ${id} は MF にありません（点検のあとで MF の画面などで削除されたか、取引日が変わっています）`,
  keptChanged: (id: string) => `仕訳 ${id} は点検のあとで MF で変わっています（取引日・金額・科目）`,
  ledgerExcluded: (journal: string, kept: readonly string[], who: string, at: string) =>
    `重複点検で MF の仕訳 ${journal} を削除したため除外にしました（${who || '実行した人'}、${at}）。${kept.length > 0 ? `同じお金は 仕訳 ${kept.join('、')} に記帳されています。` : ''}この行は登録しません。`,
  ledgerRelinked: (journal: string, kept: string) =>
    `重複点検で仕訳 ${journal} を削除しました。この行の仕訳として 仕訳 ${kept} を残しています。`,
  unrecorded: (id: string) =>
    `仕訳 ${id} は重複点検の記録にない行のため、台帳は変えていません。台帳でこの仕訳の行を確かめてください。`,
  archived: (key: string) =>
    `この仕訳は台帳アーカイブの行（キー ${key}）が登録した仕訳のため、削除していません。削除するときは、その行を「アーカイブから戻す」で台帳に戻し、もう一度「重複点検」を実行してから確かめてください。`,
  lineLeftBare:
    'このグループは別々の本当の取引の可能性があり、この仕訳を削除すると、その明細の仕訳がなくなります（残す仕訳はどれも別の明細のものです）。削除していません。MF の仕訳帳で同じ取引かを確かめ、本当に二重なら、もう一度「重複点検」を実行してから選び直してください。',
  rowless:
    'この仕訳は kicho が登録したものですが、台帳にその行がありません（行が削除されたか、台帳が入れ替わっています）。削除すると台帳で確かめられなくなるため、削除していません。メニュー「記帳 > 台帳 > 台帳を復元」で行を戻してから、もう一度「重複点検」を実行してください。',
  ledgerSending: (key: string) =>
    `台帳の行（キー ${key}）は送信中のため変えていません。照合のあとで、もう一度「重複点検」を実行してください。`,
} as const;
