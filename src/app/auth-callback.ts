/** authCallback(request): where MF's OAuth consent returns (the OAuth2 library's /usercallback). */
import { redactSecrets } from '../core/redact';
import { mfOAuthService } from '../gas/oauth';
import { ownerMismatch, recordConnector } from './oauth-owner';

function page(ok: boolean, title: string, message: string, next: string): GoogleAppsScript.HTML.HtmlOutput {
  const template = HtmlService.createTemplateFromFile('auth-result');
  template.ok = ok;
  template.title = title;
  template.message = message;
  template.next = next;
  return template.evaluate().setTitle(title);
}

export function authCallback(request: object): GoogleAppsScript.HTML.HtmlOutput {
  try {
    const connected = mfOAuthService().handleCallback(request);
    if (connected) recordConnector();
    const mismatch = connected ? ownerMismatch() : null;
    return connected
      ? page(
          true,
          'MFに接続しました',
          `kicho がMFクラウド会計を使えるようになりました。${mismatch ? ` ご注意: ${mismatch}` : ''}`,
          'このタブを閉じて、スプレッドシートのサイドバーで「状態を更新」を押してください。',
        )
      : page(
          false,
          'MFへの接続が許可されませんでした',
          'MFの画面で許可されなかったため、接続していません。',
          'もう一度メニュー「記帳 > MFに接続」から「MFで許可する」を開いてください。',
        );
  } catch (e) {
    return page(
      false,
      'MFへの接続に失敗しました',
      redactSecrets(e instanceof Error ? e.message : String(e)),
      'メニュー「記帳 > MFに接続」で、クライアントIDとシークレット、MFに登録したリダイレクトURIを確かめてください。',
    );
  }
}
