/**
 * Events other automations send to kicho's web app (DESIGN §2 keys, §6 doPost). Pure: the body is
 * read and checked here, each event becomes one 台帳 record under `evt:<取込元>:<id>[:<type>]`, and the
 * answer is one result per event. The web handler (app/web-events.ts) adds the secret, the lock and the
 * sheet. Every field is hostile input: nothing here evaluates it, and the text writer stores it as text.
 */
import { eventDigest } from './event-memory';
import { emptyRecord } from './intake';
import type { LedgerKey } from './keys';
import type { LedgerRecord, LedgerRow, RowChange } from './ledger';
import { utf8Bytes } from './sha256';
import { transition } from './states';

/** DESIGN §6: at most 100 events and 50 KB per request (one lock hold stays short). */
export const MAX_EVENTS = 100;
export const MAX_BODY_BYTES = 50_000;
/** Field lengths: ids and types are keys (a 台帳 cell people read); descriptions are MF remarks and more. */
const MAX_ID_CHARS = 100;
const MAX_TYPE_CHARS = 50;
const MAX_TEXT_CHARS = 1_000;
const MAX_PARTNER_CHARS = 100;
/**
 * An event stands for a statement line, and MF's own limit for a statement line's amount is ¥999,999,999,999
 * (POST /transactions `value` maximum, also GET /transactions' value_max: reference/mf-openapi.ja.yaml). Above
 * it no line is real — a sender that sent sen instead of yen, or digits run together — and MF could not hold
 * it as a line either, so it is refused with that reason (issue 25: ¥10,000,000,000,000 was posted).
 */
export const MAX_AMOUNT = 999_999_999_999;

/** The fields of an event (DESIGN §6). Any other is refused by name, never dropped. */
export const EVENT_FIELDS = [
  'id',
  'type',
  'date',
  'amount',
  'direction',
  'description',
  'partner',
  'memo',
] as const;
const REQUEST_FIELDS = ['source', 'events'] as const;
/** Fields a sender may send hoping to choose what kicho decides on the 台帳 (rules, AI, a person). */
const DECIDED_ON_LEDGER = new Set([
  'account',
  'account_id',
  'account_name',
  'account_item',
  'category',
  'sub_account',
  'sub_account_name',
  'tax',
  'tax_id',
  'tax_name',
  '勘定科目',
  '補助科目',
  '税区分',
]);

export type EventStatus = 'accepted' | 'duplicate' | 'rejected';

/** One event's answer (DESIGN §6). `retry`: sending this same event again may succeed and is safe. */
export interface EventResult {
  id: string;
  type?: string;
  status: EventStatus;
  state?: string;
  message: string;
  retry?: boolean;
  /**
   * The same id sent again with other content: the fields (as the sender names them) that differ from the
   * row kicho holds. The answer is then `rejected` (the new content was not recorded), never `duplicate`.
   */
  differs?: EventDifference['field'][];
}

/** One field of a resent event that differs from its 台帳 row. */
export interface EventDifference {
  field: 'date' | 'direction' | 'amount' | 'description' | 'partner';
  label: '取引日' | '入出金' | '金額' | '摘要' | '取引先';
  ledger: string;
  sent: string;
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
  acceptedChanged:
    '台帳に記録しました。同じリクエストの中に同じ id で内容の違うイベントがあったため、「要確認」にしました（台帳の担当者がどちらが正しいかを確かめます）。',
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
  unknownField: () =>
    `kicho の知らない項目です（使える項目: ${EVENT_FIELDS.join(', ')}）。名前の綴りを確かめるか、この項目を外して送ってください。`,
  decidedOnLedger:
    'kicho はこの項目を受け取りません。勘定科目・補助科目・税区分は台帳で決めます（シート「ルール」、AI判定、人の確認）。この項目を外して送ってください（いつも同じ科目なら、シート「ルール」に摘要で当たるルールを加えると自動で決まります）。',
  unknownRequestField: (names: string) =>
    `本文の項目「${names}」は kicho の知らない項目です（使えるのは source と events だけです）。名前の綴りを確かめるか、この項目を外して送ってください。何も記録していません。`,
  notText: (position: number) =>
    `${position} 文字目に読めない文字があります（文字化けの「\uFFFD」か、UTF-8 にできない文字）。送信元で本文を UTF-8 で送ってください（Content-Type: application/json; charset=utf-8）。`,
  changed: (diffs: string, state: string) =>
    state === '要確認'
      ? `この id は記録済みですが、内容が前と違います（${diffs}）。今回の内容は記録していません。まだMFに登録していないため、台帳の行を「要確認」にして止めました。台帳の担当者が正しい内容に直してから承認します。別の取引なら、別の id で送ってください。`
      : `この id は記録済みですが、内容が前と違います（${diffs}）。今回の内容は記録していません。台帳の行は「${state}」です（${state === '完了' ? 'MFに登録済み' : '登録しないと決めた行'}）。台帳の「要確認」に載せたので、台帳の担当者が確かめます。別の取引なら、別の id で送ってください。`,
  changedInFlight: (diffs: string, state: string) =>
    `この id は記録済みですが、内容が前と違います（${diffs}）。台帳の行は今MFへの送信を確かめている途中（${state}）のため、違いを台帳に書けませんでした。数分後に同じ内容をそのまま送り直してください。`,
  changedInRequest: (diffs: string) =>
    `同じリクエストの中に同じ id が内容を変えて二度あります（${diffs}）。最初のものを「要確認」で記録し、これは記録していません。`,
  loop: (what: string) =>
    `このイベントは kicho 自身の出力（${what}）から来ています。ループを防ぐため記録していません。送信元の自動化が kicho の登録した仕訳や台帳を拾っていないか確かめてください。`,
} as const;

