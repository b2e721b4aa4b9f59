// GET/POST /journals and GET/PUT/DELETE /journals/{id}.

import { type ApiContext, existingIdFromQuery, idFromPath, idFromQuery } from './context';
import { badRequest, jsonResponse, Messages } from './errors';
import { invalidBody, readJournalBody } from './journal-input';
import { renderJournal } from './journal-view';
import { paginate } from './request';
import type { HttpResponse, JournalRecord, JournalType } from './types';

const JOURNAL_TYPES: readonly JournalType[] = ['journal_entry', 'adjusting_entry'];
/** The spec allows 10000 and S4 used it; an error text in the same spec says 100 [C]. */
const PER_PAGE = { min: 1, max: 10_000, default: 10 } as const;
const MAX_TRANSACTION_IDS = 50;

export function listJournals(ctx: ApiContext): HttpResponse {
  const q = ctx.query;
  const { store } = ctx;
  q.allowOnly(
    ['start_date', 'end_date', 'account_id', 'is_realized', 'page', 'per_page', 'office_code'],
    ['transaction_ids', 'journal_types'],
  );
  const start = q.date('start_date');
  const end = q.date('end_date');
  if (start === undefined && end === undefined) {
    throw badRequest('missing_required_query_parameter', Messages.eitherDate);
  }
  if (start !== undefined && end !== undefined && start > end) {
    throw badRequest('invalid_query_parameter_value', Messages.dateOrder);
  }
  // Only the accounting period containing the given date is searched [D]: a window spanning two terms
  // silently loses the second one, which a client must handle by asking per term.
  const period = store.periodContaining((start ?? end) as string);
  if (!period) throw badRequest('invalid_query_parameter_value', Messages.outsidePeriod);
  const from = start !== undefined && start > period.start_date ? start : period.start_date;
  const to = end !== undefined && end < period.end_date ? end : period.end_date;

  const rawAccount = q.one('account_id');
  const accountId =
    rawAccount === undefined
      ? undefined
      : existingIdFromQuery('account_id', rawAccount, (id) => !!store.account(id));
  const rawTransactionIds = q.all('transaction_ids');
  if (rawTransactionIds.length > MAX_TRANSACTION_IDS) {
    throw badRequest('invalid_query_parameter_value', Messages.transactionIdsTooMany);
  }
  // Unknown line ids match nothing rather than fail: a line can vanish when its service is unlinked [I].
  const transactionIds = rawTransactionIds.map((value) => idFromQuery('transaction_ids', value));
  const journalTypes = q.allOneOf('journal_types', JOURNAL_TYPES);
  const isRealized = q.boolean('is_realized');
  const small = ctx.settings.journalsPerPageMax === 100;
  const perPage =
    q.integer('per_page', {
      min: PER_PAGE.min,
      max: small ? 100 : PER_PAGE.max,
      message: small ? Messages.journalsPerPage100 : Messages.journalsPerPage,
    }) ?? PER_PAGE.default;
  const page = q.integer('page', { min: 1, max: Number.MAX_SAFE_INTEGER }) ?? 1;

  const touchesAccount = (journal: JournalRecord, id: string) =>
    journal.branches.some((b) => b.debitor.account_id === id || b.creditor.account_id === id);
  const matching = store
    .journals()
    .filter(
      (journal) =>
        store.isListedAt(journal.id, ctx.nowMs) &&
        journal.transaction_date >= from &&
        journal.transaction_date <= to &&
        (accountId === undefined || touchesAccount(journal, accountId)) &&
        (transactionIds.length === 0 ||
          (journal.transaction_id !== null && transactionIds.includes(journal.transaction_id))) &&
        (journalTypes.length === 0 || journalTypes.includes(journal.journal_type)) &&
        (isRealized === undefined || journal.is_realized === isRealized),
    )
    .sort((a, b) => a.transaction_date.localeCompare(b.transaction_date) || a.number - b.number);
  const { items, metadata } = paginate(matching, page, perPage);
  store.countListing();
  return jsonResponse(200, {
    journals: items.map((journal) => renderJournal(store, journal, ctx.settings)),
    metadata,
  });
}

export function createJournal(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['office_code']);
  const { store } = ctx;
  const fields = readJournalBody(store, ctx.body(), ctx.settings);
  const now = ctx.timestamp();
  const record: JournalRecord = {
    ...fields,
    id: store.ids.next(),
    number: store.nextJournalNumber(fields.term_period),
    is_realized: true,
    entered_by: 'JOURNAL_TYPE_EXTERNAL',
    create_time: now,
    update_time: now,
    memo: ctx.stampMemo(fields.memo),
    // Whether MF keeps the tags it was sent is unverified (difference tags-dropped).
    tags: ctx.settings.tagsOnCreate === 'dropped' ? [] : fields.tags,
    voucher_file_ids: [],
    transaction_id: null,
  };
  store.insertJournal(record, ctx.settings.journalVisibilityLag);
  if (ctx.settings.listingLagMs > 0) store.lagInListings(record, ctx.nowMs + ctx.settings.listingLagMs);
  return jsonResponse(201, { journal: renderJournal(store, record, ctx.settings) });
}

function journalFromPath(ctx: ApiContext): JournalRecord {
  return idFromPath(ctx.pathParam, (id) => ctx.store.journal(id));
}

export function getJournal(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['office_code']);
  return jsonResponse(200, { journal: renderJournal(ctx.store, journalFromPath(ctx), ctx.settings) });
}

/**
 * PUT replaces the whole journal [D]. It keeps transaction_id and does not re-stamp memo: both are
 * unverified against MF (mf-api.md §6, §13) [I].
 */
export function updateJournal(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['office_code']);
  const existing = journalFromPath(ctx);
  const fields = readJournalBody(ctx.store, ctx.body(), ctx.settings);
  if (fields.term_period !== existing.term_period) throw invalidBody(Messages.movedTerm);
  const updated: JournalRecord = { ...existing, ...fields, update_time: ctx.timestamp() };
  ctx.store.replaceJournal(updated);
  return jsonResponse(200, { journal: renderJournal(ctx.store, updated, ctx.settings) });
}

/** DELETE → 204. A journal made from a line sends the line to `excluded`, not back to `none` [O S3]. */
export function deleteJournal(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['office_code']);
  const journal = journalFromPath(ctx);
  ctx.store.removeJournal(journal.id);
  if (journal.transaction_id !== null) {
    const tx = ctx.store.transaction(journal.transaction_id);
    if (tx) tx.journalizing_status = 'excluded';
  }
  return { status: 204, headers: {}, body: '' };
}
