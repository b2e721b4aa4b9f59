// POST /transactions/journalize: one statement line → one journal linked by transaction_id [D S1].
// The only MF write that ties a journal to a feed line, and the one our posting protocol must call
// exactly once per line.

import type { ApiContext } from './context';
import { type ApiError, badRequest, jsonResponse, Messages } from './errors';
import {
  invalidBody,
  MAX_MEMO,
  MAX_REMARK,
  optionalText,
  readDateInPeriod,
  readSideRefs,
  readTags,
  requiredId,
  requireObject,
} from './journal-input';
import { renderJournal } from './journal-view';
import type { MfStore } from './store';
import type { HttpResponse, JournalRecord, StoredBranch, StoredSide, Transaction } from './types';

/** The bank or card side: the ledger account MF maps the connected (sub-)account to [D §6]. */
function bankSide(store: MfStore, tx: Transaction): StoredSide {
  const service = store.connectedAccount(tx.connected_account_id);
  const sub =
    tx.connected_sub_account_id === null ? undefined : store.connectedSubAccount(tx.connected_sub_account_id);
  const accountId = sub ? sub.account_id : service?.account_id;
  const subAccountId = sub ? sub.sub_account_id : (service?.sub_account_id ?? null);
  const account = accountId ? store.account(accountId) : undefined;
  if (!account) throw invalidBody('The connected account of this transaction has no ledger account.');
  const subAccount = subAccountId === null ? undefined : store.subAccount(subAccountId);
  return {
    account_id: account.id,
    sub_account_id: subAccountId,
    tax_id: subAccount?.tax_id ?? account.tax_id,
    department_id: null,
    trade_partner_code: null,
    invoice_kind: 'INVOICE_KIND_NOT_TARGET',
    value: tx.value,
  };
}

function notJournalizable(ctx: ApiContext, invented: string): ApiError {
  return ctx.settings.secondJournalize === 'invented'
    ? badRequest('invalid_request_body_value', invented, 'second-journalize-wording')
    : badRequest('invalid_request_body_value', invented);
}

export function journalize(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['office_code']);
  const { store } = ctx;
  const body = requireObject(ctx.body(), 'body');
  for (const key of ['transaction_id', 'account_id']) {
    if (body[key] === undefined || body[key] === null) {
      throw badRequest('missing_required_request_body_key', `${key} is required.`);
    }
  }
  const txId = requiredId(body, 'transaction_id', 'transaction_id', (id) => !!store.transaction(id));
  const tx = store.transaction(txId) as Transaction;
  // Which error a second journalize gets is unverified (mf-api.md §13); rejecting is the likely answer,
  // in the document's generic words or in ours (settings.secondJournalize). permissiveJournalize lets tests
  // prove that OUR side never asks twice.
  if (tx.journalizing_status === 'excluded') throw notJournalizable(ctx, Messages.transactionExcluded);
  if (tx.journalizing_status !== 'none' && !ctx.settings.permissiveJournalize) {
    throw notJournalizable(ctx, Messages.alreadyJournalized);
  }
  const period = readDateInPeriod(store, body.transaction_date ?? tx.date, 'transaction_date');
  // The flat body's invoice_kind is the counter side's: the debit of a payment, the credit of a deposit.
  const counter = readSideRefs(
    store,
    body,
    '',
    tx.value,
    tx.side === 'EXPENSE' ? 'debitor' : 'creditor',
    ctx.settings,
  );
  const bank = bankSide(store, tx);
  const remark = optionalText(body, 'remark', 'remark', MAX_REMARK, Messages.remarkTooLong) ?? tx.content;
  const memo = optionalText(body, 'memo', 'memo', MAX_MEMO, Messages.memoTooLong);
  const tags = readTags(body, 'tags');
  const branch: StoredBranch =
    tx.side === 'EXPENSE'
      ? { remark, debitor: counter, creditor: bank }
      : { remark, debitor: bank, creditor: counter };
  const now = ctx.timestamp();
  const record: JournalRecord = {
    id: store.ids.next(),
    number: store.nextJournalNumber(period.fiscal_year),
    term_period: period.fiscal_year,
    transaction_date: period.date,
    is_realized: true,
    journal_type: 'journal_entry',
    entered_by: 'JOURNAL_TYPE_EXTERNAL',
    create_time: now,
    update_time: now,
    branches: [branch],
    // Whether journalize keeps the tags it was sent is unverified (difference tags-dropped).
    tags: ctx.settings.tagsOnJournalize === 'dropped' ? [] : tags,
    memo: ctx.stampMemo(memo),
    voucher_file_ids: [],
    transaction_id: tx.id,
  };
  store.insertJournal(record, ctx.settings.journalVisibilityLag);
  if (ctx.settings.listingLagMs > 0) store.lagInListings(record, ctx.nowMs + ctx.settings.listingLagMs);
  tx.journalizing_status = 'registered';
  return jsonResponse(201, { journal: renderJournal(store, record, ctx.settings) });
}
