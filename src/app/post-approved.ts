/**
 * postApproved(): 登録を実行, the posting protocol of DESIGN §5 (core/protocol.ts) as an entry point:
 * the guards before posting, posting's ports over the real adapters (services/posting-port.ts: the 台帳,
 * the script lock, MF's journalize endpoint), the protocol, and the summary it reports.
 */

import { isArchived } from '../core/archive';
import { planToken } from '../core/dry-run';
import type { LedgerRow, RowChange } from '../core/ledger';
import { ledgerLooksLost, lostLedgerReason } from '../core/lost-ledger';
import type { Masters } from '../core/masters';
import type { ClockPort } from '../core/ports';
import { type PostingInput, type PostingSummary, postApproved as runProtocol } from '../core/protocol';
import type { AwaitingLookup } from '../core/reconcile';
import { SHEET } from '../core/schema';
import { postingBlockedBy, tokyoTime } from '../core/self-test';
import { importWindow, SETTING_NEEDS, type Settings } from '../core/settings';
import { archivedRows, readIndexForLookup } from '../gas/archive-sheet';
import { scriptClock, today } from '../gas/clock';
import { confirmByTyping } from '../gas/dialog';
import { ledgerSheet } from '../gas/ledger-sheet';
import { BUSY_MESSAGE } from '../gas/lock';
import { mfClient, officeRefusal } from '../gas/mf-connection';
import { lastLedgerRows, readSelfTest, recordLedgerRows } from '../gas/run-state';
import { readMasters } from '../gas/settings-sheet';
import { toast } from '../gas/toast';
import type { MfClient } from '../mf/client';
import { mfLookup } from '../mf/lookup';
import { indexRefusal } from '../services/archive-index';
import { kichoJournalsIn } from '../services/kicho-journals';
import { postingPort } from '../services/posting-port';
import { preflight, settingsFor } from '../services/preflight';
import { learnFromApprovals } from '../services/rule-sheet';
import { type RunContext, type RunResult, runEntry } from '../services/run';
import { uncheckedLedgerTextReason } from '../services/text-repair';

export const AUTH_FAILED = (message: string) =>
  `MFの認証に失敗したため、登録を途中で止めました（${message}）。APIキーが無効になったか、MFとの連携が解除された可能性があります。メニュー「記帳 > 接続と設定 > MFに接続」で接続し直してから、もう一度「登録を実行」してください。`;

/**
 * Rows this run left to 照合, and why (issue 25: after a killed run 「0 件」 said nothing of them). 送信中 rows
 * may have reached MF: they are looked up once their lease passes, never sent again before that.
 */
export const AWAITING_MSG = {
  sending: (n: number, from: string, interval: number) =>
    `${n} 件が「送信中」です（別の実行が送っている途中か、前の実行が途中で止まりました）。MFに届いたか分からないため、この実行では送りません。${from} を過ぎると照合がMFで確かめます（仕訳が見つかれば「完了」、見つからなければ照合猶予のあと「送信待ち」に戻して送ります）。照合は定期実行で ${interval} 分ごとに行います。そのあとメニュー「照合する」でもすぐ確かめられます。`,
  stale: (n: number, interval: number) =>
    `${n} 件が「送信中」のまま止まっています（前の実行が途中で止まりました）。MFに届いたか分からないため送り直さず、照合でMFを確かめます（仕訳が見つかれば「完了」、見つからなければ照合猶予のあと「送信待ち」に戻して送ります）。今すぐ確かめるにはメニュー「照合する」を実行してください（定期実行でも ${interval} 分ごとに照合します）。`,
  unknown: (n: number, interval: number) =>
    `${n} 件は前の送信の結果が「不明」で、照合を待っています（再送はしません）。照合がMFで確かめ、見つからなければ照合猶予のあと「送信待ち」に戻します。今すぐ確かめるにはメニュー「照合する」を実行してください（定期実行でも ${interval} 分ごとに照合します）。`,
} as const;

function describeAwaiting(a: AwaitingLookup | undefined, intervalMinutes: number): string[] {
  if (!a) return [];
  const out: string[] = [];
  if (a.sending > 0 && a.lookupFromMs !== null)
    out.push(
      AWAITING_MSG.sending(a.sending, tokyoTime(new Date(a.lookupFromMs).toISOString()), intervalMinutes),
    );
  if (a.stale > 0) out.push(AWAITING_MSG.stale(a.stale, intervalMinutes));
  if (a.unknown > 0) out.push(AWAITING_MSG.unknown(a.unknown, intervalMinutes));
  return out;
}