/** The start of the メモ kicho writes on a row when its id came again with other content (要確認 lists it). */
export const EVENT_CHANGED_MEMO = '送信元から同じ id で内容の違うイベントが届きました';

export function eventChangedMemo(diffs: string, at: string): string {
  return `${EVENT_CHANGED_MEMO}（${at}）: ${diffs}。今回の内容は記録していません。`;
}

export function isEventChangedMemo(memo: string): boolean {
  return memo.startsWith(EVENT_CHANGED_MEMO);
}

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

/**
 * The 1-based character position of the first character that is no text, or 0: U+FFFD (what a decoder
 * puts where it could not read the bytes — the sender's text was not UTF-8) or a lone surrogate (a JSON
 * escape like \uD83D with no pair, which has no UTF-8 form). Either would be stored and posted as is.
 */
export function unreadableAt(s: string): number {
  let position = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    position += 1;
    if (c === 0xfffd) return position;
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (!(next >= 0xdc00 && next <= 0xdfff)) return position;
      i += 1;
    } else if (c >= 0xdc00 && c <= 0xdfff) return position;
  }
  return 0;
}

function text(value: unknown, max: number, required: boolean, multiline = false): Check<string> {
  if (value === undefined || value === null || value === '') {
    return required ? { ok: false, why: 'ありません。' } : { ok: true, value: '' };
  }
  if (typeof value !== 'string' && typeof value !== 'number')
    return { ok: false, why: '文字列にしてください。' };
  const s = String(value);
  if (s.trim() === '') return required ? { ok: false, why: '空です。' } : { ok: true, value: '' };
  const unreadable = unreadableAt(s);
  if (unreadable > 0) return { ok: false, why: EVENT_MSG.notText(unreadable) };
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
  if (n > MAX_AMOUNT)
    return {
      ok: false,
      why: `大きすぎます（${MAX_AMOUNT.toLocaleString('en-US')} 円まで。MF の明細の金額の上限です）。金額が円の整数か（銭や 100 倍の値でないか）、桁が正しいかを送信元で確かめてください。`,
    };
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
  const unknown = unknownFields(e, EVENT_FIELDS);
  if (unknown.length > 0) {
    const decided = unknown.every((f) => DECIDED_ON_LEDGER.has(f.normalize('NFKC').toLowerCase()));
    const names = unknown.join('、');
    return fail(names, decided ? EVENT_MSG.decidedOnLedger : EVENT_MSG.unknownField());
  }
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

/**
 * Keys of `o` that are not `known`, as a person can read them (at most 40 characters each, control
 * characters shown as �, at most five named).
 */
function unknownFields(o: Record<string, unknown>, known: readonly string[]): string[] {
  const all = Object.keys(o).filter((k) => !known.includes(k));
  return all.slice(0, 5).map((k) => {
    const shown = [...k].map((ch) => {
      const c = ch.codePointAt(0) as number;
      return c < 32 || c === 127 ? '\uFFFD' : ch;
    });
    return shown.length > 40 ? `${shown.slice(0, 40).join('')}…` : shown.join('');
  });
}

/**
 * The request as read: a problem with the whole of it, or the source and each event's check. A problem
 * found once the events array could be read carries it, so that every event gets an answer of its own.
 */
export type ParsedRequest =
  | { ok: false; error: string; events?: readonly unknown[] }
  | { ok: true; source: string; events: readonly unknown[] };

/**
 * A byte order mark before the JSON: RFC 8259 §8.1 says senders must not add one and that a parser may
 * ignore it "in the interests of interoperability" — some tools (and a file saved by Windows Notepad) do.
 */
function withoutBom(body: string): string {
  return body.charCodeAt(0) === 0xfeff ? body.slice(1) : body;
}

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
    parsed = JSON.parse(withoutBom(body));
  } catch (_e) {
    return { ok: false, error: EVENT_MSG.notJson };
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    return { ok: false, error: EVENT_MSG.notObject };
  const p = parsed as Record<string, unknown>;
  const events =
    Array.isArray(p.events) && p.events.length > 0 ? (p.events as readonly unknown[]) : undefined;
  const refuse = (error: string): ParsedRequest => ({ ok: false, error, ...(events ? { events } : {}) });
  // A misspelt name first ("sorce"): it explains the rest.
  const unknown = unknownFields(p, REQUEST_FIELDS);
  if (unknown.length > 0) return refuse(EVENT_MSG.unknownRequestField(unknown.join('」「')));
  if (p.source === undefined || p.source === null || p.source === '') return refuse(EVENT_MSG.noSource);
  if (typeof p.source !== 'string') return refuse(EVENT_MSG.badSource('文字列にしてください。'));
  const source = p.source.trim();
  const unreadable = unreadableAt(source);
  if (unreadable > 0) return refuse(EVENT_MSG.badSource(EVENT_MSG.notText(unreadable)));
  const problem = sourceProblem(source);
  if (problem) return refuse(EVENT_MSG.badSource(problem));
  if (source.includes(':') || hasControl(source))
    return refuse(EVENT_MSG.badSource('「:」や制御文字は使えません。'));
  if (!events) return refuse(EVENT_MSG.noEvents);
  if (events.length > MAX_EVENTS) return refuse(EVENT_MSG.tooManyEvents(events.length));
  return { ok: true, source, events };
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
  /** Rows already on the 台帳 whose id came again with other content: held or marked for 要確認. */
  changes: RowChange[];
  /**
   * New rows to record at 要確認 with this メモ rather than 未判定: their id came twice in the request with
   * other content. Applied after the recent-sends hold (a row held 不明 stays 不明).
   */
  reviewed: Map<string, string>;
  /** Each key's content digest to remember now: every new row, and a changed resend once written. */
  remember: Map<string, string>;
}

