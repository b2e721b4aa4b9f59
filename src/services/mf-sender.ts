/**
 * The MF sender (SenderPort over MfClient): one journalize per MF line, one POST /journals per CSV
 * line, and after MF refused a journalize the look-up that decides what the refusal means (DESIGN §5).
 * What it asks MF before or after a send goes through the MF lookup (mf/lookup.ts).
 */
import { type CsvSource, csvJournalRequest, findSource } from '../core/csv/sources';
import { isEvtKey } from '../core/events';
import { fingerprint } from '../core/fingerprint';
import {
  DEFAULT_INVOICE_POLICY,
  INVOICE_MSG,
  type InvoiceKind,
  type InvoicePolicy,
  invoiceForSend,
  isUndocumentedWrite,
} from '../core/invoice';
import { journalizeRequest } from '../core/journal-request';
import { checkedKey, keyProblem } from '../core/key-check';
import { isCsvKey, isMfKey, type LedgerKey, remoteTag } from '../core/keys';
import type { LedgerRecord } from '../core/ledger';
import { connectedAccountName, type Masters } from '../core/masters';
import type { LookupResult, SenderPort } from '../core/ports';
import { HttpNotSentError } from '../core/ports';
import type { Claimed, SendResult } from '../core/posting';
import { STATEMENT_MSG, type StatementFacts, statementEdits } from '../core/statement-check';
import type { MfClient } from '../mf/client';
import { MfAuthError } from '../mf/errors';
import { type MfLookup, mfLookup } from '../mf/lookup';
import type { SendOutcome } from '../mf/types';
import { nearbyWindows } from '../mf/windows';
import { type EventLookup, lookUpEvents } from './event-lookup';

export const POST_MSG = {
  outsidePeriod: (date: string) =>
    `取引日 ${date} は MF のどの会計期間にも入らないため送信しません。MF で事業年度（会計期間）を確かめ、取引日が正しければ MF で会計期間を追加してから「再試行」を選んでください。`,
  noPeriods: 'MF の会計期間を確かめられなかったため送信していません',
  registeredNotListed: 'MFではこの明細が仕訳済みですが、仕訳がまだ見つかりません。照合で確かめます',
  lookupFailed: 'MFが登録を断ったあと、明細の状態を確かめる問い合わせに失敗しました',
  excluded:
    'MFでこの明細が「対象外」になっているため登録できませんでした。登録が不要なら「除外」を選んでください。',
} as const;

/**
 * After MF refused a journalize (any 4xx but 401/429), the line is looked up before anything is decided
 * (DESIGN §5 step 4): MF's wording of "already journalized" is unpublished, so no decision rests on it.
 * Its journal by transaction_ids → 完了; journalized in MF but not listed yet → 不明 (reconcile waits);
 * 対象外 in MF → 失敗 saying so; still 未仕訳 (or not listed at its date) → MF's refusal stands.
 */
function afterRefusal(
  lookup: MfLookup,
  record: LedgerRecord,
  print: string,
  refused: Extract<SendOutcome, { kind: 'rejected' }>,
): SendResult {
  let seen: LookupResult;
  try {
    seen = lookup.line(record.明細ID, record.取引日);
  } catch (_e) {
    return { kind: 'unknown', reason: POST_MSG.lookupFailed };
  }
  switch (seen.kind) {
    case 'found':
      return { kind: 'found', journalId: seen.journalId, fingerprint: print };
    case 'excluded':
      return { ...refused, explanation: POST_MSG.excluded };
    case 'pending':
      return { kind: 'unknown', reason: POST_MSG.registeredNotListed };
    default:
      return refused;
  }
}

function toResult(
  outcome: SendOutcome,
  print: string,
  lookup: MfLookup,
  record: LedgerRecord,
  invoice: InvoiceChoice,
): SendResult {
  switch (outcome.kind) {
    case 'created':
      return createdResult(outcome, print, invoice);
    case 'rejected':
      return withInvoiceHint(afterRefusal(lookup, record, print, outcome), invoice.kind);
    default:
      return outcome;
  }
}

