// GET /transactions (statement lines, 明細) with MF's query rules, and POST /transactions, which MF
// accepts only for a manual connected account [O S4].

import { type ApiContext, existingIdFromQuery } from './context';
import { daysBetween, isIsoDate } from './dates';
import { badRequest, jsonResponse, Messages } from './errors';
import { optionalText, requiredId, requireObject } from './journal-input';
import { paginate } from './request';
import type { HttpResponse, JournalizingStatus, Side, Transaction } from './types';

export const SIDES: readonly Side[] = ['INCOME', 'EXPENSE'];
export const JOURNALIZING_STATUSES: readonly JournalizingStatus[] = [
  'none',
  'registered',
  'excluded',
  'modified',
  'new_voucher_attached',
];
const MATCH_TYPES = ['exact', 'partial', 'forward', 'backward'] as const;
/** [D] allows 366 days between start_date and end_date; wider is a 400. */
const MAX_SPAN_DAYS = 366;
/** The spec says 1000, the live API said "per_page must be between 10 and 500" [O 2026-09-24]. */
const PER_PAGE = { min: 10, max: 500, default: 50 } as const;
const MAX_VALUE = 999_999_999_999;
const MAX_CONTENT = 100;
const MAX_MEMO = 200;
const MAX_POSTED_LINES = 1000;

function contentMatches(content: string | null, needle: string, type: (typeof MATCH_TYPES)[number]): boolean {
  if (content === null) return false;
  switch (type) {
    case 'exact':
      return content === needle;
    case 'forward':
      return content.startsWith(needle);
    case 'backward':
      return content.endsWith(needle);
    case 'partial':
      return content.includes(needle);
  }
}

export function listTransactions(ctx: ApiContext): HttpResponse {
  const q = ctx.query;
  const { store } = ctx;
  q.allowOnly(
    [
      'start_date',
      'end_date',
      'connected_account_id',
      'connected_sub_account_id',
      'side',
      'value_min',
      'value_max',
      'content',
      'content_match_type',
      'order',
      'page',
      'per_page',
      'office_code',
    ],
    ['journalizing_statuses'],
  );
  const start = q.requiredDate('start_date');
  const end = q.requiredDate('end_date');
  if (start > end) throw badRequest('invalid_query_parameter_value', Messages.dateOrder);
  if (daysBetween(start, end) > MAX_SPAN_DAYS)
    throw badRequest('invalid_query_parameter_value', Messages.dateSpan);

  const rawService = q.one('connected_account_id');
  const rawSub = q.one('connected_sub_account_id');
  if (rawService !== undefined && rawSub !== undefined) {
    throw badRequest(
      'redundant_query_parameter',
      'Specify either connected_account_id or connected_sub_account_id, not both.',
    );
  }
  const serviceId =
    rawService === undefined
      ? undefined
      : existingIdFromQuery('connected_account_id', rawService, (id) => !!store.connectedAccount(id));
  const subId =
    rawSub === undefined
      ? undefined
      : existingIdFromQuery('connected_sub_account_id', rawSub, (id) => !!store.connectedSubAccount(id));

  const side = q.oneOf('side', SIDES);
  const valueMin = q.integer('value_min', { min: 0, max: MAX_VALUE });
  const valueMax = q.integer('value_max', { min: 0, max: MAX_VALUE });
  if ((valueMin !== undefined || valueMax !== undefined) && side === undefined) {
    throw badRequest('missing_required_query_parameter', Messages.sideRequired, 'observed-400-text');
  }
  const content = q.one('content');
  const matchType = q.oneOf('content_match_type', MATCH_TYPES) ?? 'partial';
  const statuses = q.allOneOf('journalizing_statuses', JOURNALIZING_STATUSES);
  const order = q.oneOf('order', ['asc', 'desc'] as const) ?? 'desc';
  const perPage =
    q.integer('per_page', {
      min: PER_PAGE.min,
      max: PER_PAGE.max,
      message: Messages.transactionsPerPage,
      verbatim: 'observed-400-text',
    }) ?? PER_PAGE.default;
  const page = q.integer('page', { min: 1, max: Number.MAX_SAFE_INTEGER }) ?? 1;

  const matching = store
    .transactions()
    .filter(
      (tx) =>
        tx.date >= start &&
        tx.date <= end &&
        (serviceId === undefined || tx.connected_account_id === serviceId) &&
        (subId === undefined || tx.connected_sub_account_id === subId) &&
        (side === undefined || tx.side === side) &&
        (valueMin === undefined || tx.value >= valueMin) &&
        (valueMax === undefined || tx.value <= valueMax) &&
        (content === undefined || contentMatches(tx.content, content, matchType)) &&
        (statuses.length === 0 || statuses.includes(store.listedStatus(tx, ctx.nowMs))),
    )
    // A line whose journal is still lagging (listingLagMs) lists as it was: none.
    .map((tx) => {
      const status = store.listedStatus(tx, ctx.nowMs);
      return status === tx.journalizing_status ? tx : { ...tx, journalizing_status: status };
    });
  // Stable by date, then by arrival, so paging never skips or repeats a line between calls.
  const sorted = matching
    .map((tx, seq) => ({ tx, seq }))
    .sort((a, b) => a.tx.date.localeCompare(b.tx.date) || a.seq - b.seq);
  if (order === 'desc') sorted.reverse();
  const { items, metadata } = paginate(
    sorted.map(({ tx }) => tx),
    page,
    perPage,
  );
  return jsonResponse(200, { transactions: items, metadata });
}

function invalidParameter(message: string) {
  return badRequest('invalid_request_body_parameter', message);
}

export function createTransactions(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['office_code']);
  const { store } = ctx;
  const body = requireObject(ctx.body(), 'body');
  const serviceId = requiredId(body, 'connected_account_id', 'connected_account_id', (id) => {
    return !!store.connectedAccount(id);
  });
  if (!store.connectedAccount(serviceId)?.is_manual) throw invalidParameter(Messages.notManual);
  const lines = body.transactions;
  if (!Array.isArray(lines) || lines.length < 1 || lines.length > MAX_POSTED_LINES) {
    throw invalidParameter(`transactions must be an array of 1 to ${MAX_POSTED_LINES} items.`);
  }
  const created: Transaction[] = lines.map((raw, i) => {
    const line = requireObject(raw, `transactions[${i}]`);
    const path = `transactions[${i}]`;
    if (!isIsoDate(line.date)) throw invalidParameter(`${path}.date must be a YYYY-MM-DD date.`);
    const value = line.value;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > MAX_VALUE) {
      throw invalidParameter(`${path}.value must be an integer between 1 and ${MAX_VALUE}.`);
    }
    if (!(SIDES as readonly unknown[]).includes(line.side)) {
      throw invalidParameter(`${path}.side must be INCOME or EXPENSE.`);
    }
    const content = line.content;
    if (typeof content !== 'string' || content.length < 1 || [...content].length > MAX_CONTENT) {
      throw invalidParameter(`${path}.content must be 1 to ${MAX_CONTENT} characters.`);
    }
    const memo = optionalText(
      line,
      'memo',
      `${path}.memo`,
      MAX_MEMO,
      `${path}.memo must be ${MAX_MEMO} characters or less.`,
    );
    return {
      id: store.ids.next(),
      date: line.date,
      value,
      side: line.side as Side,
      content,
      memo,
      journalizing_status: 'none',
      connected_account_id: serviceId,
      connected_sub_account_id: null,
      voucher_file_ids: [],
    };
  });
  for (const tx of created) store.putTransaction(tx);
  return jsonResponse(201, { connected_account_id: serviceId, transactions: created });
}