function describe(s: PostingSummary, intervalMinutes: number): string {
  const parts = [`${s.posted} 件を登録しました。`];
  if (s.unknown > 0) parts.push(`${s.unknown} 件は結果が不明です（照合で確認します。再送はしません）。`);
  if (s.failed > 0) parts.push(`${s.failed} 件はMFが拒否しました（台帳のメモを見て直してください）。`);
  if (s.returned > 0)
    parts.push(
      s.stoppedBy === 'unauthorized'
        ? `送信していない ${s.returned} 件は送信待ちのままです。`
        : `${s.returned} 件は送信を見送り、送信待ちに戻しました。`,
    );
  if (s.needsReview > 0) parts.push(`${s.needsReview} 件は要確認にしました。`);
  if (s.stoppedBy === 'time')
    parts.push('実行時間の上限が近いため途中で止めました。続きは次の実行で送ります。');
  if (s.stoppedBy === 'limit') parts.push('1回の送信上限に達しました。続きは次の実行で送ります。');
  parts.push(...describeAwaiting(s.awaiting, intervalMinutes));
  return parts.join(' ');
}

const LOST_LEDGER_TITLE = '台帳の行が減っています';
const CONTINUE_WORD = '続行';

/** Why posting must stop because the 台帳 looks lost, or null (MF is asked only when the 台帳 is empty). */
function lostLedger(
  rowsNow: number,
  last: number,
  settings: Settings,
  mf: MfClient,
  archived: number,
): string | null {
  // With rows archived, MF's journals are theirs too: an empty 台帳 is judged by the count alone.
  if (rowsNow > 0 || archived > 0 || ledgerLooksLost(rowsNow, last))
    return lostLedgerReason(rowsNow, last, null);
  const window = importWindow(settings, today());
  return lostLedgerReason(rowsNow, last, kichoJournalsIn(mfLookup(mf), window.start, window.end));
}

/** A dry run's plan, as the dialog's 実行 button sends it back. */
export interface PreviewedPlan {
  token: string;
  keys: readonly string[];
}

export const PLAN_CHANGED =
  'ドライランの後に台帳が変わったため、登録しませんでした。もう一度ドライランして内容を確かめてください。';

/**
 * selfTest: 本番前チェック's one-line posting check. The stored outcome of the last check does not block
 * (this check's own earlier items decide), and the lost-ledger guard refuses without asking.
 */
export interface PostOptions {
  selfTest?: boolean;
  /** A lower cap than 1回の送信上限 for this run (the schedule's share of today's quota). */
  batchLimit?: number;
}

/** What the guards before posting leave for the run. */
interface Ready {
  settings: Settings;
  /** Notes so far (settings, a confirmed lost-ledger guard): the run's own messages go around them. */
  messages: string[];
  sheet: ReturnType<typeof ledgerSheet>;
  /** The 台帳's data rows when the run began. */
  rowsNow: number;
  mf: MfClient;
  archived?: (key: string) => boolean;
}

/**
 * Before anything is claimed: the sheets and settings, then each guard that stops posting, in
 * the order they have always been asked (the ones that need no MF call first).
 */
function readyToPost(
  ctx: RunContext,
  client: MfClient | undefined,
  options: PostOptions,
): Ready | { refused: RunResult } {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters, SHEET.sources);
  if (refused) return { refused };
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.post);
  if (refusal) return { refused: refusal };
  const messages = [...notes];
  const stop = (why: string, more: Partial<RunResult> = {}) => ({
    refused: { ok: false, count: 0, messages: [why, ...messages], ...more },
  });
  const sheet = ledgerSheet();
  // Data rows without reading them all (the protocol reads the 台帳 under the lock anyway).
  const rowsNow = Math.max(0, sheet.getLastRow() - 1);
  const last = lastLedgerRows();
  // A 台帳 from an earlier version waits for 初期設定's text repair (no confirmation bypasses it).
  const unchecked = uncheckedLedgerTextReason(rowsNow);
  if (unchecked) return stop(unchecked);
  // 本番前チェック found something that makes exactly-once unsafe: nothing is sent until it passes.
  const blocked = options.selfTest ? null : postingBlockedBy(readSelfTest());
  if (blocked) return stop(blocked, { blocked: true });
  // The key index, read once: a run stops when it cannot be trusted (issue 25), and a 送信待ち row whose
  // key it holds — the line imported again beside its archived row — is never claimed (DESIGN §9.8).
  const { index, trouble } = readIndexForLookup();
  const noIndex = indexRefusal(trouble);
  if (noIndex) return { refused: { ...noIndex, messages: [...noIndex.messages, ...messages] } };
  const archived = index.entries.size === 0 ? undefined : (key: string) => isArchived(index, key);
  const mf = client ?? mfClient();
  // One 台帳, one office (DESIGN §5): nothing is claimed or sent while another office is connected.
  const otherOffice = officeRefusal(mf);
  if (otherOffice) return stop(otherOffice);
  // recordLedgerRows keeps 台帳 + archive: the 台帳 itself should hold that minus what is archived now,
  // so an archive is not a loss and a 台帳 emptied beside a big archive still is.
  const archivedCount = archivedRows();
  const lost = lostLedger(rowsNow, last - archivedCount, settings, mf, archivedCount);
  if (lost) {
    // DESIGN §5 guard: a trigger never bypasses it; a person may, on purpose, in a menu run.
    const confirmed =
      !ctx.fromTrigger && !options.selfTest && confirmByTyping(LOST_LEDGER_TITLE, lost, CONTINUE_WORD);
    if (!confirmed) return stop(lost);
    messages.unshift(`${ctx.who || '実行した人'} が台帳の減少を確認して登録を続けました。`);
  }
  return { settings, messages, sheet, rowsNow, mf, archived };
}

