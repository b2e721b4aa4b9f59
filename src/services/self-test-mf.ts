/**
 * 本番前チェック's MF items: the connected office (and the one-office rule), its accounting periods, one
 * read per permission kicho needs, and — only after the person ticks the question that names the line —
 * the posting check: exactly one 送信待ち line posted through the normal protocol (postApproved's own
 * runPost), then MF asked whether it shows it (journals by transaction_ids or by tag, the line's
 * journalizing status, the kicho tag kept, how long the listing took), then the same posting run again to
 * show that nothing is sent the second time. What MF was seen doing is kept in KICHO_MF_BEHAVIOUR and
 * used by the product (core/mf-behaviour.ts); a long listing lag raises 照合猶予.
 */

import { planToken } from '../core/dry-run';
import { fingerprint } from '../core/fingerprint';
import {
  type InvoiceKind,
  invoiceForSend,
  invoicePolicy,
  isUndocumentedWrite,
  kindLabel,
} from '../core/invoice';
import { isCsvKey, isMfKey, remoteTagOf } from '../core/keys';
import type { LedgerRow } from '../core/ledger';
import {
  describeLag,
  graceForLag,
  type IdFormSeen,
  MAX_GRACE_MINUTES,
  type MfBehaviour,
  type PendingCheck,
  type TagsSeen,
} from '../core/mf-behaviour';
import type { CheckItem, CheckOutcome, CheckReport, CheckResult } from '../core/self-test';
import { tokyoTime } from '../core/self-test';
import { importWindow } from '../core/settings';
import { sha256Hex } from '../core/sha256';
import { sleep, today } from '../gas/clock';
import { readLedger } from '../gas/ledger-sheet';
import { connectionMode, ledgerOffice, officeRefusal } from '../gas/mf-connection';
import {
  forgetInvoiceKind,
  readInvoiceKinds,
  readMfBehaviour,
  recordInvoiceKinds,
  recordMfBehaviour,
} from '../gas/run-state';
import { readMasters, readSettings, writeSetting } from '../gas/settings-sheet';
import type { MfClient } from '../mf/client';
import { MfApiError } from '../mf/errors';
import { sameMfId } from '../mf/ids';
import { SCOPE_LABELS } from '../mf/scopes';
import type { MfJournal } from '../mf/types';
import { accountingPeriodFor } from '../mf/windows';
import { appendRunLog } from './run-log';
import type { SelfTestContext } from './self-test-items';

/** How long the posting check waits for MF to list the new journal (the whole check must end within 6 min). */
export const LISTING_WAIT_MS = 120_000;
/** A previous check's journal is looked for again this long. */
const PENDING_WAIT_MS = 20_000;
/** No waiting past this point of the execution: the second posting and the writes still have to run. */
const STOP_WAITING_AT_MS = 4 * 60_000;
/** Polls back off 1, 2, 4, 8 then every 15 seconds. */
const POLL_MAX_MS = 15_000;

const GRACE_ITEM = '照合猶予（分）';

const NOT_READY: CheckOutcome = {
  result: '注意',
  detail: 'MF に接続できていないため、確かめていません（上の「接続している事業者」を見てください）。',
};

/** The MF state the items share: set by the first item. */
export interface MfCheckState {
  ready: boolean;
}

function ready(ctx: SelfTestContext): MfClient | null {
  return ctx.mfState?.ready ? ctx.mfClient() : null;
}

