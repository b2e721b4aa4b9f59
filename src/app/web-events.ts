/**
 * doPost(e) (DESIGN §6, issue 17): events from other automations (Zapier, Make, n8n, a shop) become
 * 台帳 rows, once each. The order matters:
 *   1. the secret (`?key=`), before anything else is read — a wrong one learns nothing;
 *   2. permissions and the sheets, as every entry point;
 *   3. the body and every event checked outside the lock (pure);
 *   4. under the script lock: the keys on the 台帳, the new rows in one append, read back, one ログ line.
 * The lock closes the gap between "is this id on the 台帳?" and "add it" that 30 concurrent copies of
 * one event would otherwise slip through. Every path answers JSON, and says whether sending the same
 * request again is safe: it always is, since the key decides; `retry: false` means it would not help.
 */
import { archivedKind, stateOfKind, stopsLookups, troubleMessage } from '../core/archive';
import { findSource, sourceNameProblem } from '../core/csv/sources';
import { rememberedDigest } from '../core/event-memory';
import {
  allRetry,
  checkEvent,
  confirmEvents,
  countFailure,
  countResults,
  EVENT_MSG,
  type EventAnswer,
  type EventPlan,
  type EventResult,
  failureLogged,
  parseEventRequest,
  planEvents,
  refuseEach,
  sameSecret,
} from '../core/events';
import type { LedgerRecord, LedgerRow, LedgerTable } from '../core/ledger';
import { redactSecrets } from '../core/redact';
import { SHEET } from '../core/schema';
import { importBlockedBy } from '../core/self-test';
import { readIndexForLookup } from '../gas/archive-sheet';
import { jsonOutput } from '../gas/content';
import { appendEventRows, readEventView } from '../gas/event-ledger';
import { narrowLedger } from '../gas/ledger-scan';
import { ledgerSheet, writeLedgerChanges } from '../gas/ledger-sheet';
import { underScriptLock } from '../gas/lock';
import { knownSecrets } from '../gas/properties';
import { readMfBehaviour, readSelfTest, recordLedgerRows } from '../gas/run-state';
import { currentUserEmail } from '../gas/session';
import { readSettings } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import {
  newWebhookSecret,
  readFailures,
  removeWebhookSecret,
  webAppUrl,
  webhookSecret,
  writeFailures,
} from '../gas/webhook-secret';
import { readEventMemory, writeEventMemory } from '../services/event-memory';
import { refuseWithoutPermissions } from '../services/permission-gate';
import { preflight } from '../services/preflight';
import { holdRecentlySent } from '../services/recent-sends';
import { listOnReview } from '../services/review-sheet';
import { appendRunLog } from '../services/run-log';

export const WEB_ACTION = 'イベント受付';

/**
 * How long a request waits for the lock. A request holds it for about a second (bench: イベント受付), so
 * about a dozen requests arriving together are served by one wait; the rest are told to send again,
 * which is safe. Senders give up on a slow answer after some tens of seconds and resend anyway.
 */
export const EVENT_LOCK_WAIT_MS = 15_000;
/** ログ shows at most this many rejected events of one request (the sender has every one in its answer). */
const LOGGED_REJECTIONS = 5;

export const WEB_MSG = {
  notReady: (why: string) =>
    `kicho がこのリクエストを処理できませんでした: ${why} 何も記録していません。直したあと、同じ内容をそのまま送り直してください（二重にはなりません）。`,
  tagsDropped:
    '本番前チェックで、この MF は POST /journals の仕訳にタグを残さないと分かりました。送信元のイベントは登録のあとタグで照合するため、二重登録を防げません。イベントは受け付けていません（kicho の持ち主に連絡してください）。',
  badSecretLog: '正しくない key（または key なし）のリクエストを断りました。',
  quietLog: (n: number) =>
    `正しくない key のリクエストが 10 分間に ${n} 回を超えました。以後 10 分間は、断った記録をログに 1 行ずつは残しません（正しい key のリクエストはそのまま受け付けます）。URL が漏れていれば「設定」で key を作り直してください。`,
} as const;

