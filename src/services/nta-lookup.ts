/**
 * 登録番号の照会 (issue 27): the NTA's Web-API asked, ten numbers to a request, for the registration numbers a
 * 判定 needs; never under the script lock. One per run: the numbers the 未判定 rows need are asked before the
 * lock (prefetch); inside it, a number not asked makes its row wait (pending) for the next 判定; the AI step,
 * outside the lock, asks as it goes. The アプリケーションID stays in the properties and the request URL.
 */
import {
  NTA_MAX_REQUESTS_PER_RUN,
  type NtaRecord,
  type NtaRegistry,
  type NtaVerdict,
  ntaFailure,
  ntaRequestUrls,
  parseNtaAnswer,
  registeredOn,
} from '../core/nta';
import { HttpNotSentError, type HttpPort, HttpTransportError } from '../core/ports';
import { redactSecrets } from '../core/redact';
import { urlFetchPort } from '../gas/http';
import { PROPERTY, property } from '../gas/properties';

export const NTA_RUN_MSG = {
  noKey:
    '設定「登録番号の照会」はオンですが、国税庁のアプリケーションIDが保存されていません。メニュー「設定を編集」で保存してください。登録番号だけでは「適格」にしていません。',
  capped: (cap: number) =>
    `国税庁への照会が1回の上限（${cap} 回）に達しました。残りの行は次の判定で確かめます。`,
  failed: (why: string) => `登録番号の照会: ${why}。`,
} as const;

export interface NtaLookup extends NtaRegistry {
  /** Asks for every number not asked yet, ten to a request, within the run's cap. */
  prefetch(numbers: Iterable<string>): void;
  /** Whether verdict() may ask the Web-API itself (outside the script lock only). */
  lazy: boolean;
  /** Requests made this run. */
  requests(): number;
  /** What the run should say (no key, a failure, the cap). */
  messages(): string[];
}

/** The run's look-up, or null when 設定 登録番号の照会 is オフ (the default: nothing is asked). */
export function ntaLookup(enabled: boolean, http: HttpPort = urlFetchPort()): NtaLookup | null {
  if (!enabled) return null;
  const appId = property(PROPERTY.ntaApiKey);
  const answers = new Map<string, NtaRecord | null>();
  const failures = new Map<string, string>();
  const said = new Set<string>();
  let stopped: string | null = appId ? null : NTA_RUN_MSG.noKey;
  let requests = 0;
  const say = (text: string) => said.add(text);
  if (!appId) say(NTA_RUN_MSG.noKey);

  const ask = (numbers: readonly string[]) => {
    if (stopped || !appId) return;
    for (const url of ntaRequestUrls(numbers, appId)) {
      const batch = decodeURIComponent(/[?&]number=([^&]*)/.exec(url)?.[1] ?? '').split(',');
      if (stopped) {
        for (const n of batch) failures.set(n, stopped);
        return;
      }
      if (requests >= NTA_MAX_REQUESTS_PER_RUN) {
        say(NTA_RUN_MSG.capped(NTA_MAX_REQUESTS_PER_RUN));
        return;
      }
      const fail = (why: string) => {
        const clean = redactSecrets(why, [appId]);
        for (const n of batch) failures.set(n, clean);
        say(NTA_RUN_MSG.failed(clean));
      };
      requests++;
      let response: { status: number; body: string };
      try {
        response = http.send({ method: 'get', url, headers: { Accept: 'application/json' } });
      } catch (e) {
        if (e instanceof HttpNotSentError) {
          // Apps Script refused the call (quota, permission): nothing more is asked this run.
          stopped = e.message;
          fail(e.message);
          return;
        }
        if (!(e instanceof HttpTransportError)) throw e;
        fail(ntaFailure('network', e.message));
        continue;
      }
      if (response.status !== 200) {
        fail(ntaFailure(response.status));
        // A refused application ID refuses every request: stop asking.
        if (response.status === 401 || response.status === 403) stopped = ntaFailure(response.status);
        continue;
      }
      try {
        for (const [n, record] of parseNtaAnswer(response.body, batch)) answers.set(n, record);
      } catch (e) {
        fail(ntaFailure('unreadable', e instanceof Error ? e.message : String(e)));
      }
    }
  };

  const lookup: NtaLookup = {
    lazy: true,
    prefetch(numbers) {
      const todo = [...new Set(numbers)].filter((n) => !answers.has(n) && !failures.has(n));
      if (todo.length > 0) ask(todo);
    },
    verdict(number: string, date: string): NtaVerdict {
      if (answers.has(number)) return registeredOn(number, answers.get(number) ?? null, date);
      const failed = failures.get(number);
      if (failed) return { kind: 'unconfirmed', why: failed };
      if (stopped) return { kind: 'unconfirmed', why: stopped };
      if (!lookup.lazy || requests >= NTA_MAX_REQUESTS_PER_RUN) return { kind: 'pending' };
      ask([number]);
      return lookup.verdict(number, date);
    },
    requests: () => requests,
    messages: () => [...said],
  };
  return lookup;
}
