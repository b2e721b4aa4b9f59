/**
 * A fake of the NTA's 適格請求書発行事業者公表システム Web-API (issue 27), in-process for the emulator's
 * UrlFetchApp (host web-api.invoice-kohyo.nta.go.jp). It follows what is published (sources in
 * src/core/nta.ts and sim/nta/README.md): GET /1/num (登録番号, at most 10 comma separated, history 0/1) and
 * /1/valid (登録番号 and 判定基準日 `day`), `id` the application ID, `type` 21 (JSON). Each switch covers
 * what no source we hold settles.
 */
import type { HttpRequest, HttpResponse } from '../mf/types';

export const TEST_NTA_APP_ID = 'KichoTestNtaAppId01';

/** One published record of a number (the latest of its history unless `history` says otherwise). */
export interface NtaRegistration {
  number: string;
  name: string;
  registrationDate: string;
  disposalDate?: string;
  expireDate?: string;
  /** Earlier records (a corrected 登録年月日 …), oldest first; `/1/num?history=1` lists them too. */
  history?: Omit<NtaRegistration, 'history' | 'number'>[];
}

export interface FakeNtaOptions {
  appIds?: readonly string[];
  registrations?: readonly NtaRegistration[];
  /**
   * The status of a request with an application ID the NTA does not know. The spec PDF's table of HTTP
   * statuses is not in our stored material; kicho reads any status but 200 as "not answered".
   */
  unknownIdStatus?: number;
  /** The answer's 最終更新年月日 (the data's date). */
  lastUpdateDate?: string;
}

const NUMBER = /^T\d{13}$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface NtaRequestRecord {
  path: string;
  numbers: string[];
  /** Whether the request carried the application ID it should (never the ID itself). */
  idKnown: boolean;
  status: number;
}

export class FakeNta {
  readonly appIds: Set<string>;
  readonly registrations = new Map<string, NtaRegistration>();
  readonly requests: NtaRequestRecord[] = [];
  /** The next N requests fail before an answer (HttpTransportError in kicho: a timeout). */
  timeouts = 0;
  /** The next N requests are answered 500. */
  serverErrors = 0;
  private readonly unknownIdStatus: number;
  private readonly lastUpdateDate: string;

  constructor(options: FakeNtaOptions = {}) {
    this.appIds = new Set(options.appIds ?? [TEST_NTA_APP_ID]);
    for (const r of options.registrations ?? []) this.registrations.set(r.number, r);
    this.unknownIdStatus = options.unknownIdStatus ?? 403;
    this.lastUpdateDate = options.lastUpdateDate ?? '2026-11-27';
  }

  handle(req: HttpRequest): HttpResponse {
    const url = new URL(req.url);
    const q = url.searchParams;
    const numbers = (q.get('number') ?? '').split(',').filter((n) => n !== '');
    const record = (status: number) => {
      this.requests.push({
        path: url.pathname,
        numbers,
        idKnown: this.appIds.has(q.get('id') ?? ''),
        status,
      });
    };
    if (this.timeouts > 0) {
      this.timeouts--;
      record(0);
      return { status: 0, headers: {}, body: '', fault: 'timeout' };
    }
    const fail = (status: number, message: string): HttpResponse => {
      record(status);
      return { status, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message }) };
    };
    if (req.method.toUpperCase() !== 'GET') return fail(405, 'GET only');
    if (this.serverErrors > 0) {
      this.serverErrors--;
      return fail(500, 'server error');
    }
    if (!this.appIds.has(q.get('id') ?? '')) return fail(this.unknownIdStatus, 'unknown application id');
    const path = url.pathname.replace(/\/+$/, '');
    if (path !== '/1/num' && path !== '/1/valid') return fail(404, 'no such function');
    // The fake answers JSON only (type 21); CSV (01) and XML (11) exist but kicho never asks for them.
    if (q.get('type') !== '21') return fail(400, 'type must be 21 in this fake');
    if (numbers.length === 0 || numbers.length > 10 || !numbers.every((n) => NUMBER.test(n)))
      return fail(400, 'number: T + 13 digits, 1 to 10, comma separated');
    let rows: Record<string, string>[];
    if (path === '/1/num') {
      const history = q.get('history') ?? '0';
      if (history !== '0' && history !== '1') return fail(400, 'history: 0 or 1');
      rows = numbers.flatMap((n) => this.recordsOf(n, history === '1'));
    } else {
      const day = q.get('day') ?? '';
      if (!DATE.test(day)) return fail(400, 'day: YYYY-MM-DD');
      rows = numbers.flatMap((n) => this.recordsOf(n, false).filter(() => this.registeredBy(n, day)));
    }
    record(200);
    const body = {
      lastUpdateDate: this.lastUpdateDate,
      count: String(rows.length),
      divideNumber: '1',
      divideSize: '1',
      announcement: rows.map((r, i) => ({ ...r, sequenceNumber: String(i + 1) })),
    };
    return {
      status: 200,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
      body: JSON.stringify(body),
    };
  }

  /** /1/valid: the record in force around `day` — here, the latest, when it was registered by then. */
  private registeredBy(number: string, day: string): boolean {
    const r = this.registrations.get(number);
    return !!r && r.registrationDate <= day;
  }

  /** A number's records as the Web-API lists them (every field of the published schema, as strings). */
  private recordsOf(number: string, history: boolean): Record<string, string>[] {
    const r = this.registrations.get(number);
    if (!r) return [];
    const one = (
      x: Omit<NtaRegistration, 'history' | 'number'>,
      latest: boolean,
    ): Record<string, string> => ({
      registratedNumber: number,
      process: x.disposalDate ? '03' : x.expireDate ? '04' : '01',
      correct: '0',
      kind: '2',
      country: '1',
      latest: latest ? '1' : '0',
      registrationDate: x.registrationDate,
      updateDate: x.disposalDate ?? x.expireDate ?? x.registrationDate,
      disposalDate: x.disposalDate ?? '',
      expireDate: x.expireDate ?? '',
      address: '東京都千代田区霞が関３丁目１番１号',
      addressPrefectureCode: '13',
      addressCityCode: '101',
      addressRequest: '',
      addressRequestPrefectureCode: '',
      addressRequestCityCode: '',
      kana: '',
      name: x.name,
      addressInside: '',
      addressInsidePrefectureCode: '',
      addressInsideCityCode: '',
      tradeName: '',
      popularName_previousName: '',
    });
    const latest = one(r, true);
    return history ? [...(r.history ?? []).map((h) => one(h, false)), latest] : [latest];
  }
}