/** A previewed plan's check, made under the lock at the first claim: the 台帳 still gives the same plan. */
function previewCheck(
  previewed: PreviewedPlan,
  o: {
    settings: Settings;
    masters: Masters;
    who: string;
    clock: ClockPort;
    archived?: (key: string) => boolean;
  },
): PostingInput['plan'] {
  return {
    keys: new Set(previewed.keys),
    changed: (table) =>
      planToken(table, {
        masters: o.masters,
        batchLimit: o.settings.batchLimit,
        who: o.who,
        now: o.clock.iso(),
        archived: o.archived,
      }) === previewed.token
        ? null
        : PLAN_CHANGED,
  };
}

/** What a run that reached MF says, once the 台帳's row count is recorded (DESIGN §9.7: a stop is no 成功). */
function postedResult(
  summary: PostingSummary,
  intervalMinutes: number,
  messages: readonly string[],
): RunResult {
  if (summary.stoppedBy === 'unauthorized') {
    // DESIGN §9.7: not 成功 — the run stopped; say why and what to do.
    return {
      ...summary,
      ok: false,
      count: summary.posted,
      messages: [
        AUTH_FAILED(summary.authMessage ?? ''),
        describe(summary, intervalMinutes),
        ...summary.messages,
        ...messages,
      ],
    };
  }
  // Everything claimed came back unsent (MF unreachable, busy, its lines not readable): not 成功.
  const nothingDone =
    summary.claimed > 0 &&
    summary.posted + summary.unknown + summary.failed === 0 &&
    summary.returned === summary.claimed;
  return {
    ...summary,
    // Apps Script refused a send (permission, daily quota): the run stopped short; say so in ログ.
    ...(nothingDone || summary.stoppedBy === 'refused' ? { ok: false } : {}),
    count: summary.posted,
    messages: [
      ...(nothingDone
        ? [
            'MFに1件も送れませんでした（MFに接続できないか、混み合っているか、明細を確かめられませんでした）。行は送信待ちのまま、次の実行で送ります。理由は各行のメモにあります。',
          ]
        : []),
      describe(summary, intervalMinutes),
      ...summary.messages,
      ...messages,
    ],
  };
}

/**
 * 登録を実行: the guards (readyToPost), posting's ports (services/posting-port.ts), the protocol
 * (core/protocol.ts), what the run taught, and what it says.
 */
export function runPost(
  ctx: RunContext,
  client?: MfClient,
  previewed?: PreviewedPlan,
  options: PostOptions = {},
): RunResult {
  const ready = readyToPost(ctx, client, options);
  if ('refused' in ready) return ready.refused;
  const { settings, messages, sheet, rowsNow, mf, archived } = ready;
  const masters = readMasters();
  const clock = scriptClock();
  const port = postingPort({
    sheet,
    narrow: !previewed,
    settings,
    mf,
    masters,
    clock,
    notice: (m) => messages.unshift(m),
  });
  const applied: { rows: readonly LedgerRow[]; ops: readonly RowChange[] }[] = [];
  const summary = runProtocol({
    ledger: port.ledger,
    lock: port.lock,
    sender: port.sender,
    clock,
    masters,
    who: ctx.who,
    startedAt: ctx.startedAt,
    batchLimit: Math.min(settings.batchLimit, options.batchLimit ?? settings.batchLimit),
    archived,
    onOperations: (rows, ops) => applied.push({ rows, ops }),
    progress: (sent, total) => toast(ctx.fromTrigger, `${sent}/${total} 件送信済み`),
    plan: previewed && previewCheck(previewed, { settings, masters, who: ctx.who, clock, archived }),
  });
  port.recordLearnt();
  // Approvals consumed here (not by classifyPending) still teach ルール候補; after the lock is released.
  for (const a of applied) messages.push(...learnFromApprovals(ctx.who, a.rows, a.ops));
  if (summary.busy) return { ...summary, ok: false, count: 0, messages: [BUSY_MESSAGE] };
  if (summary.stoppedBy === 'plan-changed')
    return { ...summary, ok: false, count: 0, messages: [...summary.messages, ...messages] };
  recordLedgerRows(rowsNow);
  return postedResult(summary, settings.reconcileIntervalMinutes, messages);
}

export function postApproved(e?: unknown) {
  return runEntry('登録の実行', e, (ctx) => runPost(ctx));
}

/** The dry-run dialog's 実行: exactly the plan it showed, or nothing if the 台帳 changed since. */
export function postPreviewed(token: unknown, keys: unknown) {
  const plan: PreviewedPlan = {
    token: String(token ?? ''),
    keys: Array.isArray(keys) ? keys.map(String) : [],
  };
  // The dialog shows the result itself: an alert now would replace it.
  return runEntry('登録の実行（ドライランから）', undefined, (ctx) => runPost(ctx, undefined, plan), {
    show: false,
  });
}
