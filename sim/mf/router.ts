// The /api/v3 route table and the checks every API call passes, in MF's order: authentication (401),
// the API-key office_code rule (400), scope (403), media type (415), then the handler.

import type { AuthServer, Scope } from './auth';
import { ApiContext, type ApiSettings } from './context';
import { ApiError, apiErrorResponse, badRequest, type ErrorFamily, errorResponse, Messages } from './errors';
import { journalize } from './journalize';
import { createJournal, deleteJournal, getJournal, listJournals, updateJournal } from './journals';
import {
  getAccessibleOffices,
  getAccounts,
  getConnectedAccounts,
  getDepartments,
  getOffice,
  getSubAccounts,
  getTaxes,
  getTermSettings,
  getTradePartners,
} from './masters';
import { trialBalanceBs } from './reports';
import type { ParsedRequest } from './request';
import type { MfStore } from './store';
import { createTransactions, listTransactions } from './transactions';
import type { HttpResponse } from './types';

type Handler = (ctx: ApiContext) => HttpResponse;

interface Endpoint {
  /** null: any authenticated caller (accessible_offices is API-key only and has no documented scope). */
  scope: Scope | null;
  handle: Handler;
}

interface Route {
  path: string;
  /** True for `/path/{id}`: everything after `path/` is the raw id. */
  withId?: boolean;
  methods: Partial<Record<string, Endpoint>>;
}

const ACCESSIBLE_OFFICES = '/api/v3/accessible_offices';

const ROUTES: readonly Route[] = [
  { path: ACCESSIBLE_OFFICES, methods: { GET: { scope: null, handle: getAccessibleOffices } } },
  { path: '/api/v3/offices', methods: { GET: { scope: 'mfc/accounting/offices.read', handle: getOffice } } },
  {
    path: '/api/v3/term_settings',
    methods: { GET: { scope: 'mfc/accounting/offices.read', handle: getTermSettings } },
  },
  {
    path: '/api/v3/accounts',
    methods: { GET: { scope: 'mfc/accounting/accounts.read', handle: getAccounts } },
  },
  {
    path: '/api/v3/sub_accounts',
    methods: { GET: { scope: 'mfc/accounting/accounts.read', handle: getSubAccounts } },
  },
  { path: '/api/v3/taxes', methods: { GET: { scope: 'mfc/accounting/taxes.read', handle: getTaxes } } },
  {
    path: '/api/v3/departments',
    methods: { GET: { scope: 'mfc/accounting/departments.read', handle: getDepartments } },
  },
  {
    path: '/api/v3/trade_partners',
    methods: { GET: { scope: 'mfc/accounting/trade_partners.read', handle: getTradePartners } },
  },
  {
    path: '/api/v3/connected_accounts',
    methods: { GET: { scope: 'mfc/accounting/connected_account.read', handle: getConnectedAccounts } },
  },
  {
    path: '/api/v3/transactions',
    methods: {
      GET: { scope: 'mfc/accounting/transaction.read', handle: listTransactions },
      POST: { scope: 'mfc/accounting/transaction.write', handle: createTransactions },
    },
  },
  {
    path: '/api/v3/transactions/journalize',
    methods: { POST: { scope: 'mfc/accounting/journal.write', handle: journalize } },
  },
  {
    path: '/api/v3/journals',
    methods: {
      GET: { scope: 'mfc/accounting/journal.read', handle: listJournals },
      POST: { scope: 'mfc/accounting/journal.write', handle: createJournal },
    },
  },
  {
    path: '/api/v3/reports/trial_balance_bs',
    methods: { GET: { scope: 'mfc/accounting/report.read', handle: trialBalanceBs } },
  },
  {
    path: '/api/v3/journals',
    withId: true,
    methods: {
      GET: { scope: 'mfc/accounting/journal.read', handle: getJournal },
      PUT: { scope: 'mfc/accounting/journal.write', handle: updateJournal },
      DELETE: { scope: 'mfc/accounting/journal.write', handle: deleteJournal },
    },
  },
];

