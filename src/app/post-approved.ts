/**
 * postApproved(): the posting protocol of DESIGN §5 over the real adapters: the script lock, the
 * 台帳 sheet, and MF's journalize endpoint with the row's remote tag.
 */

import { isArchived } from '../core/archive';
import { planToken } from '../core/dry-run';
import { type InvoiceKind, invoicePolicy, type KindsSeen } from '../core/invoice';
import type { LedgerRow, RowChange } from '../core/ledger';
import { ledgerLooksLost, lostLedgerReason } from '../core/lost-ledger';
import { type PostingSummary, postApproved as runProtocol } from '../core/protocol';
import type { AwaitingLookup } from '../core/reconcile';
import { redactSecrets } from '../core/redact';
import { SHEET } from '../core/schema';
import { postingBlockedBy, tokyoTime } from '../core/self-test';
import { importWindow, SETTING_NEEDS, type Settings } from '../core/settings';
import { archivedRows, readIndexForLookup } from '../gas/archive-sheet';
import { scriptClock, today } from '../gas/clock';
import { confirmByTyping } from '../gas/dialog';
import { postingReader } from '../gas/ledger-scan';
import { ledgerSheet, readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { BUSY_MESSAGE, scriptLock } from '../gas/lock';
import { mfClient, officeRefusal } from '../gas/mf-connection';
import { knownSecrets } from '../gas/properties';
import {
  lastLedgerRows,
  readInvoiceKinds,
  readSelfTest,
  recordInvoiceKinds,
  recordLedgerRows,
} from '../gas/run-state';
import { readMasters } from '../gas/settings-sheet';
import { readSources } from '../gas/sources-sheet';
import { toast } from '../gas/toast';
import type { MfClient } from '../mf/client';
import { mfLookup } from '../mf/lookup';
import { indexRefusal } from '../services/archive-index';
import { watchDoneRows, withSentMark } from '../services/done-rows';
import { kichoJournalsIn } from '../services/kicho-journals';
import { mfSender } from '../services/mf-sender';
import { preflight, preflightLedgerHeader, settingsFor } from '../services/preflight';
import { noteSends } from '../services/recent-sends';
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

export function runPost(
  ctx: RunContext,
  client?: MfClient,
  previewed?: PreviewedPlan,
  options: PostOptions = {},
): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings, SHEET.masters, SHEET.sources);
  if (refused) return refused;
  const { settings, notes, refusal } = settingsFor(SETTING_NEEDS.post);
  if (refusal) return refusal;
  const messages = [...notes];
  const sheet = ledgerSheet();
  // Data rows without reading them all (the protocol reads the 台帳 under the lock anyway).
  const rowsNow = Math.max(0, sheet.getLastRow() - 1);
  const last = lastLedgerRows();
  // A 台帳 from an earlier version waits for 初期設定's text repair (no confirmation bypasses it).
  const unchecked = uncheckedLedgerTextReason(rowsNow);
  if (unchecked) return { ok: false, count: 0, messages: [unchecked, ...messages] };
  // 本番前チェック found something that makes exactly-once unsafe: nothing is sent until it passes.
  const blocked = options.selfTest ? null : postingBlockedBy(readSelfTest());
  if (blocked) return { ok: false, count: 0, messages: [blocked, ...messages], blocked: true };
  // The key index, read once: a run stops when it cannot be trusted (issue 25), and a 送信待ち row whose
  // key it holds — the line imported again beside its archived row — is never claimed (DESIGN §9.8).
  const { index, trouble } = readIndexForLookup();
  const noIndex = indexRefusal(trouble);
  if (noIndex) return { ...noIndex, messages: [...noIndex.messages, ...messages] };
  const archived = index.entries.size === 0 ? undefined : (key: string) => isArchived(index, key);
  const mf = client ?? mfClient();
  // One 台帳, one office (DESIGN §5): nothing is claimed or sent while another office is connected.
  const otherOffice = officeRefusal(mf);
  if (otherOffice) return { ok: false, count: 0, messages: [otherOffice, ...messages] };
  // recordLedgerRows keeps 台帳 + archive: the 台帳 itself should hold that minus what is archived now,
  // so an archive is not a loss and a 台帳 emptied beside a big archive still is.
  const archivedCount = archivedRows();
  const lost = lostLedger(rowsNow, last - archivedCount, settings, mf, archivedCount);
  if (lost) {
    // DESIGN §5 guard: a trigger never bypasses it; a person may, on purpose, in a menu run.
    const confirmed =
      !ctx.fromTrigger && !options.selfTest && confirmByTyping(LOST_LEDGER_TITLE, lost, CONTINUE_WORD);
    if (!confirmed) return { ok: false, count: 0, messages: [lost, ...messages] };
    messages.unshift(`${ctx.who || '実行した人'} が台帳の減少を確認して登録を続けました。`);
  }
  const masters = readMasters();
  const clock = scriptClock();
  let watched = false;
  let known: string[] | null = null;
  const secrets = () => {
    known ??= knownSecrets();
    return known;
  };
  const applied: { rows: readonly LedgerRow[]; ops: readonly RowChange[] }[] = [];
  // インボイス区分: the 設定 and what MF was seen taking; what this run's journals show MF takes is kept.
  const invoice = invoicePolicy(settings, readInvoiceKinds());
  const learnt: KindsSeen = {};
  const learn = (kind: InvoiceKind, seen: 'accepted' | 'refused') => {
    if (seen === 'accepted' && invoice.seen[kind]?.seen === 'accepted') return;
    learnt[kind] = { seen, at: clock.iso() };
    // A kind MF stored as another stops the next rows of this run too (policy.seen is read at each send).
    if (seen === 'refused') invoice.seen[kind] = learnt[kind];
  };
  // Only the columns and rows posting needs (issue 18); a previewed plan is checked on the whole 台帳.
  const reader = previewed ? null : postingReader(sheet, preflightLedgerHeader() ?? undefined);
  const summary = runProtocol({
    ledger: {
      // Reads and writes happen under the lock: the watch on completed rows goes with them.
      read: () => {
        const table = reader ? reader.read() : readLedger(sheet);
        if (!watched) {
          watched = true;
          const gone = watchDoneRows(table);
          if (gone) messages.unshift(gone);
        }
        return table;
      },
      write: (read, rawChanges, options) => {
        // A change to a row the scan did not read whole: the whole 台帳 first (rare: rows moved).
        const { table, changes: raw } = reader
          ? reader.wholeFor(read, rawChanges)
          : { table: read, changes: rawChanges };
        // MF's words reach メモ: whatever piece of a credential they echo is cut first (DESIGN §9.5).
        const changes = raw.map((c) =>
          typeof c.patch.メモ === 'string' && c.patch.メモ !== ''
            ? { ...c, patch: { ...c.patch, メモ: redactSecrets(c.patch.メモ, secrets()) } }
            : c,
        );
        // Claims are remembered before the write (a run killed after it must not forget them), rows
        // that went back unsent are forgotten after it.
        noteSends(
          changes.filter((c) => c.patch.状態 === '送信中'),
          settings.graceMinutes,
        );
        const written = withSentMark(table, changes, () =>
          writeLedgerChanges(table, changes, sheet, { ...options, formats: reader?.formats }),
        );
        const held = new Set(written.withheld.map((c) => c.rowNumber));
        noteSends(
          changes.filter((c) => !held.has(c.rowNumber) && c.patch.状態 !== '送信中'),
          settings.graceMinutes,
        );
        return written;
      },
    },
    lock: scriptLock(),
    sender: mfSender(mf, masters, readSources(), invoice, learn),
    clock,
    masters,
    who: ctx.who,
    startedAt: ctx.startedAt,
    batchLimit: Math.min(settings.batchLimit, options.batchLimit ?? settings.batchLimit),
    archived,
    onOperations: (rows, ops) => applied.push({ rows, ops }),
    progress: (sent, total) => toast(ctx.fromTrigger, `${sent}/${total} 件送信済み`),
    plan: previewed && {
      keys: new Set(previewed.keys),
      changed: (table) =>
        planToken(table, {
          masters,
          batchLimit: settings.batchLimit,
          who: ctx.who,
          now: clock.iso(),
          archived,
        }) === previewed.token
          ? null
          : PLAN_CHANGED,
    },
  });
  recordInvoiceKinds(learnt);
  // Approvals consumed here (not by classifyPending) still teach ルール候補; after the lock is released.
  for (const a of applied) messages.push(...learnFromApprovals(ctx.who, a.rows, a.ops));
  if (summary.busy) {
    return {
      ...summary,
      ok: false,
      count: 0,
      messages: [BUSY_MESSAGE],
    };
  }
  if (summary.stoppedBy === 'plan-changed') {
    return { ...summary, ok: false, count: 0, messages: [...summary.messages, ...messages] };
  }
  recordLedgerRows(rowsNow);
  if (summary.stoppedBy === 'unauthorized') {
    // DESIGN §9.7: not 成功 — the run stopped; say why and what to do.
    return {
      ...summary,
      ok: false,
      count: summary.posted,
      messages: [
        AUTH_FAILED(summary.authMessage ?? ''),
        describe(summary, settings.reconcileIntervalMinutes),
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
      describe(summary, settings.reconcileIntervalMinutes),
      ...summary.messages,
      ...messages,
    ],
  };
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
