/**
 * Triggers run as the account that created them, and OAuth tokens are kept per user. In OAuth mode the
 * account that connected MF is recorded; when the trigger owner is someone else without a token of
 * their own, scheduled runs would fail for the owner: this says who must connect or run 初期設定.
 */
import { connectionMode } from '../gas/mf-connection';
import { mfOAuthService } from '../gas/oauth';
import { scriptProperties } from '../gas/properties';
import { currentUserEmail } from '../gas/session';

export const CONNECTED_BY = 'KICHO_MF_CONNECTED_BY';
const TRIGGER_OWNER = 'KICHO_TRIGGER_OWNER';

/** Called when an OAuth consent succeeded. */
export function recordConnector(): void {
  const who = currentUserEmail();
  if (who) scriptProperties().setProperty(CONNECTED_BY, who);
}

export function connector(): string {
  return scriptProperties().getProperty(CONNECTED_BY) ?? '';
}

export function triggerOwner(): string {
  return scriptProperties().getProperty(TRIGGER_OWNER) ?? '';
}

function hasOwnToken(): boolean {
  try {
    return mfOAuthService().hasAccess();
  } catch (_e) {
    return false;
  }
}

function advice(owner: string, by: string): string {
  return `定期実行はトリガーを作った ${owner} のアカウントで動きますが、MFに（OAuth方式で）接続したのは ${by} です。MFとの接続はGoogleアカウントごとなので、${owner} のアカウントではMFを使えません。${owner} がメニュー「記帳 > 接続と設定 > MFに接続」で「MFで許可する」を行ってください（${by} のアカウントで定期実行したいときは、${owner} がトリガーを削除したあと ${by} が「記帳 > 接続と設定 > 初期設定」を実行してください）。`;
}

/** In a scheduled run: the owner (this account) has no MF token while another account connected. */
export function scheduledRunMismatch(): string | null {
  if (connectionMode() !== 'oauth') return null;
  const me = currentUserEmail();
  const by = connector();
  if (!by || by === me || hasOwnToken()) return null;
  return advice(me || triggerOwner(), by);
}

/** For setup and the connection sidebar: the trigger owner is not the account that connected MF. */
export function ownerMismatch(): string | null {
  if (connectionMode() !== 'oauth') return null;
  const owner = triggerOwner();
  const by = connector();
  if (!owner || !by || owner === by) return null;
  return advice(owner, by);
}