function findRoute(path: string): { route: Route; pathParam: string | undefined } | undefined {
  for (const route of ROUTES) {
    if (!route.withId && path === route.path) return { route, pathParam: undefined };
    if (route.withId && path.startsWith(`${route.path}/`)) {
      return { route, pathParam: path.slice(route.path.length + 1) };
    }
  }
  return undefined;
}

export interface ApiDeps {
  auth: AuthServer;
  /** The books of the office a token belongs to (each token is tied to one office [O S5, S7]). */
  storeFor(officeCode: string): MfStore | undefined;
  settings: ApiSettings;
  nowMs: number;
}

/**
 * API-key tokens must name the office on every call but one; OAuth tokens ignore office_code [O S3, S4].
 * An office the key cannot use is answered as the switch `wrongOfficeCode` says (unpublished).
 */
function checkOfficeCode(req: ParsedRequest, route: Route, officeCode: string, settings: ApiSettings): void {
  if (route.path === ACCESSIBLE_OFFICES) return;
  const given = req.query.all('office_code');
  if (given.length === 0) throw badRequest('missing_required_query_parameter', Messages.officeCodeRequired);
  if (given.some((code) => code !== officeCode)) {
    if (settings.wrongOfficeCode === 'forbidden')
      throw new ApiError(403, 'insufficient_permissions', Messages.insufficientPermissions);
    if (settings.wrongOfficeCode === 'unauthorized')
      throw new ApiError(401, 'access_token_is_not_active_or_invalid', Messages.tokenInvalid);
    throw badRequest('invalid_query_parameter_value', Messages.officeCodeMismatch);
  }
}

/**
 * GET/POST /journals and /journals/{id} answer 400 with JournalError texts too (getJournals_400_response);
 * the trial balance with TrialBalanceError texts (getReportsTrialBalanceBalanceSheet_400_response).
 */
function errorFamily(route: Route): ErrorFamily {
  if (route.path === '/api/v3/journals') return 'journals';
  if (route.path === '/api/v3/reports/trial_balance_bs') return 'trial_balance';
  return 'other';
}

function readJsonBody(req: ParsedRequest): unknown {
  if (req.method !== 'POST' && req.method !== 'PUT') return undefined;
  // Apps Script's UrlFetchApp defaults to form encoding; MF wants JSON and says so with a 415.
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new ApiError(415, 'unsupported_media_type', Messages.unsupportedMediaType);
  }
  try {
    return JSON.parse(req.body);
  } catch {
    throw badRequest('invalid_input', Messages.invalidJson);
  }
}

export function handleApi(req: ParsedRequest, deps: ApiDeps): HttpResponse {
  const found = findRoute(req.path);
  if (!found) return errorResponse(404, 'not_found', Messages.notFound);
  const endpoint = found.route.methods[req.method];
  if (!endpoint) return errorResponse(405, 'method_not_allowed', Messages.methodNotAllowed);
  try {
    const principal = deps.auth.authenticate(req);
    if (principal.mode === 'apiKey') checkOfficeCode(req, found.route, principal.officeCode, deps.settings);
    const store = deps.storeFor(principal.officeCode);
    if (!store) throw new ApiError(409, 'no_office_found', Messages.noOffice);
    if (endpoint.scope !== null && principal.scopes !== 'all' && !principal.scopes.has(endpoint.scope)) {
      throw new ApiError(403, 'insufficient_permissions', Messages.insufficientPermissions);
    }
    const body = readJsonBody(req);
    const ctx = new ApiContext(req, principal, store, deps.settings, deps.nowMs, found.pathParam, body);
    return endpoint.handle(ctx);
  } catch (error) {
    if (error instanceof ApiError) return apiErrorResponse(error, errorFamily(found.route));
    throw error;
  }
}