interface WebAppEvent {
  parameter?: Record<string, string>;
  postData?: { contents?: string; length?: number; type?: string };
}

/** The web app's handler: always a JSON TextOutput, whatever happened. */
export function doPost(e: unknown): GoogleAppsScript.Content.TextOutput {
  let answer: EventAnswer;
  try {
    answer = receiveEvents((e ?? {}) as WebAppEvent);
  } catch (err) {
    // After the write or before it, the same request sent again is answered by its keys: safe.
    const why = redactSecrets(err instanceof Error ? err.message : String(err), secretsOrNone());
    answer = { results: [], error: EVENT_MSG.failed(why), retry: true };
  }
  return jsonOutput(answer);
}

function secretsOrNone(): string[] {
  try {
    return knownSecrets();
  } catch (_e) {
    return [];
  }
}

function log(ok: boolean, count: number, message: string): void {
  appendRunLog({ action: WEB_ACTION, fromTrigger: false, ok, count, message });
}

/**
 * A refusal of the whole request, logged under the lock (concurrent ログ inserts would overlap). Once the
 * events could be read, each gets a result of its own with the reason (a sender reads `results` per event).
 */
function refuseRequest(error: string, retry: boolean, events: readonly unknown[] = []): EventAnswer {
  underScriptLock(() => log(false, 0, error), 2_000);
  return { results: refuseEach(events, error, retry), error, retry };
}

function rejectSecret(): EventAnswer {
  const failures = countFailure(readFailures(), Date.now());
  writeFailures(failures);
  const mode = failureLogged(failures);
  // Never the given key in ログ or in the answer: it may be the real one with a typo, or another secret.
  if (mode !== 'quiet')
    underScriptLock(
      () => log(false, 0, mode === 'log' ? WEB_MSG.badSecretLog : WEB_MSG.quietLog(failures.count - 1)),
      2_000,
    );
  return { results: [], error: EVENT_MSG.badSecret, retry: false };
}