const mfOffice: CheckItem<SelfTestContext> = {
  id: 'mf-office',
  group: 'MF',
  title: '接続している事業者',
  critical: false,
  run(ctx) {
    ctx.mfState = { ready: false };
    const mode = connectionMode();
    if (mode === 'none') {
      return {
        result: '注意',
        detail:
          'MF に接続していません。メニュー「記帳 > 接続と設定 > MFに接続」で接続してから、もう一度実行してください（MF の項目はそのあと確かめます）。',
      };
    }
    const client = ctx.mfClient();
    const refusal = officeRefusal(client);
    if (refusal) return { result: 'NG', detail: `${refusal}（MF への登録も読み取りも行いません）` };
    let office: ReturnType<MfClient['office']>;
    try {
      office = client.office();
    } catch (e) {
      return { result: '注意', detail: `MF の事業者情報を読めませんでした: ${messageOf(e)}` };
    }
    ctx.mfState = { ready: true };
    const recorded = ledgerOffice();
    const how = mode === 'apikey' ? 'API キー' : 'OAuth';
    return {
      result: 'OK',
      detail: `「${office.name}」（事業者番号 ${office.code}、${how}）に接続しています。${
        recorded?.code === office.code
          ? 'この台帳はこの事業者のものとして記録されています（1 つの台帳は 1 つの事業者だけに登録します）。'
          : ''
      }`,
    };
  },
};

const mfPeriods: CheckItem<SelfTestContext> = {
  id: 'mf-periods',
  group: 'MF',
  title: '会計期間',
  critical: false,
  run(ctx) {
    const client = ready(ctx);
    if (!client) return NOT_READY;
    const periods = client.periods();
    if (periods.length === 0) {
      return {
        result: '注意',
        detail: 'MF に会計期間がありません。MF で事業年度（会計期間）を設定してください。',
      };
    }
    const listed = periods
      .slice(0, 3)
      .map((p) => `${p.start_date}〜${p.end_date}`)
      .join('、');
    const window = importWindow(readSettings().settings, today());
    if (window.problem)
      return { result: '注意', detail: `会計期間 ${periods.length} 件（${listed}）。${window.problem}` };
    const outside = [
      ['今日', today()],
      ['取込開始日', window.start],
      ['取込終了日', window.end],
    ].filter(([, date]) => accountingPeriodFor(date, periods) === null);
    if (outside.length === 0) {
      return {
        result: 'OK',
        detail: `会計期間 ${periods.length} 件（${listed}${periods.length > 3 ? ' ほか' : ''}）。取込期間 ${window.start}〜${window.end} はどれかの会計期間に入っています。`,
      };
    }
    return {
      result: '注意',
      detail: `会計期間 ${periods.length} 件（${listed}）。${outside.map(([what, date]) => `${what}（${date}）`).join('、')}を含む会計期間がありません。会計期間の外の明細は送信せず「要確認」にします。MF で事業年度（会計期間）を追加するか、設定の取込期間を直してください。`,
    };
  },
};

/** The date reads are asked for: today when it is in a period, else the newest period's last day. */
function readDate(client: MfClient): string {
  const periods = client.periods();
  const date = today();
  return accountingPeriodFor(date, periods) || periods.length === 0 ? date : periods[0].end_date;
}

const mfPermissions: CheckItem<SelfTestContext> = {
  id: 'mf-permissions',
  group: 'MF',
  title: 'MF の権限（読み取り）',
  critical: false,
  run(ctx) {
    const client = ready(ctx);
    if (!client) return NOT_READY;
    const date = readDate(client);
    const reads: [scope: string, read: () => unknown][] = [
      ['mfc/accounting/offices.read', () => client.office()],
      ['mfc/accounting/accounts.read', () => client.accounts()],
      ['mfc/accounting/taxes.read', () => client.taxes()],
      ['mfc/accounting/trade_partners.read', () => client.tradePartners()],
      ['mfc/accounting/connected_account.read', () => client.connectedAccounts()],
      ['mfc/accounting/transaction.read', () => client.listTransactions({ startDate: date, endDate: date })],
      ['mfc/accounting/journal.read', () => client.listJournals({ startDate: date, endDate: date })],
    ];
    const missing: string[] = [];
    const failed: string[] = [];
    for (const [scope, read] of reads) {
      try {
        read();
      } catch (e) {
        if (e instanceof MfApiError && e.status === 403) missing.push(e.message);
        else failed.push(`「${SCOPE_LABELS[scope]}」（${messageOf(e)}）`);
      }
    }
    const write = '仕訳の登録の権限は、次の項目（1 件だけ登録）で確かめます。';
    if (missing.length > 0) {
      return {
        result: 'NG',
        detail: `MF の権限が足りません: ${[...new Set(missing)].join(' ')} 足りないあいだ、その権限を使う処理は止まります。${write}`,
      };
    }
    if (failed.length > 0) {
      return { result: '注意', detail: `確かめられなかった権限があります: ${failed.join('、')}。${write}` };
    }
    return {
      result: 'OK',
      detail: `kicho が使う読み取りの権限 ${reads.length} 個（${reads.map(([s]) => SCOPE_LABELS[s]).join('・')}）で、実際に読み取れました。${write}`,
    };
  },
};

