// Read-only master endpoints: office, term settings, accounts, sub-accounts, taxes, departments,
// trade partners, connected accounts, and the API-key-only accessible_offices.

import { type ApiContext, existingIdFromQuery } from './context';
import { ApiError, jsonResponse, Messages } from './errors';
import type { AccessibleOffice, HttpResponse } from './types';

const OFFICE_CODE = 'office_code';

export function getOffice(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly([OFFICE_CODE]);
  const office = ctx.store.office;
  if (office.accounting_periods.length === 0) {
    throw new ApiError(409, 'no_accounting_period_found', Messages.noAccountingPeriod);
  }
  // A single object, not an array: each token is tied to one office [O S5, S7].
  const periods = [...office.accounting_periods].sort((a, b) => b.start_date.localeCompare(a.start_date));
  return jsonResponse(200, { ...office, accounting_periods: periods });
}

export function getAccessibleOffices(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly([OFFICE_CODE]);
  const { code, name, type } = ctx.store.office;
  const offices: AccessibleOffice[] = [{ code, name, type }];
  return jsonResponse(200, { offices });
}

export function getTermSettings(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly([OFFICE_CODE]);
  return jsonResponse(200, {
    term_settings: ctx.store.termSettings.map((t) => ({ ...t, tax_method: ctx.settings.taxMethod })),
  });
}

export function getAccounts(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['available', OFFICE_CODE]);
  // available=false returns everything, not only the inactive ones [O S4].
  const onlyAvailable = ctx.query.boolean('available') === true;
  const accounts = ctx.store.accounts.filter((account) => !onlyAvailable || account.available);
  return jsonResponse(200, { accounts });
}

export function getSubAccounts(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['account_id', OFFICE_CODE]);
  const raw = ctx.query.one('account_id');
  const accountId =
    raw === undefined ? undefined : existingIdFromQuery('account_id', raw, (id) => !!ctx.store.account(id));
  const subAccounts = ctx.store.accounts
    .filter((account) => accountId === undefined || account.id === accountId)
    .flatMap((account) => account.sub_accounts);
  return jsonResponse(200, { sub_accounts: subAccounts });
}

export function getTaxes(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['available', OFFICE_CODE]);
  const onlyAvailable = ctx.query.boolean('available') === true;
  return jsonResponse(200, { taxes: ctx.store.taxes.filter((tax) => !onlyAvailable || tax.available) });
}

export function getDepartments(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly([OFFICE_CODE]);
  return jsonResponse(200, { departments: ctx.store.departments });
}

export function getTradePartners(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly(['available', OFFICE_CODE]);
  const onlyAvailable = ctx.query.boolean('available') === true;
  // The document declares these strings non-nullable: a partner without one is sent as '' [D].
  const partners = ctx.store.tradePartners
    .filter((partner) => !onlyAvailable || partner.available)
    .map((partner) => ({
      ...partner,
      invoice_registration_number: partner.invoice_registration_number ?? '',
      corporate_number: partner.corporate_number ?? '',
      search_key: partner.search_key ?? '',
    }));
  return jsonResponse(200, { trade_partners: partners });
}

export function getConnectedAccounts(ctx: ApiContext): HttpResponse {
  ctx.query.allowOnly([OFFICE_CODE]);
  return jsonResponse(200, { connected_accounts: ctx.store.connectedAccounts });
}
