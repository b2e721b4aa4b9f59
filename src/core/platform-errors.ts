/**
 * Exceptions from UrlFetchApp that mean "nothing left the machine" (reference/gas-platform.md §3.3, §9):
 * Apps Script refused the call itself. Anything else (timeout, DNS, address unavailable) may have
 * reached the server, and its outcome is unknown. Matched loosely: Google does not publish the texts.
 */
export interface NotSent {
  reason: 'permission' | 'quota' | 'bandwidth';
  /** Plain Japanese for メモ, ログ and the summary. */
  message: string;
}

export const NOT_SENT_MESSAGE = {
  permission:
    'Google の権限「外部サービスへの接続」が許可されていないため、送信しませんでした。メニュー「記帳」から実行し、Google の画面ですべての項目にチェックを入れて許可してください。',
  quota:
    'この Google アカウントの1日の外部接続（UrlFetch）の回数が上限に達したため、送信しませんでした。上限は時間がたつと戻ります（最初の接続からおよそ24時間）。続きはそのあとの実行で送ります。',
  bandwidth:
    'Google の通信量の上限に一時的に達したため、送信しませんでした。しばらく待ってから実行してください。',
} as const;

export function notSentReason(exceptionText: string): NotSent | null {
  if (
    /You do not have permission to call UrlFetchApp|Required permissions: .*script\.external_request/i.test(
      exceptionText,
    )
  )
    return { reason: 'permission', message: NOT_SENT_MESSAGE.permission };
  if (/Service invoked too many times for one day: urlfetch/i.test(exceptionText))
    return { reason: 'quota', message: NOT_SENT_MESSAGE.quota };
  if (/Bandwidth quota exceeded/i.test(exceptionText))
    return { reason: 'bandwidth', message: NOT_SENT_MESSAGE.bandwidth };
  return null;
}