// The posting check

interface Candidate {
  row: LedgerRow;
  key: string;
  kind: 'mf' | 'csv';
}

/** Open CSV rows: what a CSV book would still send. */
const OPEN_STATES = new Set(['未判定', '要確認', '送信待ち', '送信中', '不明', '失敗']);

/**
 * The line to post: the first 送信待ち row in sheet order, a statement line first, unless journalize has
 * been checked already and POST /journals has not (then the first CSV line).
 */
function candidate(rows: readonly LedgerRow[], behaviour: MfBehaviour | null): Candidate | null {
  // A row with a pending 操作 may change on the claim: not one to name in a question.
  const waiting = rows.filter((r) => r.record.状態 === '送信待ち' && String(r.record.操作 ?? '') === '');
  // A purchase needing an インボイス区分 MF has not been seen taking (70 % …) is asked first (issue 27).
  const known = waiting.length > 0 ? invoiceKnown() : null;
  const unsure = known ? waiting.filter((r) => undocumentedKindOf(r, known) !== null) : [];
  const pool = unsure.length > 0 ? unsure : waiting;
  const mf = pool.find((r) => isMfKey(r.record.キー) && r.record.明細ID !== '');
  const csv = pool.find((r) => isCsvKey(r.record.キー));
  const preferCsv = !!csv && behaviour?.journalizeTags !== undefined && behaviour.createTags === undefined;
  const row = preferCsv ? csv : (mf ?? csv);
  if (!row) return null;
  return { row, key: row.record.キー, kind: isMfKey(row.record.キー) ? 'mf' : 'csv' };
}

/**
 * The インボイス区分 outside MF's published write enum that a row's journal needs and MF has not been seen
 * taking (null when none): what only posting can settle.
 */
function undocumentedKindOf(row: LedgerRow, known = invoiceKnown()): InvoiceKind | null {
  const out = invoiceForSend(row.record, known.masters, known.policy);
  if (out.kind !== 'send' || !isUndocumentedWrite(out.invoiceKind)) return null;
  return known.seen[out.invoiceKind]?.seen === 'accepted' ? null : out.invoiceKind;
}

/** What the インボイス decision needs, read once (settings, マスタ, what MF was seen taking). */
function invoiceKnown() {
  const seen = readInvoiceKinds();
  // Nothing counts as refused here: the check asks MF again.
  return { seen, policy: invoicePolicy(readSettings().settings, {}), masters: readMasters() };
}

function short(text: unknown, n = 30): string {
  const chars = [...String(text)];
  return chars.length > n ? `${chars.slice(0, n).join('')}…` : chars.join('');
}

function describeRow(row: LedgerRow): string {
  const r = row.record;
  const amount = Number(r.金額);
  return `台帳 ${row.rowNumber} 行目（${r.取引日}、${r.入出金} ${Number.isFinite(amount) ? amount.toLocaleString('en-US') : r.金額} 円、「${short(r.摘要)}」、${r.勘定科目 || '勘定科目なし'}）`;
}

function findRow(key: string): LedgerRow | undefined {
  return readLedger().rows.find((r) => r.record.キー === key);
}