function createdResult(
  outcome: Extract<SendOutcome, { kind: 'created' }>,
  print: string,
  invoice: InvoiceChoice,
): SendResult {
  return {
    kind: 'created',
    journalId: outcome.journalId,
    fingerprint: print,
    ...invoice.note,
    ...(outcome.invoiceKinds ? { invoiceKinds: outcome.invoiceKinds } : {}),
  };
}

/** What a row's journal carries for インボイス区分, or the result that stops it before anything is built. */
interface InvoiceChoice {
  kind?: InvoiceKind;
  /** A note for the 完了 row's メモ (sent without its 区分 because a person chose so). */
  note?: { note: string };
  stop?: SendResult;
}

function invoiceChoice(record: LedgerRecord, masters: Masters, policy: InvoicePolicy): InvoiceChoice {
  const decided = invoiceForSend(record, masters, policy);
  switch (decided.kind) {
    case 'send':
      return { kind: decided.invoiceKind };
    case 'omit':
      return {};
    case 'omit-undecided':
      return { note: { note: decided.note } };
    case 'hold':
      return { stop: { kind: 'invalid', problems: [decided.problem] } };
    case 'refused':
      return { stop: { kind: 'stopped', reason: decided.problem } };
  }
}

/** MF refused a journal carrying a kind its document does not list: say that this may be why. */
function withInvoiceHint(result: SendResult, kind: InvoiceKind | undefined): SendResult {
  if (result.kind !== 'rejected' || kind === undefined || !isUndocumentedWrite(kind)) return result;
  return { ...result, explanation: `${result.explanation ?? ''} ${INVOICE_MSG.refusedOnSend(kind)}`.trim() };
}

/** DESIGN §5: a row dated outside every accounting period is not sent; null when it may be sent. */
function periodProblem(client: MfClient, record: LedgerRecord): SendResult | null {
  let inside: boolean;
  try {
    inside = client.periodOf(record.取引日) !== null;
  } catch (_e) {
    return { kind: 'not-sent', reason: POST_MSG.noPeriods };
  }
  return inside ? null : { kind: 'invalid', problems: [POST_MSG.outsidePeriod(record.取引日)] };
}

/**
 * A CSV line has no statement line in MF: it is posted with POST /journals (one balanced branch against
 * its 取込元's counter account) carrying the same remote tag, and reconciled by that tag.
 */
function sendCsv(
  client: MfClient,
  masters: Masters,
  sources: readonly CsvSource[],
  c: Claimed,
  key: LedgerKey,
  invoice: InvoiceChoice,
): SendResult {
  if (invoice.stop) return invoice.stop;
  const built = csvJournalRequest(
    c.record,
    findSource(sources, c.record.口座),
    masters,
    remoteTag(key),
    invoice.kind,
  );
  if (!built.ok) return { kind: 'invalid', problems: built.problems };
  const print = fingerprint(c.record);
  try {
    const outcome = client.createJournal(built.request);
    if (outcome.kind === 'created') return createdResult(outcome, print, invoice);
    return withInvoiceHint(outcome, invoice.kind);
  } catch (e) {
    if (e instanceof HttpNotSentError) return { kind: 'refused', reason: e.message };
    return { kind: 'unknown', reason: e instanceof Error ? e.message : String(e) };
  }
}

/**
 * MF's own lines for a chunk of claimed MF rows (DESIGN §3: their 取引日/入出金/金額/口座 are MF's):
 * one listing per window of dates, before anything of the chunk is sent.
 */
function statementFacts(
  lookup: MfLookup,
  masters: Masters,
  claimed: readonly Claimed[],
): { facts: Map<string, StatementFacts>; auth: string | null; unverified: boolean } {
  const facts = new Map<string, StatementFacts>();
  const rows = claimed.filter((c) => isMfKey(c.key));
  if (rows.length === 0) return { facts, auth: null, unverified: false };
  try {
    for (const t of lookup.statementLines(nearbyWindows(rows.map((c) => c.record.取引日)))) {
      facts.set(t.id, {
        取引日: t.date,
        入出金: t.side === 'INCOME' ? '入金' : '出金',
        金額: t.value,
        口座: connectedAccountName(masters, t.connected_account_id, t.connected_sub_account_id),
      });
    }
    return { facts, auth: null, unverified: false };
  } catch (e) {
    if (e instanceof MfAuthError) return { facts, auth: e.message, unverified: false };
    return { facts, auth: null, unverified: true };
  }
}

