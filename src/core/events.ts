/**
 * Events other automations send to kicho's web app (DESIGN §2 keys, §6 doPost). Pure: the body is
 * read and checked here, each event becomes one 台帳 record under `evt:<取込元>:<id>[:<type>]`, and the
 * answer is one result per event. The web handler (app/web-events.ts) adds the secret, the lock and the
 * sheet. Every field is hostile input: nothing here evaluates it, and the text writer stores it as text.
 */
import { emptyRecord } from './intake';
import type { LedgerKey } from './keys';
import type { LedgerRecord } from './ledger';
import { utf8Bytes } from './sha256';

/** DESIGN §6: at most 100 events and 50 KB per request (one lock hold stays short). */
export const MAX_EVENTS = 100;
export const MAX_BODY_BYTES = 50_000;
/** Field lengths: ids and types are keys (a 台帳 cell people read); descriptions are MF remarks and more. */
const MAX_ID_CHARS = 100;
const MAX_TYPE_CHARS = 50;
const MAX_TEXT_CHARS = 1_000;
const MAX_PARTNER_CHARS = 100;
/** Ten trillion yen: far above any real line, below where doubles lose integers. */
const MAX_AMOUNT = 10_000_000_000_000;

export type EventStatus = 'accepted' | 'duplicate' | 'rejected';

/** One event's answer (DESIGN §6). `retry`: sending this same event again may succeed and is safe. */
export interface EventResult {
  id: string;
  type?: string;
  status: EventStatus;
  state?: string;
  message: string;
  retry?: boolean;
}

/** The whole answer. `error` and `retry` describe the request when no event could be looked at. */
export interface EventAnswer {
  results: EventResult[];
  error?: string;
  retry?: boolean;
}

/** A checked event, ready to become a row. */
export interface SourceEvent {
  id: string;
  type: string;
  date: string;
  amount: number;
  direction: '入金' | '出金';
  description: string;
  partner: string;
  memo: string;
  key: string;
}

export const EVENT_MSG = {
  accepted: '台帳に「未判定」で記録しました。判定と確認のあとでMFに登録します。',
  acceptedHeld:
    '台帳に記録しました。このイベントは少し前に登録のため送信されています（行が消されたようです）。二重に登録しないよう「不明」にし、MFで確かめてから扱います。',
  duplicate: (state: string) =>
    `この id は記録済みです（台帳の状態: ${state}）。二重には記録していません。送り直しても同じ答えです。`,
  duplicateInRequest: '同じリクエストの中に同じ id が二度あります。記録は一度だけです。',
  rejectedNothing: 'このイベントは記録していません。',
  badSecret:
    '受け付けられませんでした。URLの key が正しくないか、受付が有効になっていません。kicho の「設定」で表示したURLをそのまま使ってください。',
  rateLimited:
    '受け付けられませんでした。URLの key が正しくないか、受付が有効になっていません。kicho の「設定」で表示したURLをそのまま使ってください。',
  busy: '台帳が別の処理で使われていたため、記録していません。同じ内容をそのまま送り直してください（二重にはなりません）。',
  notConfirmed:
    '台帳に書いたはずの行を読み直せませんでした。同じ内容をそのまま送り直してください（二重にはなりません）。',
  failed: (why: string) =>
    `記録できませんでした（${why}）。同じ内容をそのまま送り直してください（二重にはなりません）。`,
  emptyBody: '本文が空です。JSON {"source": "取込元の名前", "events": [...]} を送ってください。',
  tooLarge: (bytes: number) =>
    `本文が大きすぎます（${bytes} バイト。${MAX_BODY_BYTES} バイトまで）。イベントを分けて送ってください。何も記録していません。`,
  notJson:
    '本文が JSON として読めません。送信元の設定で本文を JSON（Content-Type: application/json）にしてください。何も記録していません。',
  notObject:
    '本文は JSON のオブジェクト {"source": ..., "events": [...]} にしてください。何も記録していません。',
  noSource:
    'source（取込元の名前）がありません。シート「取込元」にある名前を入れてください。何も記録していません。',
  badSource: (why: string) => `source（取込元の名前）が正しくありません: ${why} 何も記録していません。`,
  unknownSource: (name: string) =>
    `取込元「${name}」がシート「取込元」にありません。先にシート「取込元」に名前と相手の勘定科目（例: 売掛金、普通預金）を加えてから送ってください。何も記録していません。`,
  noEvents: 'events（イベントの配列）がありません。何も記録していません。',
  tooManyEvents: (n: number) =>
    `イベントが多すぎます（${n} 件。1回に ${MAX_EVENTS} 件まで）。分けて送ってください。何も記録していません。`,
  field: (field: string, why: string) => `${field}: ${why} このイベントは記録していません。`,
  loop: (what: string) =>
    `このイベントは kicho 自身の出力（${what}）から来ています。ループを防ぐため記録していません。送信元の自動化が kicho の登録した仕訳や台帳を拾っていないか確かめてください。`,
} as const;

