// What an /api/v3 handler gets: the parsed request, who is calling, the books, and the clock. Also the
// id lookups whose rules differ between path, query and body (mf-api.md §3).

import type { Principal } from './auth';
import { formatTimestamp } from './dates';
import { ApiError, badRequest, Messages } from './errors';
import { pathIdCandidates, storedIdFromQueryValue } from './ids';
import type { ParsedRequest } from './request';
import type { MfStore } from './store';

export interface ApiSettings {
  /** When true a second journalize of a registered line makes a second journal instead of a 400. */
  permissiveJournalize: boolean;
  /** Listing calls a new journal stays invisible for (0 = at once). */
  journalVisibilityLag: number;
  /** Appended to memo of journals created with an OAuth token. */
  appName: string;
  /**
   * The text of the 400 for journalizing a line that is not `none` (unpublished, mf-api.md §13):
   * 'generic' is the document's Error400 text; 'invented' our own wording (difference
   * `second-journalize-wording`). kicho must decide the same under both.
   */
  secondJournalize: 'generic' | 'invented';
  /** GET /journals per_page limit: 10000 as the document's schema says, or 100 as its error text says [C]. */
  journalsPerPageMax: 10_000 | 100;
  /**
   * How journal.transaction_id spells the line's id: exactly as /transactions lists it, or with its
   * percent escapes in lower case (whether the two are byte-identical is unverified, mf-api.md §15).
   */
  transactionIdForm: 'as-listed' | 'lowercase-hex';
  /**
   * What an account or sub-account row of a trial balance carries in `rows` when nothing is under it: the
   * document's schema says an array ('empty'), its own example shows null ('null', difference
   * `trial-balance-null-rows`).
   */
  trialBalanceLeafRows: 'empty' | 'null';
  /**
   * Whether a journal keeps the `tags` its create request carried: journalize's and POST /journals' both
   * declare tags [D], but whether MF stores them is unverified (mf-api.md §15). 'dropped' stores none
   * (difference `tags-dropped`).
   */
  tagsOnJournalize: 'kept' | 'dropped';
  tagsOnCreate: 'kept' | 'dropped';
  /**
   * Virtual ms a new journal stays out of GET /journals after its 201, and a journalized line keeps
   * showing `none` in GET /transactions (eventual consistency, unverified: mf-api.md §10). 0 = at once.
   */
  listingLagMs: number;
  /**
   * インボイス区分 (issue 27, reference/mf-api.md §16). Which invoice_kind values a write takes: the
   * document's three ('document': NOT_TARGET, QUALIFIED, UNQUALIFIED_80), or also UNQUALIFIED_70/50/30 and
   * UNQUALIFIED as MF's own MCP server declares ('mcp', difference `invoice-kind-reform`).
   */
  invoiceKindsOnWrite: 'document' | 'mcp';
  /** NOT_TARGET with a taxable tax category: refused 「インボイスは不正な値です」 (reported) or stored. */
  notTargetOnTaxable: 'refused' | 'accepted';
  /** invoice_kind on a journal's credit side: refused (reported) or stored. */
  invoiceKindOnCredit: 'refused' | 'accepted';
  /** The office's 課税形式 in GET /term_settings (seed data: default 原則課税・個別対応). */
  taxMethod: 'FREE' | 'SIMPLE' | 'PROPORTIONAL_ALLOCATION' | 'INDIVIDUAL_ALLOCATION';
}

export class ApiContext {
  constructor(
    readonly req: ParsedRequest,
    readonly principal: Principal,
    readonly store: MfStore,
    readonly settings: ApiSettings,
    readonly nowMs: number,
    /** The raw path segment after the route prefix, for `/journals/{id}`. */
    readonly pathParam: string | undefined,
    private readonly parsedBody: unknown,
  ) {}

  get query() {
    return this.req.query;
  }

  body(): unknown {
    return this.parsedBody;
  }

  timestamp(): string {
    return formatTimestamp(this.nowMs);
  }

  /**
   * MF rewrites memo on create: OAuth apps get "\n<app name>" appended [O S8, S4]; API-key calls get a
   * trailing "\n" when memo is non-empty [O S4]. This is why clients must never key on memo.
   */
  stampMemo(memo: string | null): string | null {
    if (this.principal.mode === 'oauth') return `${memo ?? ''}\n${this.settings.appName}`;
    return memo ? `${memo}\n` : memo;
  }
}

/**
 * Resolves `{id}` in a path: decoded once, so `%2B` and `%252B` on the wire both reach the id. A raw `%2F`
 * is decoded into a `/` before routing and the request lands nowhere: public clients saw 403 for it
 * (difference `path-slash-403`), which is why an id in a path must be encoded once more.
 */
export function idFromPath<T>(raw: string | undefined, find: (id: string) => T | undefined): T {
  if (raw !== undefined && /%2F/i.test(raw)) {
    throw new ApiError(403, 'insufficient_permissions', Messages.insufficientPermissions);
  }
  if (raw !== undefined && raw !== '' && !raw.includes('/')) {
    for (const candidate of pathIdCandidates(raw)) {
      const found = find(candidate);
      if (found !== undefined) return found;
    }
  }
  // The observed answer pairs this code with a JournalError text no schema of the document pairs it with.
  throw badRequest('invalid_request_path_parameter', Messages.idNotFound, 'unknown-id-text');
}

/** Maps a query id to its stored form; a double-encoded or malformed value is rejected. */
export function idFromQuery(name: string, value: string): string {
  const stored = storedIdFromQueryValue(value);
  if (stored === undefined) {
    throw badRequest(
      'invalid_query_parameter_value',
      `${name} is not a valid id: send the id exactly as returned, without encoding it again.`,
    );
  }
  return stored;
}

/** A query id that must name an existing entity (e.g. connected_account_id, account_id). */
export function existingIdFromQuery(name: string, value: string, exists: (id: string) => boolean): string {
  const stored = idFromQuery(name, value);
  if (!exists(stored))
    throw badRequest('invalid_query_parameter_value', `The given ${name} does not exist for this office.`);
  return stored;
}