function yen(n: number | string): string {
  return typeof n === 'number' ? `${n.toLocaleString('en-US')} 円` : `「${n}」`;
}

function quoted(text: string): string {
  const chars = [...text];
  return `「${chars.length > 40 ? `${chars.slice(0, 40).join('')}…` : text}」`;
}

/**
 * What a resent event would change on its 台帳 row: the line's fields (取引日, 入出金, 金額, 摘要) and, when
 * the sender gives one, the partner (取引先). Shown to say what differs once the event's digest
 * (event-memory.ts) says the sender changed something; never compared with メモ (kicho's column).
 */
export function eventDifferences(e: SourceEvent, r: LedgerRecord): EventDifference[] {
  const out: EventDifference[] = [];
  if (r.取引日 !== e.date) out.push({ field: 'date', label: '取引日', ledger: r.取引日, sent: e.date });
  if (r.入出金 !== e.direction)
    out.push({ field: 'direction', label: '入出金', ledger: r.入出金, sent: e.direction });
  if (r.金額 !== e.amount)
    out.push({ field: 'amount', label: '金額', ledger: yen(r.金額), sent: yen(e.amount) });
  if (r.摘要 !== e.description)
    out.push({ field: 'description', label: '摘要', ledger: quoted(r.摘要), sent: quoted(e.description) });
  if (e.partner !== '' && r.取引先 !== e.partner)
    out.push({ field: 'partner', label: '取引先', ledger: quoted(r.取引先), sent: quoted(e.partner) });
  return out;
}

/** 「金額: 台帳 3,300 円 → 今回 3,500 円、…」 */
export function describeDifferences(diffs: readonly EventDifference[]): string {
  const v = (text: string) => (text.startsWith('「') ? text : ` ${text}`);
  return diffs.map((d) => `${d.label}: 台帳${v(d.ledger)} → 今回${v(d.sent)}`).join('、');
}

/** States whose row has not gone to MF: a changed resend holds it at 要確認 until a person looks. */
const NOT_SENT = new Set(['未判定', '要確認', '送信待ち', '失敗']);
/** States whose row is settled: a changed resend is noted in メモ and listed on 要確認. */
const SETTLED = new Set(['完了', '除外']);