/** What a send taught about the インボイス区分 MF takes (services/posting-port.ts keeps it in KICHO_MF_BEHAVIOUR). */
export type InvoiceLearner = (kind: InvoiceKind, seen: 'accepted' | 'refused') => void;

export function mfSender(
  client: MfClient,
  masters: Masters,
  sources: readonly CsvSource[] = [],
  invoice: InvoicePolicy = DEFAULT_INVOICE_POLICY,
  learn: InvoiceLearner = () => {},
): SenderPort {
  // A created journal shows MF took its kind; a refusal is not taken as proof (MF's 400 does not say which
  // field it refused), so only 本番前チェック records one.
  // What MF's answer shows stored is the read that settles it (issue 27): a kind it shows is accepted; a
  // journal stored with another kind (MF took the request but not its 区分) is said on the row, and the kind
  // counts as refused so no later row is sent with it. An answer without branches teaches nothing.
  const learnt = (result: SendResult, choice: InvoiceChoice): SendResult => {
    if (result.kind !== 'created' || choice.kind === undefined) return result;
    const stored = result.invoiceKinds;
    if (stored === undefined) return result;
    if (stored.includes(choice.kind)) {
      learn(choice.kind, 'accepted');
      return result;
    }
    learn(choice.kind, 'refused');
    const note = INVOICE_MSG.storedOther(choice.kind, stored);
    return { ...result, note: result.note ? `${result.note} ${note}` : note };
  };
  // Every "does MF have it?" of a send goes through the one lookup (mf/lookup.ts).
  const lookup = mfLookup(client);
  let lines: ReturnType<typeof statementFacts> = { facts: new Map(), auth: null, unverified: true };
  let events: { keys: Set<string>; lookup: EventLookup } = {
    keys: new Set(),
    lookup: lookUpEvents(lookup, []),
  };
  return {
    prepare(claimed: readonly Claimed[]): void {
      lines = statementFacts(lookup, masters, claimed);
      events = { keys: new Set(claimed.map((c) => c.key)), lookup: lookUpEvents(lookup, claimed) };
    },
    send(c: Claimed): SendResult {
      // The claim guard stopped these already; this is the last check before anything leaves.
      const key = checkedKey(c.record);
      if (key === null) return { kind: 'invalid', problems: [keyProblem(c.record) as string] };
      const outside = periodProblem(client, c.record);
      if (outside) return outside;
      const choice = invoiceChoice(c.record, masters, invoice);
      if (isCsvKey(c.key)) return learnt(sendCsv(client, masters, sources, c, key, choice), choice);
      // An event from another automation (evt:) has no MF line either: posted like a CSV line, once
      // MF was asked for its tag (event-lookup.ts).
      if (isEvtKey(c.key)) {
        const found = events.keys.has(c.key) ? events.lookup : lookUpEvents(lookup, [c]);
        return found.before(c) ?? learnt(sendCsv(client, masters, sources, c, key, choice), choice);
      }
      if (!isMfKey(c.key)) return { kind: 'invalid', problems: [`キー「${c.key}」の形が正しくありません。`] };
      if (lines.auth) return { kind: 'unauthorized', message: lines.auth };
      if (lines.unverified) return { kind: 'not-sent', reason: STATEMENT_MSG.unverified };
      const line = lines.facts.get(c.record.明細ID);
      if (!line) return { kind: 'invalid', problems: [STATEMENT_MSG.missing(c.record.取引日)] };
      const edits = statementEdits(c.record, line);
      if (edits.length > 0) return { kind: 'invalid', problems: [STATEMENT_MSG.edited(edits)] };
      if (choice.stop) return choice.stop;
      const built = journalizeRequest(c.record, masters, key, choice.kind);
      if (!built.ok) return { kind: 'invalid', problems: built.problems };
      const print = fingerprint(c.record);
      try {
        return learnt(toResult(client.journalize(built.request), print, lookup, c.record, choice), choice);
      } catch (e) {
        // Apps Script refused the request before it left: back to 送信待ち, and the run stops.
        if (e instanceof HttpNotSentError) return { kind: 'refused', reason: e.message };
        // The client maps every answer; an exception here means we cannot tell what happened.
        return { kind: 'unknown', reason: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}
