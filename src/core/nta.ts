/**
 * The NTA's 適格請求書発行事業者公表システム Web-API (issue 27): whether a registration number was registered
 * on a purchase's 取引日. Optional (設定 「登録番号の照会」, オフ by default) and used only where a number decides
 * 適格 (an MF 取引先's number, or one typed on the sheet 取引先インボイス). Pure: URLs, parsing, the verdict.
 *
 * The API as published (国税庁 「適格請求書発行事業者公表システムWeb-API機能」 www.invoice-kohyo.nta.go.jp/web-api,
 * its 検証環境 page web-api/kensyou.html, and the spec PDF 「リクエストの設定方法及び提供データの内容について
 * (Ver.1.0)」 as restated by clients): GET https://web-api.invoice-kohyo.nta.go.jp/1/num?id=【アプリケーションID】
 * &number=T…,T… (at most 10, comma separated)&type=21 (JSON)&history=0|1 — fm-memo.nyanta.jp/memo/20241209.php,
 * ywc.com/filemaker/?p=14945, denaoshidomino.com/2024/04/12-api.html; the response {lastUpdateDate, count,
 * divideNumber, divideSize, announcement[]} with announcement {registratedNumber, process, correct, kind,
 * country, latest, registrationDate, updateDate, disposalDate, expireDate, name, …} — nisyuu/kendama
 * openapi/v1/announcement.yaml, num.yaml, valid.yaml (and uichi/kendama-python, generated from the same).
 *
 * kicho asks /1/num (history=0) rather than /1/valid (one 判定基準日 per request): ten numbers per request
 * whatever the rows' dates, and the dates of the latest record (登録・取消・失効) answer for every 取引日.
 * A number registered again after a 取消 shows only its latest registration: an earlier 取引日 then reads as
 * not registered, which holds the row for a person (never a wrong 適格).
 */

export const NTA_HOST = 'web-api.invoice-kohyo.nta.go.jp';
export const NTA_BASE_URL = `https://${NTA_HOST}`;
/** Numbers one request may carry (the spec: カンマ区切りで最大10件). */
export const NTA_BATCH = 10;
/** Requests one run may make: 200 numbers; rows whose number waits are judged in the next run. */
export const NTA_MAX_REQUESTS_PER_RUN = 20;

/** The dates of a number's latest record ('' where none). */
export interface NtaRecord {
  number: string;
  name: string;
  registrationDate: string;
  disposalDate: string;
  expireDate: string;
}

/** What the Web-API said of each number asked: a record, or null (not in the published data). */
export type NtaAnswers = ReadonlyMap<string, NtaRecord | null>;

export type NtaVerdict =
  | { kind: 'registered'; record: NtaRecord }
  | { kind: 'not-registered'; why: string }
  /** The Web-API could not be asked or did not answer: the number decides nothing. */
  | { kind: 'unconfirmed'; why: string }
  /** Not asked yet in this run (a row that arrived after the look-up): judged in the next run. */
  | { kind: 'pending' };

/** The number lookups the row judgement needs; kept by services/nta-lookup.ts. */
export interface NtaRegistry {
  verdict(number: string, date: string): NtaVerdict;
}

/** The request URLs for `numbers` (T + 13 digits each), ten to a request. */
export function ntaRequestUrls(numbers: readonly string[], appId: string, base = NTA_BASE_URL): string[] {
  const urls: string[] = [];
  for (let i = 0; i < numbers.length; i += NTA_BATCH) {
    const batch = numbers.slice(i, i + NTA_BATCH).join(',');
    urls.push(`${base}/1/num?id=${encodeURIComponent(appId)}&number=${batch}&type=21&history=0`);
  }
  return urls;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function dateField(value: unknown): string {
  const t = typeof value === 'string' ? value.trim() : '';
  return DATE.test(t) ? t : '';
}

/**
 * A /1/num answer (JSON) for the numbers asked: each number's latest record, or null when the answer has
 * none for it. Throws when the body is not the published shape (nothing is then taken as known).
 */
export function parseNtaAnswer(body: string, asked: readonly string[]): Map<string, NtaRecord | null> {
  const value = JSON.parse(body) as unknown;
  if (
    typeof value !== 'object' ||
    value === null ||
    !Array.isArray((value as { announcement?: unknown }).announcement)
  )
    throw new Error('announcement がありません');
  const out = new Map<string, NtaRecord | null>(asked.map((n) => [n, null]));
  for (const entry of (value as { announcement: unknown[] }).announcement) {
    if (typeof entry !== 'object' || entry === null) continue;
    const a = entry as Record<string, unknown>;
    const number = typeof a.registratedNumber === 'string' ? a.registratedNumber.trim() : '';
    if (!out.has(number)) continue;
    // history=0 gives the latest record; with history, a latest '1' wins over the rest.
    const previous = out.get(number);
    if (previous && a.latest !== '1') continue;
    const registrationDate = dateField(a.registrationDate);
    if (registrationDate === '') throw new Error(`${number} の登録年月日が読めません`);
    out.set(number, {
      number,
      name: typeof a.name === 'string' ? a.name : '',
      registrationDate,
      disposalDate: dateField(a.disposalDate),
      expireDate: dateField(a.expireDate),
    });
  }
  return out;
}

/** Whether a record (or its absence) shows the number registered on `date`, and if not, why in Japanese. */
export function registeredOn(number: string, record: NtaRecord | null, date: string): NtaVerdict {
  if (!record)
    return {
      kind: 'not-registered',
      why: `国税庁の公表サイトに登録番号 ${number} がありません（番号の誤りか、登録されていません）`,
    };
  if (date < record.registrationDate)
    return {
      kind: 'not-registered',
      why: `登録番号 ${number} の登録日は ${record.registrationDate} で、取引日 ${date} には登録されていません（国税庁の公表サイト）`,
    };
  if (record.disposalDate !== '' && date >= record.disposalDate)
    return {
      kind: 'not-registered',
      why: `登録番号 ${number} は ${record.disposalDate} に登録が取り消されています（国税庁の公表サイト）`,
    };
  if (record.expireDate !== '' && date >= record.expireDate)
    return {
      kind: 'not-registered',
      why: `登録番号 ${number} は ${record.expireDate} に失効しています（国税庁の公表サイト）`,
    };
  return { kind: 'registered', record };
}

/** Why a request failed, for the row and the run (the application ID never appears: it is not passed in). */
export function ntaFailure(status: number | 'network' | 'unreadable', detail = ''): string {
  if (status === 'network')
    return `国税庁の公表サイト（Web-API）に接続できませんでした${detail ? `: ${detail}` : ''}`;
  if (status === 'unreadable')
    return `国税庁の公表サイト（Web-API）の応答が読めませんでした${detail ? `（${detail}）` : ''}`;
  if (status === 401 || status === 403)
    return `国税庁の公表サイト（Web-API）がアプリケーションIDを受け付けませんでした（${status}）。設定のダイアログでアプリケーションIDを保存し直してください`;
  return `国税庁の公表サイト（Web-API）がエラー（${status}）を返しました`;
}