/** The answer and the 台帳 change for an event whose id is on `row` with other content. */
function changedResend(
  base: { id: string; type?: string },
  row: LedgerRow,
  diffs: readonly EventDifference[],
  now: string,
): { result: EventResult; change: RowChange | null } {
  const text = describeDifferences(diffs);
  const differs = diffs.map((d) => d.field);
  const state = row.record.状態;
  const memo = eventChangedMemo(text, now);
  const key = row.record.キー;
  if (NOT_SENT.has(state) || SETTLED.has(state)) {
    const next = NOT_SENT.has(state) ? '要確認' : state;
    const patch = NOT_SENT.has(state)
      ? { 状態: transition(state, '要確認', 'event resent with other content'), メモ: memo, 更新日時: now }
      : { メモ: memo, 更新日時: now };
    return {
      result: {
        ...base,
        status: 'rejected',
        state: next,
        differs,
        message: EVENT_MSG.changed(text, next),
        retry: false,
      },
      change: { key, rowNumber: row.rowNumber, patch },
    };
  }
  // 送信中 / 不明 (or a state a person typed): the protocol's rows; the sender tries again later.
  return {
    result: {
      ...base,
      status: 'rejected',
      state,
      differs,
      message: EVENT_MSG.changedInFlight(text, state),
      retry: true,
    },
    change: null,
  };
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
  /** The 台帳 rows of keys already there, read whole (an archived key has none: a plain duplicate). */
  rows: ReadonlyMap<string, LedgerRow> = new Map(),
  /** The digest each key's content had when it was received (event-memory.ts), when still remembered. */
  remembered: (key: string) => string | undefined = () => undefined,
): EventPlan {
  const records: LedgerRecord[] = [];
  const results: EventResult[] = [];
  const pending = new Map<string, number>();
  const changes: RowChange[] = [];
  const changed = new Set<string>();
  const reviewed = new Map<string, string>();
  const remember = new Map<string, string>();
  const firsts = new Map<string, SourceEvent>();
  for (const c of checked) {
    if (!c.ok) {
      results.push({ id: c.id, ...(c.type ? { type: c.type } : {}), status: 'rejected', message: c.message });
      continue;
    }
    const e = c.event;
    const base = { id: e.id, ...(e.type ? { type: e.type } : {}) };
    const known = states.get(e.key);
    const row = rows.get(e.key);
    const digest = eventDigest(e);
    const before = row && !changed.has(e.key) ? remembered(e.key) : undefined;
    if (row && before !== undefined && before !== digest) {
      // The sender changed what this id says (people's own edits of the row never count).
      const diffs = eventDifferences(e, row.record);
      if (diffs.length > 0) {
        const { result, change } = changedResend(base, row, diffs, now);
        changed.add(e.key);
        // Written: remembered as the latest content, so the sender's retries of it are duplicates. In
        // flight: not, so the retry it is asked for is compared again.
        if (change) {
          changes.push(change);
          remember.set(e.key, digest);
        }
        results.push(result);
        continue;
      }
      // The row already says what the sender now says (a person put it in): nothing to hold.
      remember.set(e.key, digest);
    }
    // Received before kicho remembered contents (or forgotten since): this content is the one to compare with.
    if (row && before === undefined && !changed.has(e.key) && !remember.has(e.key))
      remember.set(e.key, digest);
    if (known !== undefined) {
      results.push({ ...base, status: 'duplicate', state: known, message: EVENT_MSG.duplicate(known) });
      continue;
    }
    const first = firsts.get(e.key);
    if (first && eventDigest(first) !== digest) {
      const inRequest = eventDifferences(e, eventRecord(first, source, now));
      if (inRequest.length > 0) {
        // Which of the two is right is for a person: the first is recorded, held at 要確認.
        const text = describeDifferences(inRequest);
        reviewed.set(e.key, eventChangedMemo(text, now));
        results.push({
          ...base,
          status: 'rejected',
          differs: inRequest.map((d) => d.field),
          message: EVENT_MSG.changedInRequest(text),
          retry: false,
        });
        continue;
      }
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
    firsts.set(e.key, e);
    remember.set(e.key, digest);
    records.push(eventRecord(e, source, now));
    results.push({ ...base, status: 'accepted', state: '未判定', message: EVENT_MSG.accepted });
  }
  return { records, results, pending, changes, reviewed, remember };
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

/**
 * Every event of a request refused as a whole (an unknown 取引元, too many events, the 台帳 not ready):
 * one answer each, with the request's reason (issue 25: the answer had no result at all).
 */
export function refuseEach(events: readonly unknown[], message: string, retry: boolean): EventResult[] {
  return events.map((raw) => {
    const o = raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
    const id = o.id === undefined || o.id === null ? '' : String(o.id).slice(0, 100);
    const type = typeof o.type === 'string' && o.type.trim() !== '' ? o.type.trim().slice(0, 50) : '';
    return { id, ...(type ? { type } : {}), status: 'rejected' as const, message, retry };
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
