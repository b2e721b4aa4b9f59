/** authCallback(request): where MF's OAuth consent returns (the OAuth2 library's /usercallback). */
import { escapeHtml } from '../core/html';
import { redactSecrets } from '../core/redact';
import { mfOAuthService } from '../gas/oauth';

function page(title: string, body: string): GoogleAppsScript.HTML.HtmlOutput {
  return HtmlService.createHtmlOutput(
    `<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>` +
      `<body style="font-family:sans-serif;margin:24px"><h2>${escapeHtml(title)}</h2><p>${escapeHtml(body)}</p></body></html>`,
  );
}

export function authCallback(request: object): GoogleAppsScript.HTML.HtmlOutput {
  try {
    const connected = mfOAuthService().handleCallback(request);
    return connected
      ? page('MFに接続しました', 'このタブを閉じて、スプレッドシートに戻ってください。')
      : page('MFへの接続が許可されませんでした', 'もう一度メニュー「MFに接続」からやり直してください。');
  } catch (e) {
    return page('MFへの接続に失敗しました', redactSecrets(e instanceof Error ? e.message : String(e)));
  }
}