function receiveEvents(e: WebAppEvent): EventAnswer {
  const given = typeof e.parameter?.key === 'string' ? e.parameter.key : '';
  if (!sameSecret(given, webhookSecret())) return rejectSecret();

  // Pure: read before the permission check, so that even that refusal answers each event.
  const parsed = parseEventRequest(e.postData?.contents, sourceNameProblem);
  const refused = refuseWithoutPermissions(
    WEB_ACTION,
    { startedAt: Date.now(), fromTrigger: false, who: currentUserEmail() },
    false,
  );
  if (refused) {
    const error = WEB_MSG.notReady(refused.messages.join(' '));
    return { results: refuseEach(parsed.events ?? [], error, true), error, retry: true };
  }
  if (!parsed.ok) return refuseRequest(parsed.error, false, parsed.events);

  const { events } = parsed;
  const shape = preflightEvents();
  if (shape) return refuseRequest(WEB_MSG.notReady(shape), true, events);
  const blocked = importBlockedBy(readSelfTest());
  if (blocked) return refuseRequest(WEB_MSG.notReady(blocked), true, events);
  if (readMfBehaviour()?.createTags === 'dropped') return refuseRequest(WEB_MSG.tagsDropped, false, events);
  const source = findSource(readSources(), parsed.source);
  if (!source) return refuseRequest(EVENT_MSG.unknownSource(parsed.source), false, events);

  // Keys carry the spelling on 取込元, so 「Shop」 and 「shop」 are one source and one key.
  const checked = parsed.events.map((raw) => checkEvent(raw, source.name));
  // Read before the lock: the lock is held as briefly as the check-then-write needs.
  const graceMinutes = readSettings().settings.graceMinutes;
  const done = underScriptLock(() => {
    const sheet = ledgerSheet();
    const view = readEventView(sheet);
    // An event whose row moved to 台帳アーカイブ is a duplicate with its archived 状態 (one index read).
    // Without a trustworthy index an archived event would look new: each event is told, nothing written.
    const { index, trouble } = readIndexForLookup();
    if (stopsLookups(trouble)) {
      const why = WEB_MSG.notReady(troubleMessage(trouble));
      log(false, 0, `取込元「${source.name}」から ${checked.length} 件: ${why}`);
      return allRetry(checked, why);
    }
    const states = new Map(view.states);
    for (const c of checked) {
      const kind = c.ok && !states.has(c.event.key) ? archivedKind(index, c.event.key) : undefined;
      if (c.ok && kind) states.set(c.event.key, stateOfKind(kind));
    }
    // An id already on the 台帳 is compared with its row: a corrected resend is not a plain duplicate.
    const resent = resentRows(sheet, checked, view.states);
    const now = new Date().toISOString();
    const memory = readEventMemory();
    const plan = planEvents(checked, source.name, states, view.journalIds, now, resent.rows, (key) =>
      rememberedDigest(memory.entries, key),
    );
    writeEventMemory(memory, plan.remember);
    // Only system cells (状態, メモ, 更新日時): written whatever a person is typing, re-located by key if
    // rows moved (the 台帳's own writer).
    if (resent.table && plan.changes.length > 0) writeLedgerChanges(resent.table, plan.changes, sheet);
    // An event sent a moment ago whose row a person deleted comes back 不明: looked up before any send.
    const held = holdRecentlySent(plan.records, graceMinutes);
    const rows = held.rows.map((r) => {
      const memo = plan.reviewed.get(r.キー);
      return memo !== undefined && r.状態 === '未判定' ? { ...r, 状態: '要確認' as const, メモ: memo } : r;
    });
    const readBack = appendEventRows(rows, sheet, view);
    const results = confirmEvents(withStates(plan, rows), readBack);
    if (plan.records.length > 0) recordLedgerRows(view.rows + readBack.size);
    listOnReview(changedRows(plan, resent.rows), graceMinutes);
    logResults(source.name, results);
    return results;
  }, EVENT_LOCK_WAIT_MS);
  if (!done) return { results: allRetry(checked, EVENT_MSG.busy), retry: true };
  return { results: done.value };
}

/** The answer's 状態 is the row's as written (不明 for a row held by recent sends, 要確認 for one changed). */
function withStates(plan: EventPlan, rows: readonly LedgerRecord[]): EventPlan {
  const results = plan.results.map((r) => ({ ...r }));
  for (const row of rows) {
    const i = plan.pending.get(row.キー);
    if (i === undefined || row.状態 === '未判定') continue;
    results[i].state = row.状態;
    results[i].message = row.状態 === '要確認' ? EVENT_MSG.acceptedChanged : EVENT_MSG.acceptedHeld;
  }
  return { ...plan, results };
}

/**
 * The 台帳 rows of the request's ids that are already there, read whole (only when there are some): the
 * key and 状態 columns again, then one span (gas/ledger-scan.ts narrowLedger). The table is what the write
 * of a changed resend needs. Archived ids have no row here and stay plain duplicates.
 */
function resentRows(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  checked: readonly ReturnType<typeof checkEvent>[],
  onLedger: ReadonlyMap<string, string>,
): { table: LedgerTable | null; rows: Map<string, LedgerRow> } {
  const keys = new Set(checked.flatMap((c) => (c.ok && onLedger.has(c.event.key) ? [c.event.key] : [])));
  if (keys.size === 0) return { table: null, rows: new Map() };
  const narrow = narrowLedger(sheet, ['キー', '状態'], (scan) =>
    scan.rows.filter((r) => keys.has(r.record.キー)).map((r) => r.rowNumber),
  );
  const rows = new Map<string, LedgerRow>();
  for (const r of narrow.table.rows)
    if (keys.has(r.record.キー) && narrow.whole.has(r.rowNumber) && !rows.has(r.record.キー))
      rows.set(r.record.キー, r);
  return { table: narrow.table, rows };
}

