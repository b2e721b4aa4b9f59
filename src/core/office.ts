/**
 * One 台帳, one MF office (DESIGN §5 guard, §9.6). The 台帳 belongs to the office it was first connected to
 * (script property KICHO_OFFICE); a run connected to another office does nothing with MF and says which
 * office the 台帳 belongs to and which one is connected. Moving it is explicit: 接続を解除 (which marks the
 * record released), then a confirmation that names both offices.
 */

export interface OfficeRef {
  code: string;
  /** Empty when only the code is known (API-key mode tells the office by its code, without a call). */
  name: string;
}

export interface LedgerOffice extends OfficeRef {
  /** Set by 接続を解除: the next connection to another office may move the 台帳 after a confirmation. */
  released?: boolean;
  /**
   * The script that recorded it. ファイル → コピーを作成 copies the bound script with a new id, and may copy its
   * script properties too (undocumented): a record made by another script means this spreadsheet is a copy.
   */
  scriptId?: string;
}

export function describeOffice(o: OfficeRef): string {
  return o.name ? `「${o.name}」（事業者コード ${o.code}）` : `事業者コード ${o.code}`;
}

export const OFFICE_MSG = {
  mismatch: (ledger: OfficeRef, connected: OfficeRef) =>
    `この台帳は ${describeOffice(ledger)} の台帳ですが、MFは ${describeOffice(connected)} に接続されています。別の事業者の帳簿に読み書きしないよう、MFには何もしませんでした。接続を ${describeOffice(ledger)} に戻すか、この台帳を移すなら「接続を解除」してから接続し直し、確認に答えてください。`,
  confirmMove: (ledger: OfficeRef, connected: OfficeRef) =>
    `この台帳は ${describeOffice(ledger)} の台帳です。${describeOffice(connected)} に移すと、これからの取込・登録・照合はすべて ${describeOffice(connected)} に対して行います。移しますか？`,
  disconnectFirst: (ledger: OfficeRef, connected: OfficeRef) =>
    `この台帳は ${describeOffice(ledger)} の台帳です。${describeOffice(connected)} につなぐには、先にメニュー「記帳 > 接続と設定 > 接続を解除」を実行してください（別の会社の帳簿への誤登録を防ぐためです）。`,
  moved: (from: OfficeRef, to: OfficeRef) =>
    `台帳の事業者を ${describeOffice(from)} から ${describeOffice(to)} に移しました。`,
  recorded: (o: OfficeRef) => `この台帳を ${describeOffice(o)} の台帳として記録しました。`,
  copied: (o: OfficeRef) =>
    `このスプレッドシートのMFへの接続は、別のスプレッドシート（コピーの元）で ${describeOffice(o)} に対して行われたものです。コピーから元の事業者の帳簿に読み書きしないよう、MFには何もしませんでした。このスプレッドシートで使うときは、メニュー「記帳 > 接続と設定 > 接続を解除」を実行してから「MFに接続」し直してください。元のスプレッドシートと同じ事業者につなぐと、同じ明細を二つの台帳から登録するおそれがあるので、元のほうは使わないでください。`,
} as const;

export function parseLedgerOffice(text: string | null): LedgerOffice | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as Partial<LedgerOffice> | null;
    if (v && typeof v.code === 'string' && v.code !== '') {
      return {
        code: v.code,
        name: typeof v.name === 'string' ? v.name : '',
        ...(v.released ? { released: true } : {}),
        ...(typeof v.scriptId === 'string' && v.scriptId ? { scriptId: v.scriptId } : {}),
      };
    }
  } catch {
    // A bare code written by hand is still a code.
  }
  return /^[\w-]+$/.test(text.trim()) ? { code: text.trim(), name: '' } : null;
}

/**
 * The connection was recorded by another script and not released since: this spreadsheet is a copy
 * carrying its original's connection. A record without a script id (an older version) is not a copy.
 */
export function isCopiedConnection(recorded: LedgerOffice | null, scriptId: string): boolean {
  return (
    !!recorded && !recorded.released && !!recorded.scriptId && !!scriptId && recorded.scriptId !== scriptId
  );
}

export type OfficeDecision =
  | { kind: 'ok'; record?: LedgerOffice }
  | { kind: 'mismatch'; message: string; ledger: LedgerOffice; connected: OfficeRef };

/**
 * What a run does with the connected office. Unrecorded: this is the first successful connection, record
 * it. Same code: go on (filling in a name learnt since). Another code: refuse, released or not — moving
 * is the connection sidebar's confirmed act, never a run's.
 */
export function decideOffice(recorded: LedgerOffice | null, connected: OfficeRef): OfficeDecision {
  if (!recorded) return { kind: 'ok', record: { code: connected.code, name: connected.name } };
  if (recorded.code === connected.code) {
    if (!recorded.name && connected.name)
      return { kind: 'ok', record: { ...recorded, name: connected.name } };
    return { kind: 'ok' };
  }
  return { kind: 'mismatch', message: OFFICE_MSG.mismatch(recorded, connected), ledger: recorded, connected };
}
