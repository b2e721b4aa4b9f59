/**
 * The settings dialog's 国税庁アプリケーションID (登録番号の照会, issue 27): saved to script properties as a
 * secret (NTA_API_KEY: its name marks it for redaction), never shown back, removable.
 */
import { PROPERTY, property, scriptProperties, userProperties } from '../gas/properties';
import { appendRunLog } from '../services/run-log';

export interface NtaKeyState {
  ok: boolean;
  message: string;
  saved: boolean;
}

/** google.script.run: whether an アプリケーションID is saved (never the ID itself). */
export function ntaKeyStatus(): { saved: boolean } {
  return { saved: !!property(PROPERTY.ntaApiKey) };
}

/** google.script.run: saves the ID; the page clears its field. */
export function saveNtaKey(key: unknown): NtaKeyState {
  const text = String(key ?? '').trim();
  const saved = ntaKeyStatus().saved;
  if (text === '') return { ok: false, message: 'アプリケーションIDを入力してください。', saved };
  // The NTA issues an ASCII ID (法人番号・インボイス Web-API 共通): no spaces, one line.
  if (!/^[\x21-\x7e]{8,200}$/.test(text))
    return {
      ok: false,
      message:
        'アプリケーションIDの形が正しくありません（空白を含まない英数字の1行です）。保存していません。',
      saved,
    };
  scriptProperties().setProperty(PROPERTY.ntaApiKey, text);
  appendRunLog({
    action: 'アプリケーションIDの保存',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: '国税庁のアプリケーションIDを保存',
  });
  return {
    ok: true,
    message:
      '国税庁のアプリケーションIDを保存しました（画面には表示しません）。設定「登録番号の照会」をオンにすると使います。',
    saved: true,
  };
}

/** google.script.run: removes the ID from script and user properties. */
export function removeNtaKey(): NtaKeyState {
  scriptProperties().deleteProperty(PROPERTY.ntaApiKey);
  userProperties().deleteProperty(PROPERTY.ntaApiKey);
  appendRunLog({
    action: 'アプリケーションIDの削除',
    fromTrigger: false,
    ok: true,
    count: 0,
    message: '国税庁のアプリケーションIDを削除',
  });
  return {
    ok: true,
    message:
      '国税庁のアプリケーションIDを削除しました。登録番号の照会は、IDをもう一度保存するまで動きません。',
    saved: false,
  };
}