/** The rows a changed resend was written to, as they now read (for 要確認). */
function changedRows(plan: EventPlan, rows: ReadonlyMap<string, LedgerRow>): LedgerRow[] {
  return plan.changes.flatMap((c) => {
    const row = rows.get(c.key);
    return row ? [{ rowNumber: row.rowNumber, record: { ...row.record, ...c.patch } as LedgerRecord }] : [];
  });
}

/** The sheets a request needs, checked like every entry point (a renamed 台帳 stops it). */
function preflightEvents(): string | null {
  const refusal = preflight(SHEET.ledger, SHEET.sources, SHEET.settings);
  return refusal ? refusal.messages.join(' ') : null;
}

function logResults(source: string, results: readonly EventResult[]): void {
  const c = countResults(results);
  const changed = results.filter((r) => r.differs).length;
  const rejected = results.filter((r) => r.status === 'rejected');
  const shown = rejected
    .slice(0, LOGGED_REJECTIONS)
    .map((r) => `id「${r.id.slice(0, 40)}」${r.message}`)
    .join(' ');
  const more = rejected.length > LOGGED_REJECTIONS ? ` ほか ${rejected.length - LOGGED_REJECTIONS} 件。` : '';
  log(
    rejected.length === 0,
    c.accepted,
    `取込元「${source}」から ${results.length} 件: 記録 ${c.accepted} 件、記録済み ${c.duplicate} 件、受け付けなかった ${c.rejected} 件${changed > 0 ? `（うち、記録済みの id で内容の違うもの ${changed} 件: 要確認に載せました）` : ''}。${shown ? ` ${shown}` : ''}${more}`,
  );
}

// The 設定 dialog's targets (google.script.run). The secret is returned once, to the person who made it.

export interface WebhookInfo {
  enabled: boolean;
  /** The web app's URL without the key, or '' when the script is not deployed as a web app yet. */
  url: string;
}

export function webhookInfo(): WebhookInfo {
  return { enabled: webhookSecret() !== '', url: webAppUrl() };
}

/** Makes a new secret (the old URL stops working at once) and answers the full URL, this one time. */
export function rotateWebhookSecret(): WebhookInfo & { fullUrl: string; message: string } {
  const had = webhookSecret() !== '';
  const secret = newWebhookSecret();
  const url = webAppUrl();
  const message = had
    ? 'イベント受付の key を作り直しました。前の URL はもう使えません。送信元（Zapier・Make・n8n など）の URL を、下の新しい URL に置き換えてください。'
    : 'イベント受付の key を作りました。下の URL を送信元（Zapier・Make・n8n など）に貼ってください。';
  log(
    true,
    0,
    had
      ? 'イベント受付の key を作り直しました（key は記録しません）。'
      : 'イベント受付の key を作りました（key は記録しません）。',
  );
  return {
    enabled: true,
    url,
    fullUrl: url === '' ? '' : `${url}?key=${secret}`,
    message:
      url === ''
        ? `${message} まだウェブアプリとしてデプロイされていないため URL を作れません。Apps Script エディタの「デプロイ > 新しいデプロイ > ウェブアプリ」（実行するユーザー: 自分、アクセス: 全員）でデプロイしてから、もう一度 key を作ってください。`
        : `${message} この URL は今だけ表示します（key は kicho のプロパティにだけ保存し、シートやログには書きません）。`,
  };
}

/** Stops the web app from accepting anything (every request is then answered with the generic rejection). */
export function disableWebhook(): WebhookInfo & { message: string } {
  removeWebhookSecret();
  log(true, 0, 'イベント受付を止めました（key を削除しました）。');
  return {
    enabled: false,
    url: webAppUrl(),
    message: 'イベント受付を止めました。どの URL からも受け付けません。',
  };
}