function isCreate(s: { method: string; path: string }): boolean {
  return s.method === 'post' && /\/api\/v3\/(transactions\/journalize|journals)$/.test(s.path);
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** One run of the normal posting protocol for exactly this key (a dry run's plan of one row). */
function postOnly(
  ctx: SelfTestContext,
  key: string,
): { creates: { status: number | null; at: number }[]; refused: string | null } {
  const { settings } = readSettings();
  const masters = readMasters();
  const token = planToken(readLedger(), {
    masters,
    batchLimit: settings.batchLimit,
    who: ctx.who,
    now: new Date().toISOString(),
  });
  const from = ctx.mfLog.length;
  const result = ctx.post(ctx.mfClient(), { token, keys: [key] });
  const creates = ctx.mfLog.slice(from).filter(isCreate);
  ctx.postMessages = result.messages;
  // A guard refused the whole run before claiming (another office, a lost 台帳, an unrepaired 台帳).
  const refused =
    result.ok === false && result.count === 0 && creates.length === 0 ? result.messages[0] : null;
  return { creates, refused: refused ?? null };
}

interface Seen {
  /** The journal as read by id (tags), or as listed. */
  journal: MfJournal | null;
  /** When the listing first showed it (ms), or null. */
  listedAt: number | null;
  listed: MfJournal | null;
  /** The line's journalizing status last seen (MF lines). */
  status: string | null;
}

/** Asks MF until it lists the journal (and shows the line journalized), or the wait is over. */
function lookFor(ctx: SelfTestContext, p: PendingCheck, waitMs: number): Seen {
  const client = ctx.mfClient();
  const deadline = Math.min(Date.now() + waitMs, ctx.run.startedAt + STOP_WAITING_AT_MS);
  const seen: Seen = { journal: null, listedAt: null, listed: null, status: null };
  for (let wait = 1000; ; wait = Math.min(wait * 2, POLL_MAX_MS)) {
    if (!seen.journal) seen.journal = client.journal(p.journalId);
    if (!seen.listed) {
      const listing =
        p.kind === 'mf'
          ? client.journalsBetween(p.date, p.date, { transactionIds: [p.lineId] })
          : client.journalsBetween(p.date, p.date);
      const found = listing.find((j) => j.id === p.journalId);
      if (found) {
        seen.listed = found;
        seen.listedAt = Date.now();
      }
    }
    if (p.kind === 'mf' && (seen.status === null || seen.status === 'none')) {
      const line = client
        .listTransactions({ startDate: p.date, endDate: p.date })
        .find((t) => sameMfId(t.id, p.lineId));
      seen.status = line ? line.journalizing_status : null;
    }
    const done =
      seen.listed !== null && (p.kind === 'csv' || (seen.status !== null && seen.status !== 'none'));
    const left = deadline - Date.now();
    if (done || left <= 0) return seen;
    sleep(Math.min(wait, left));
  }
}

function idForm(listedId: string | null, lineId: string): IdFormSeen {
  if (listedId === lineId) return 'identical';
  return sameMfId(listedId, lineId) ? 'case' : 'different';
}

const ORDER: Record<CheckResult, number> = { OK: 0, 注意: 1, NG: 2 };

class Outcome {
  result: CheckResult = 'OK';
  blocks = false;
  readonly parts: string[] = [];

  add(text: string, result: CheckResult = 'OK', blocks = false): void {
    this.parts.push(text);
    if (ORDER[result] > ORDER[this.result]) this.result = result;
    if (blocks) this.blocks = true;
  }

  done(): CheckOutcome {
    return { result: this.result, detail: this.parts.join(''), blocksPosting: this.blocks };
  }
}

/** What a journal seen in MF says: transaction id form, status, tags, the lag and 照合猶予. */
function judge(
  out: Outcome,
  p: PendingCheck,
  seen: Seen,
  lagMs: number | null,
  behaviour: MfBehaviour,
  upperBound: boolean,
): void {
  const tag = remoteTagOf(p.key);
  const listedIn = p.kind === 'mf' ? '明細ID（transaction_ids）で' : '取引日で';
  if (seen.listed && lagMs !== null) {
    out.add(
      `MF の仕訳一覧に${listedIn}出てきました（登録から${describeLag(lagMs)}${upperBound ? '以内' : ''}）。`,
    );
    behaviour.lagMs = lagMs;
  }
  if (p.kind === 'mf' && seen.listed) {
    const form = idForm(seen.listed.transaction_id, p.lineId);
    behaviour.transactionIdForm = form;
    if (form === 'identical') out.add('仕訳の transaction_id は明細ID と同じ文字でした。');
    else if (form === 'case')
      out.add(
        '仕訳の transaction_id は明細ID と「%」のあとの英字の大小だけが違いました（kicho は同じ ID として比べます）。',
      );
    else
      out.add(
        `仕訳の transaction_id（${seen.listed.transaction_id ?? 'なし'}）が明細ID（${p.lineId}）と合いません。結果の分からない登録は明細ID で確かめるため、二重登録を防げません。登録を止めます。`,
        'NG',
        true,
      );
  }
  if (p.kind === 'mf') {
    if (seen.status && seen.status !== 'none') out.add('明細は「仕訳済み」になりました。');
    else if (seen.status === 'none')
      out.add(
        '明細はまだ「未仕訳」と表示されています（MF の一覧に遅れがあります）。取り込み直しても、台帳のキーで二重にはなりません。',
        '注意',
      );
  }
  const journal = seen.journal ?? seen.listed;
  if (journal) {
    const kept: TagsSeen = journal.tags.includes(tag) ? 'kept' : 'dropped';
    if (p.kind === 'mf') behaviour.journalizeTags = kept;
    else behaviour.createTags = kept;
    if (kept === 'kept') out.add(`kicho のタグ（${tag}）が仕訳に残っていました。`);
    else if (p.kind === 'mf')
      out.add(
        'MF は明細からの仕訳に kicho のタグを残しませんでした。明細の仕訳は明細ID で照合するので登録には差し支えません。「台帳を復元」と、台帳が空のときの確認は、明細ID のある仕訳をすべて登録済みとして扱います。',
        '注意',
      );
    else {
      const open = openCsvRows();
      const why =
        'MF は POST /journals の仕訳に kicho のタグを残しませんでした。CSV の明細は登録のあとタグで照合するため、結果の分からない登録を確かめられず、二重登録を防げません。';
      if (open > 0)
        out.add(
          `${why}台帳にまだ登録していない CSV の行が ${open} 件あるため、登録を止めます（CSV の行を「除外」にしてからもう一度実行すると、MF の明細の登録を再開します）。`,
          'NG',
          true,
        );
      else out.add(`${why}これからは CSV の取込と登録を行いません（MF の明細は登録できます）。`, '注意');
    }
  }
  if (lagMs !== null) raiseGrace(out, lagMs);
}

/** The same posting again: nothing may be sent, and the row stays 完了 with the same journal. */
function secondRun(ctx: SelfTestContext, out: Outcome, p: PendingCheck): void {
  const { creates, refused } = postOnly(ctx, p.key);
  const row = findRow(p.key);
  if (refused) {
    out.add(`同じ登録をもう一度実行して確かめることは、できませんでした（${refused}）。`, '注意');
    return;
  }
  if (creates.length === 0 && row?.record.状態 === '完了' && row.record.MF仕訳ID === p.journalId) {
    out.add('同じ登録をもう一度実行し、2 回目は何も送られないことを確かめました。');
    return;
  }
  out.add(
    `同じ登録をもう一度実行したところ、${creates.length > 0 ? `MF に ${creates.length} 件送りました` : `台帳の行が「${String(row?.record.状態 ?? '見つかりません')}」になりました`}。二重登録を防ぐ仕組みが働いていないおそれがあるため、登録を止めます。`,
    'NG',
    true,
  );
}

function save(behaviour: MfBehaviour): void {
  recordMfBehaviour({ ...behaviour, at: new Date().toISOString() });
}

function verifyPending(ctx: SelfTestContext, behaviour: MfBehaviour, p: PendingCheck): CheckOutcome {
  const out = new Outcome();
  const row = findRow(p.key);
  const next: MfBehaviour = { ...behaviour };
  delete next.pending;
  if (row?.record.状態 !== '完了') {
    save(next);
    return {
      result: '注意',
      detail: `前回（${tokyoTime(p.postedAt)}）の本番前チェックで登録した行が、台帳で「完了」になっていません。もう一度実行すると、別の行で確かめます。`,
    };
  }
  const seen = lookFor(ctx, p, PENDING_WAIT_MS);
  const posted = Date.parse(p.postedAt);
  out.add(`前回（${tokyoTime(p.postedAt)}）の本番前チェックで登録した${describeRow(row)}を確かめました。`);
  if (!seen.listed || seen.listedAt === null) {
    next.pending = { ...p, waitedMs: Date.now() - posted };
    save(next);
    out.add(
      `登録から ${describeLag(Date.now() - posted)}たっても、MF の仕訳一覧に出てきません（仕訳 ID ${p.journalId} は${seen.journal ? 'ID では読めます' : 'ID でも読めません'}）。結果の分からない登録を MF で確かめられないため、登録を止めます。しばらくしてから、もう一度本番前チェックを実行してください。`,
      'NG',
      true,
    );
    return out.done();
  }
  judge(out, p, seen, seen.listedAt - posted, next, true);
  secondRun(ctx, out, p);
  save(next);
  return out.done();
}

const mfPosting: CheckItem<SelfTestContext> = {
  id: 'mf-posting',
  group: 'MF',
  title: '1 件だけ登録して確かめる',
  critical: true,
  confirm(ctx, earlier) {
    if (!ctx.mfState?.ready || blocking(earlier).length > 0) return null;
    const behaviour = readMfBehaviour();
    if (behaviour?.pending) return null;
    const c = candidate(readLedger().rows, behaviour);
    if (!c) return null;
    ctx.candidateKey = c.key;
    // Done before for this kind of line: the last outcome stands; the dialog offers to do it again.
    const seenBefore = c.kind === 'mf' ? behaviour?.journalizeTags : behaviour?.createTags;
    const what =
      c.kind === 'mf'
        ? '明細ID で仕訳が見つかるか、明細が「仕訳済み」になるか、kicho のタグが残るか'
        : 'kicho のタグで仕訳が見つかるか';
    return {
      question: `${describeRow(c.row)}を、ふだんの「登録を実行」と同じ手順で MF に 1 件だけ登録します（この行の本来の登録なので、あとで消す必要はありません）。そのあと、${what}と、MF が一覧に出すまでの時間を確かめ、同じ登録をもう一度実行して 2 回目は何も送られないことを確かめます（最大 2 分ほどかかります）。`,
      token: sha256Hex(`${c.key}|${fingerprint(c.row.record)}`).slice(0, 16),
      ...(seenBefore !== undefined ? { optional: true } : {}),
    };
  },
  unconfirmed: () => {
    const behaviour = readMfBehaviour();
    if (behaviour && (behaviour.journalizeTags !== undefined || behaviour.createTags !== undefined)) {
      return standing(behaviour, 'もう一度確かめるときは、画面でチェックを入れてください。');
    }
    return {
      result: '注意',
      detail:
        'まだ行っていません（画面で、登録する行を確かめてチェックを入れると行います）。MF が仕訳をどう扱うか（タグが残るか、一覧に出るまでの時間など）は、この項目でしか確かめられません。',
    };
  },
  run(ctx, earlier) {
    if (!ctx.mfState?.ready) return NOT_READY;
    const stop = blocking(earlier);
    if (stop.length > 0) {
      return {
        result: '注意',
        detail: `二重登録を防ぐ仕組みにかかわる NG（${stop.join('、')}）があるため、MF には登録していません。直してから、もう一度実行してください。`,
      };
    }
    const behaviour: MfBehaviour = readMfBehaviour() ?? { v: 1, at: new Date().toISOString() };
    if (behaviour.pending) return verifyPending(ctx, behaviour, behaviour.pending);
    const c = ctx.candidateKey ? findCandidate(ctx.candidateKey) : null;
    if (!c) return lastSeen(behaviour);
    return postAndLook(ctx, behaviour, c);
  },
};

function findCandidate(key: string): Candidate | null {
  const row = findRow(key);
  if (row?.record.状態 !== '送信待ち') return null;
  return { row, key, kind: isMfKey(key) ? 'mf' : 'csv' };
}

function blocking(earlier: readonly CheckReport[]): string[] {
  return earlier.filter((r) => r.blocksPosting).map((r) => `${r.group}: ${r.title}`);
}

/** No line to post now: what the last posting check saw still stands (or nothing is known yet). */
function lastSeen(b: MfBehaviour): CheckOutcome {
  const none =
    '「送信待ち」の行がないため、登録して確かめることはしていません。明細を取り込んで承認し、「送信待ち」の行ができたら、もう一度実行してください。';
  if (b.journalizeTags === undefined && b.createTags === undefined)
    return { result: '注意', detail: `${none}MF が仕訳をどう扱うかは、まだ確かめていません。` };
  return standing(b, none);
}

/** Open CSV rows in the 台帳 (what a CSV book would still send). */
function openCsvRows(): number {
  return readLedger().rows.filter((r) => isCsvKey(r.record.キー) && OPEN_STATES.has(r.record.状態)).length;
}

/** What the last posting check saw, as it stands now (the CSV rule and 照合猶予 are judged again). */
function standing(b: MfBehaviour, lead: string): CheckOutcome {
  const out = new Outcome();
  out.add(lead);
  const seen = [
    b.journalizeTags
      ? `明細からの仕訳に kicho のタグが${b.journalizeTags === 'kept' ? '残り' : '残らず'}`
      : '',
    b.createTags ? `CSV の仕訳にタグが${b.createTags === 'kept' ? '残り' : '残らず'}` : '',
    b.lagMs !== undefined ? `一覧に出るまで${describeLag(b.lagMs)}かかりました` : '',
  ].filter((x) => x !== '');
  out.add(`前回（${tokyoTime(b.at)}）の確認では、${seen.join('、')}。`);
  if (b.transactionIdForm === 'different')
    out.add('仕訳の transaction_id が明細ID と合わなかったため、登録を止めています。', 'NG', true);
  if (b.journalizeTags === 'dropped')
    out.add('明細の仕訳は明細ID で照合します（「台帳を復元」も明細ID で行います）。', '注意');
  if (b.createTags === 'dropped') {
    const open = openCsvRows();
    if (open > 0)
      out.add(
        `CSV の行は照合できないため、まだ登録していない CSV の行が ${open} 件あるあいだ、登録を止めます。`,
        'NG',
        true,
      );
    else out.add('CSV の取込と登録は行いません。', '注意');
  }
  if (b.lagMs !== undefined) raiseGrace(out, b.lagMs);
  return out.done();
}

/** 照合猶予 must cover the listing lag seen: raised (and said) when it does not. */
function raiseGrace(out: Outcome, lagMs: number): void {
  const need = graceForLag(lagMs);
  const now = readSettings().settings.graceMinutes;
  if (need > MAX_GRACE_MINUTES)
    out.add(
      `照合猶予は最大 ${MAX_GRACE_MINUTES} 分のため、この遅れは覆えません。結果の分からない登録を再送すると二重登録のおそれがあるため、登録を止めます。もう一度本番前チェックを実行すると、新しい行で測り直します。`,
      'NG',
      true,
    );
  else if (now < need) {
    writeSetting(GRACE_ITEM, String(need));
    out.add(
      `MF が一覧に出すまでの遅れに合わせ、設定の照合猶予（分）を ${now} 分から ${need} 分にしました（結果の分からない行は、これより長く MF に見つからないときだけ送り直します）。`,
      '注意',
    );
  } else out.add(`照合猶予（${now} 分）はこの遅れを覆えます。`);
}

function postAndLook(ctx: SelfTestContext, behaviour: MfBehaviour, c: Candidate): CheckOutcome {
  const out = new Outcome();
  // A kind seen refused before is asked again: this post is the check (issue 27).
  const kind = undocumentedKindOf(c.row);
  if (kind) forgetInvoiceKind(kind);
  const { creates } = postOnly(ctx, c.key);
  const row = findRow(c.key);
  const state = String(row?.record.状態 ?? '');
  const created = creates.find((s) => s.status !== null && s.status >= 200 && s.status < 300);
  const refusedByMf = creates.some((s) => s.status !== null && s.status >= 400 && s.status < 500);
  if (kind && state === '失敗' && refusedByMf && !created) {
    // The row carried the kind MF's document does not list, and MF refused it: rows needing it stop as 失敗.
    recordInvoiceKinds({ [kind]: { seen: 'refused', at: new Date().toISOString() } });
    return {
      result: '注意',
      detail: `${describeRow(c.row)}を、インボイス区分「${kindLabel(kind)}」（${kind}）で登録しようとしましたが、MF が受け付けませんでした（${row?.record.メモ ?? ''}）。この区分が必要な行は送らずに「失敗」にします（80% や「適格」で登録することはしません）。MF が対応したら、もう一度本番前チェックを実行してください。`,
    };
  }
  const log = (ok: boolean, message: string) =>
    appendRunLog({
      action: '登録の実行（本番前チェック）',
      fromTrigger: false,
      ok,
      count: ok ? 1 : 0,
      message,
    });
  if (!row || state !== '完了' || !created) {
    const why = row ? row.record.メモ || (ctx.postMessages ?? []).join(' ') : '台帳で行が見つかりません';
    log(false, `${c.key}: ${state} ${why}`);
    const unknown = state === '不明';
    return {
      result: '注意',
      detail: `${describeRow(c.row)}を登録しようとしましたが、${unknown ? '送信の結果が分かりませんでした' : `台帳の行は「${state || '？'}」です`}（${why}）。${unknown ? '照合で確かめます。' : ''}MF の確かめは、次の本番前チェックで行います。`,
    };
  }
  const journalId = row.record.MF仕訳ID;
  log(true, `${describeRow(c.row)}を登録しました（MF仕訳ID ${journalId}）。`);
  out.add(`${describeRow(c.row)}を登録しました（MF仕訳ID ${journalId}）。`);
  // MF's answer showed the journal stored with another 区分 than sent (mf-sender.ts): rows needing it stop.
  if (kind && readInvoiceKinds()[kind]?.seen === 'refused')
    out.add(
      `ただし MF はインボイス区分「${kindLabel(kind)}」（${kind}）を記録しませんでした（${row.record.メモ}）。この区分が必要な行は送らずに「失敗」にします。`,
      '注意',
    );
  const p: PendingCheck = {
    key: c.key,
    kind: c.kind,
    journalId,
    lineId: row.record.明細ID,
    date: row.record.取引日,
    postedAt: new Date(created.at).toISOString(),
    waitedMs: 0,
  };
  const seen = lookFor(ctx, p, LISTING_WAIT_MS);
  const next: MfBehaviour = { ...behaviour };
  if (!seen.listed || seen.listedAt === null) {
    const waited = Date.now() - created.at;
    next.pending = { ...p, waitedMs: waited };
    // Tags can still be read by id while the listing lags.
    judge(out, p, { ...seen, listed: null }, null, next, false);
    out.add(
      `${describeLag(waited)}待っても、MF の仕訳一覧に${p.kind === 'mf' ? '明細ID で' : ''}出てきませんでした。結果の分からない登録を MF で確かめられないおそれがあるため、登録を止めます。10 分ほど待ってから、もう一度本番前チェックを実行してください（見つかれば、かかった時間に合わせて照合猶予を長くし、登録を再開します）。`,
      'NG',
      true,
    );
    secondRun(ctx, out, p);
    save(next);
    return out.done();
  }
  judge(out, p, seen, seen.listedAt - created.at, next, false);
  secondRun(ctx, out, p);
  save(next);
  return out.done();
}

export const MF_ITEMS: readonly CheckItem<SelfTestContext>[] = [
  mfOffice,
  mfPeriods,
  mfPermissions,
  mfPosting,
];