/** `%`, `:` and white space in an id or type are percent-encoded, so a key reads back one way only. */
export function keyPart(value: string): string {
  return value.replace(/[%:\s]/gu, (c) =>
    utf8Bytes(c)
      .map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`)
      .join(''),
  );
}

/** The byte length of text as UTF-8 (what the 50 KB limit counts). */
export function utf8Length(text: string): number {
  let n = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0) as number;
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
  }
  return n;
}

/**
 * DESIGN §2: `evt:` + 取込元 + `:` + the sender's id [+ `:` + type]. Each part is encoded the same way, so
 * a 取込元 with a space in its name still gives a key without white space (the 台帳's キー column form).
 */
export function evtKey(source: string, id: string, type = ''): LedgerKey {
  return `evt:${keyPart(source)}:${keyPart(id)}${type === '' ? '' : `:${keyPart(type)}`}` as LedgerKey;
}

export function isEvtKey(key: string): boolean {
  return key.startsWith('evt:');
}

/** The 取込元 part of an `evt:` key (as encoded in it), or null when the key is not of that form. */
export function evtKeySource(key: string): string | null {
  const m = /^evt:([^:\s]+):[^:\s]+(?::[^:\s]+)?$/u.exec(key);
  return m ? m[1] : null;
}

/** A C0 control character or DEL; with `multiline`, line feeds, carriage returns and tabs are allowed. */
function hasControl(s: string, multiline = false): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (multiline && (c === 9 || c === 10 || c === 13)) continue;
    if (c < 32 || c === 127) return true;
  }
  return false;
}

type Check<T> = { ok: true; value: T } | { ok: false; why: string };

function text(value: unknown, max: number, required: boolean, multiline = false): Check<string> {
  if (value === undefined || value === null || value === '') {
    return required ? { ok: false, why: 'ありません。' } : { ok: true, value: '' };
  }
  if (typeof value !== 'string' && typeof value !== 'number')
    return { ok: false, why: '文字列にしてください。' };
  const s = String(value);
  if (s.trim() === '') return required ? { ok: false, why: '空です。' } : { ok: true, value: '' };
  if ([...s].length > max) return { ok: false, why: `長すぎます（${max} 文字まで）。` };
  if (hasControl(s, multiline)) return { ok: false, why: '制御文字（改行など）が入っています。' };
  return { ok: true, value: s };
}

/** A sender id that changes on every resend (a receipt time) would defeat the whole check. */
const TIME_LIKE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/u;

function eventId(value: unknown): Check<string> {
  if (typeof value === 'number' && !Number.isSafeInteger(value))
    return { ok: false, why: '数なら整数にしてください（文字列でも構いません）。' };
  const t = text(value, MAX_ID_CHARS, true);
  if (!t.ok) return t;
  const id = t.value.trim();
  if (TIME_LIKE.test(id))
    return {
      ok: false,
      why: '日時のように見えます。id には注文番号やイベントIDなど、送り直しても変わらない値を使ってください（受信時刻や実行ID・乱数は送るたびに変わり、二重登録を防げません）。',
    };
  return { ok: true, value: id };
}

function isRealDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/u.test(s)) return false;
  const [y, m, d] = s.split('-').map(Number);
  const t = new Date(Date.UTC(y, m - 1, d));
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d;
}

function amount(value: unknown): Check<number> {
  let n: number;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string') {
    // No-code tools often send numbers as text; 全角 digits, ¥ and commas as a bank CSV has them.
    const s = value.normalize('NFKC').trim().replace(/^¥/u, '').replace(/円$/u, '').replace(/,/gu, '');
    if (!/^\d+$/u.test(s))
      return { ok: false, why: `「${value.slice(0, 20)}」は金額（1以上の整数の円）ではありません。` };
    n = Number(s);
  } else
    return { ok: false, why: value === undefined ? 'ありません。' : '1以上の整数（円）にしてください。' };
  if (!Number.isInteger(n) || n <= 0) return { ok: false, why: '1以上の整数（円）にしてください。' };
  if (n > MAX_AMOUNT) return { ok: false, why: '大きすぎます。' };
  return { ok: true, value: n };
}

/** One event checked field by field: the first problem, named by its field, or the event. */
export function checkEvent(
  raw: unknown,
  source: string,
): { ok: true; event: SourceEvent } | { ok: false; id: string; type?: string; message: string } {
  const rawId =
    raw && typeof raw === 'object' && 'id' in raw
      ? String((raw as { id: unknown }).id ?? '').slice(0, 100)
      : '';
  const fail = (field: string, why: string, type?: string) => ({
    ok: false as const,
    id: rawId,
    ...(type ? { type } : {}),
    message: EVENT_MSG.field(field, why),
  });
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return fail('イベント', 'オブジェクト {"id": ..., ...} にしてください。');
  const e = raw as Record<string, unknown>;
  const id = eventId(e.id);
  if (!id.ok) return fail('id', id.why);
  const type = text(e.type, MAX_TYPE_CHARS, false);
  if (!type.ok) return fail('type', type.why);
  const t = type.value.trim();
  const date = typeof e.date === 'string' ? e.date.trim() : '';
  if (!isRealDate(date))
    return fail(
      'date',
      e.date === undefined
        ? 'ありません（yyyy-MM-dd）。'
        : '日付は yyyy-MM-dd（例: 2026-11-30）の実在する日にしてください。',
      t,
    );
  const a = amount(e.amount);
  if (!a.ok) return fail('amount', a.why, t);
  const direction = typeof e.direction === 'string' ? e.direction.normalize('NFKC').trim() : '';
  if (direction !== '入金' && direction !== '出金')
    return fail('direction', '「入金」か「出金」にしてください。', t);
  const description = text(e.description, MAX_TEXT_CHARS, true, true);
  if (!description.ok) return fail('description', description.why, t);
  const partner = text(e.partner, MAX_PARTNER_CHARS, false);
  if (!partner.ok) return fail('partner', partner.why, t);
  const memo = text(e.memo, MAX_TEXT_CHARS, false, true);
  if (!memo.ok) return fail('memo', memo.why, t);
  return {
    ok: true,
    event: {
      id: id.value,
      type: t,
      date,
      amount: a.value,
      direction,
      description: description.value,
      partner: partner.value.trim(),
      memo: memo.value,
      key: evtKey(source, id.value, t),
    },
  };
}

/** The request as read: a problem with the whole of it, or the source and each event's check. */
export type ParsedRequest =
  | { ok: false; error: string }
  | { ok: true; source: string; events: readonly unknown[] };

/** Reads the body. `sourceProblem` says why a source name cannot be one (shared with CSV sources). */
export function parseEventRequest(
  body: string | null | undefined,
  sourceProblem: (name: string) => string | null,
): ParsedRequest {
  if (typeof body !== 'string' || body.trim() === '') return { ok: false, error: EVENT_MSG.emptyBody };
  const bytes = utf8Length(body);
  if (bytes > MAX_BODY_BYTES) return { ok: false, error: EVENT_MSG.tooLarge(bytes) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (_e) {
    return { ok: false, error: EVENT_MSG.notJson };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, error: EVENT_MSG.notObject };
  const p = parsed as Record<string, unknown>;
  if (p.source === undefined || p.source === null || p.source === '')
    return { ok: false, error: EVENT_MSG.noSource };
  if (typeof p.source !== 'string')
    return { ok: false, error: EVENT_MSG.badSource('文字列にしてください。') };
  const source = p.source.trim();
  const problem = sourceProblem(source);
  if (problem) return { ok: false, error: EVENT_MSG.badSource(problem) };
  if (source.includes(':') || hasControl(source))
    return { ok: false, error: EVENT_MSG.badSource('「:」や制御文字は使えません。') };
  if (!Array.isArray(p.events) || p.events.length === 0) return { ok: false, error: EVENT_MSG.noEvents };
  if (p.events.length > MAX_EVENTS) return { ok: false, error: EVENT_MSG.tooManyEvents(p.events.length) };
  return { ok: true, source, events: p.events };
}

const REMOTE_TAG_IN_TEXT = /kc-[0-9a-f]{16}/u;
const KEY_IN_TEXT = /(?:^|[^A-Za-z0-9])(?:evt|csv|mf):\S/u;

/**
 * An event kicho itself caused (its journals or its 台帳 fed back by another automation): the remote
 * tag kicho puts on every journal, one of kicho's keys, or the id of a journal kicho made. Null when
 * none is seen. `ownJournalIds`: the MF仕訳ID column of the 台帳.
 */
export function loopReason(e: SourceEvent, ownJournalIds: ReadonlySet<string>): string | null {
  const fields = [e.id, e.type, e.description, e.partner, e.memo];
  if (fields.some((f) => REMOTE_TAG_IN_TEXT.test(f))) return 'kicho がMFの仕訳に付けるタグ kc-…';
  if (fields.some((f) => KEY_IN_TEXT.test(f))) return '台帳のキー（evt: / csv: / mf: …）';
  if (ownJournalIds.has(e.id)) return 'kicho がMFに登録した仕訳のID';
  return null;
}

/** The 台帳 row for an accepted event: 未判定, its 取込元 as 口座, the sender's words kept as text. */
export function eventRecord(e: SourceEvent, source: string, now: string): LedgerRecord {
  return {
    ...emptyRecord(),
    キー: e.key,
    状態: '未判定',
    取引日: e.date,
    入出金: e.direction,
    金額: e.amount,
    摘要: e.description,
    口座: source,
    取引先: e.partner,
    メモ: e.memo === '' ? '' : `送信元のメモ: ${e.memo}`,
    初回検知: now,
    更新日時: now,
  };
}

/** What one request does to the 台帳: the rows to append and each event's answer (accepted ones pending). */
export interface EventPlan {
  records: LedgerRecord[];
  results: EventResult[];
  /** Index into results of each record (confirmed after the write). */
  pending: Map<string, number>;
}

/**
 * Decides each event against the keys already on the 台帳 (`states`: key → 状態, read under the lock).
 * A key already there is `duplicate` with its row's 状態; a second copy inside the request is a duplicate
 * of the first; a loop or a bad field is `rejected`; the rest become rows.
 */
export function planEvents(
  checked: readonly ReturnType<typeof checkEvent>[],
  source: string,
  states: ReadonlyMap<string, string>,
  ownJournalIds: ReadonlySet<string>,
  now: string,
): EventPlan {
  const records: LedgerRecord[] = [];
  const results: EventResult[] = [];
  const pending = new Map<string, number>();
  for (const c of checked) {
    if (!c.ok) {
      results.push({ id: c.id, ...(c.type ? { type: c.type } : {}), status: 'rejected', message: c.message });
      continue;
    }
    const e = c.event;
    const base = { id: e.id, ...(e.type ? { type: e.type } : {}) };
    const known = states.get(e.key);
    if (known !== undefined) {
      results.push({ ...base, status: 'duplicate', state: known, message: EVENT_MSG.duplicate(known) });
      continue;
    }
    if (pending.has(e.key)) {
      results.push({ ...base, status: 'duplicate', state: '未判定', message: EVENT_MSG.duplicateInRequest });
      continue;
    }
    const loop = loopReason(e, ownJournalIds);
    if (loop) {
      results.push({ ...base, status: 'rejected', message: EVENT_MSG.loop(loop) });
      continue;
    }
    pending.set(e.key, results.length);
    records.push(eventRecord(e, source, now));
    results.push({ ...base, status: 'accepted', state: '未判定', message: EVENT_MSG.accepted });
  }
  return { records, results, pending };
}

/**
 * After the write: an accepted event whose row did not read back is not recorded — the sender is told
 * to send it again (safe: the key decides). Duplicates-in-request follow their first copy.
 */
export function confirmEvents(plan: EventPlan, readBack: ReadonlySet<string>): EventResult[] {
  const results = plan.results.map((r) => ({ ...r }));
  for (const [key, i] of plan.pending) {
    if (readBack.has(key)) continue;
    results[i] = {
      ...results[i],
      status: 'rejected',
      state: undefined,
      message: EVENT_MSG.notConfirmed,
      retry: true,
    };
  }
  return results.map((r) => {
    const { state, ...rest } = r;
    return state === undefined ? rest : r;
  });
}

/** Every event of a request the lock or a failure kept from being looked at: nothing recorded, retry. */
export function allRetry(checked: readonly ReturnType<typeof checkEvent>[], message: string): EventResult[] {
  return checked.map((c) =>
    c.ok
      ? {
          id: c.event.id,
          ...(c.event.type ? { type: c.event.type } : {}),
          status: 'rejected' as const,
          message,
          retry: true,
        }
      : { id: c.id, ...(c.type ? { type: c.type } : {}), status: 'rejected' as const, message: c.message },
  );
}

/** Counts for the ログ line and the summary. */
export function countResults(results: readonly EventResult[]): Record<EventStatus, number> {
  const c = { accepted: 0, duplicate: 0, rejected: 0 };
  for (const r of results) c[r.status] += 1;
  return c;
}

/** A constant-time comparison of two secrets (no early exit on the first different character). */
export function sameSecret(given: string, expected: string): boolean {
  if (expected === '') return false;
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= (given.charCodeAt(i) || 0) ^ expected.charCodeAt(i);
  return diff === 0;
}

/**
 * Failed secrets within a window: after `limit` failures in `windowMs`, further failures are answered
 * at once and not logged one by one (ログ and the quotas stay the owner's). The right secret is never
 * refused: an attacker must not be able to stop the shop's events by sending bad keys.
 */
export const FAILURE_LIMIT = 10;
export const FAILURE_WINDOW_MS = 10 * 60_000;

export interface FailureCount {
  since: number;
  count: number;
}

export function countFailure(prev: FailureCount | null, nowMs: number): FailureCount {
  if (!prev || nowMs - prev.since >= FAILURE_WINDOW_MS || nowMs < prev.since)
    return { since: nowMs, count: 1 };
  return { since: prev.since, count: prev.count + 1 };
}

/** Whether this failure is still logged (the first over the limit is logged once, saying so). */
export function failureLogged(c: FailureCount): 'log' | 'log-limit' | 'quiet' {
  return c.count <= FAILURE_LIMIT ? 'log' : c.count === FAILURE_LIMIT + 1 ? 'log-limit' : 'quiet';
}
