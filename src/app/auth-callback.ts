/** authCallback(request): where MF's OAuth consent returns (the OAuth2 library's /usercallback). */
import { decideOffice, describeOffice, OFFICE_MSG } from '../core/office';
import { redactSecrets } from '../core/redact';
import { htmlTemplate } from '../gas/dialog';
import {
  connectedOffice,
  copiedConnection,
  ledgerOffice,
  mfClient,
  oauthAuth,
  recordLedgerOffice,
} from '../gas/mf-connection';
import { mfOAuthService } from '../gas/oauth';
import { tokenErrorMessage } from '../mf/messages';
import { ownerMismatch, recordConnector } from '../services/oauth-owner';
import { appendRunLog } from '../services/run-log';

function page(ok: boolean, title: string, message: string, next: string): GoogleAppsScript.HTML.HtmlOutput {
  const template = htmlTemplate('auth-result');
  template.ok = ok;
  template.title = title;
  template.message = message;
  template.next = next;
  return template.evaluate().setTitle(title);
}

/**
 * The office MF's consent chose, against the one this 台帳 belongs to (DESIGN §5): recorded at the first
 * connection; another office is never taken silently — the sidebar asks, naming both.
 */
function officePage(note: string): GoogleAppsScript.HTML.HtmlOutput {
  let decision: ReturnType<typeof decideOffice>;
  const recorded = ledgerOffice();
  if (recorded && copiedConnection(recorded)) {
    return page(
      false,
      'コピーされたスプレッドシートです',
      OFFICE_MSG.copied(recorded),
      'スプレッドシートのメニュー「記帳 > 接続と設定 > 接続を解除」を実行してから、もう一度「MFに接続」してください。',
    );
  }
  try {
    const office = connectedOffice(mfClient(oauthAuth()));
    decision = decideOffice(recorded, office);
    if (decision.kind === 'ok') {
      if (decision.record) recordLedgerOffice(decision.record);
      appendRunLog({
        action: 'MF接続',
        fromTrigger: false,
        ok: true,
        count: 0,
        message: `OAuth方式で${describeOffice(office)}に接続`,
      });
      return page(
        true,
        'MFに接続しました',
        `kicho が MFクラウド会計の${describeOffice(office)}を使えるようになりました。${note}`,
        'このタブを閉じて、スプレッドシートのサイドバーで「状態を更新」を押してください。',
      );
    }
  } catch (e) {
    return page(
      false,
      'MFへの接続を確かめられませんでした',
      redactSecrets(e instanceof Error ? e.message : String(e)),
      'スプレッドシートのサイドバーで「状態を更新」を押してください。',
    );
  }
  const released = decision.ledger.released === true;
  return page(
    false,
    '台帳と違う事業者が選ばれました',
    released ? OFFICE_MSG.confirmMove(decision.ledger, decision.connected) : decision.message,
    released
      ? 'スプレッドシートのサイドバーで「状態を更新」を押し、移すかどうかを選んでください。移すまで、MFには何もしません。'
      : `MFで${describeOffice(decision.ledger)}を選んで、もう一度「MFで許可する」を開いてください。`,
  );
}

export function authCallback(request: object): GoogleAppsScript.HTML.HtmlOutput {
  try {
    const connected = mfOAuthService().handleCallback(request);
    if (connected) recordConnector();
    const mismatch = connected ? ownerMismatch() : null;
    return connected
      ? officePage(mismatch ? ` ご注意: ${mismatch}` : '')
      : page(
          false,
          'MFへの接続が許可されませんでした',
          'MFの画面で許可されなかったため、接続していません。',
          'もう一度メニュー「記帳 > 接続と設定 > MFに接続」から「MFで許可する」を開いてください。',
        );
  } catch (e) {
    const text = redactSecrets(e instanceof Error ? e.message : String(e));
    return page(
      false,
      'MFへの接続に失敗しました',
      tokenErrorMessage(text) ?? text,
      'メニュー「記帳 > 接続と設定 > MFに接続」で、クライアントIDとシークレット、クライアント認証方式、MFに登録したリダイレクトURIを確かめてください。',
    );
  }
}
