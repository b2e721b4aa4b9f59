/**
 * The Google permissions (OAuth scopes) kicho asks for in appsscript.json, what each is for, and the
 * plain-Japanese message when a person unticked one on Google's consent screen (granular consent).
 */

export interface Permission {
  scope: string;
  /** Roughly how Google's Japanese consent screen words it. */
  label: string;
  /** What kicho needs it for. */
  purpose: string;
}

/** Must equal appsscript.json oauthScopes (a unit test checks). */
export const PERMISSIONS: readonly Permission[] = [
  {
    scope: 'https://www.googleapis.com/auth/spreadsheets.currentonly',
    label: 'このスプレッドシートの表示と管理',
    purpose: '台帳・設定・ログなどのシートを読み書きするため',
  },
  {
    scope: 'https://www.googleapis.com/auth/script.container.ui',
    label: 'スプレッドシート内にダイアログやサイドバーを表示',
    purpose: '結果のお知らせ、設定画面、「MFに接続」の画面を出すため',
  },
  {
    scope: 'https://www.googleapis.com/auth/script.external_request',
    label: '外部サービスへの接続',
    purpose: 'MFクラウド会計（とAI判定）と通信して明細の取込・仕訳の登録・照合をするため',
  },
  {
    scope: 'https://www.googleapis.com/auth/script.scriptapp',
    label: 'ユーザーが不在のときにこのアプリケーションを実行',
    purpose: '定期実行（照合・自動実行）とバックアップのトリガーを設定するため',
  },
  {
    scope: 'https://www.googleapis.com/auth/userinfo.email',
    label: 'Google アカウントのメールアドレスの参照',
    purpose: 'ログに実行した人を残し、トリガーの持ち主を記録するため',
  },
];

export const ALL_SCOPES: readonly string[] = PERMISSIONS.map((p) => p.scope);

export function permissionOf(scope: string): Permission {
  return PERMISSIONS.find((p) => p.scope === scope) ?? { scope, label: scope, purpose: '' };
}

function list(missing: readonly string[]): string {
  return missing
    .map((s) => {
      const p = permissionOf(s);
      return `「${p.label}」${p.purpose ? `（${p.purpose}）` : ''}`;
    })
    .join('、');
}

/** What a person sees when an entry point stops for want of a permission. */
export function missingPermissionMessage(input: {
  action: string;
  missing: readonly string[];
  fromTrigger: boolean;
  /** The account the run is for (the trigger's owner, or the person who clicked). */
  who: string;
  url: string | null;
}): string {
  const whom = input.who || 'このアカウント';
  const lead = `Google の権限 ${list(input.missing)} が許可されていないため、${input.action}を止めました（何も書き込み・送信していません）。`;
  const link = input.url ? ` 許可の画面はこのURLからも開けます: ${input.url}` : '';
  if (input.fromTrigger) {
    return `${lead} 定期実行は ${whom} のアカウントで動いています。${whom} がこのスプレッドシートを開き、メニュー「記帳 > 接続と設定 > 初期設定」を実行して、Google の画面ですべての項目にチェックを入れて「続行」を押してください。${link}`;
  }
  return `${lead} このあと出る Google の画面で、すべての項目にチェックを入れて「続行」を押してください。画面が出ないときは、メニュー「記帳」からもう一度選んでください。${link}`;
}
