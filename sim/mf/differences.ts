// Every deliberate difference between the fake MF and MF's published OpenAPI document
// (test/contract/mf-openapi.ja.yaml), by name. The contract test (test/contract/) validates each request
// kicho sends and each answer the fake gives against the document; an answer that does not validate is
// accepted only when it is one of these, and each of these has a test of its own there. sim/mf/README.md
// lists them with their evidence. Add a name here, in the README and in the contract test together.

export interface Difference {
  /** wire: a request or answer the document's schemas would refuse; behaviour: something it does not state. */
  kind: 'wire' | 'behaviour';
  summary: string;
  /** [D] document, [O] observed by a public client, [I] our inference, [C] sources disagree. */
  evidence: string;
}

export const DIFFERENCES = {
  'api-key-exchange': {
    kind: 'wire',
    summary:
      'POST {auth}/auth/exchange turns an API key into a one-hour token; the document has no such path.',
    evidence: '[O] kentaroajisaka/mf-api-mcp src/apikey.ts, htaken/kadobo (mf-api.md §2.2)',
  },
  'api-key-office-code': {
    kind: 'wire',
    summary:
      'API-key calls carry the query parameter office_code, which no operation of the document declares.',
    evidence: '[O] mf-api-mcp README, kadobo (mf-api.md §2.2): without it MF answers 400',
  },
  'oauth-endpoints': {
    kind: 'wire',
    summary:
      '/authorize and /token follow RFC 6749; the document gives only their URLs (securitySchemes), not their shapes.',
    evidence: '[D] securitySchemes.OAuth2; RFC 6749 §4.1, §6',
  },
  'oauth-client-auth-method': {
    kind: 'behaviour',
    summary:
      'Each OAuth app is registered with client_secret_basic or client_secret_post and is refused (invalid_client) the other, or both at once.',
    evidence: '[O] MF App Portal guide g011, kadobo docs §6.4 (mf-api.md §15); [D] RFC 6749 §2.3',
  },
  'observed-400-text': {
    kind: 'wire',
    summary:
      'Two 400 texts seen live that the document does not list: "per_page must be between 10 and 500" (GET /transactions) and "side is required when value_min or value_max is provided".',
    evidence: '[O] unofficial-official-mf-mcp-skill references/accounting-transactions.md, 2026-09-24',
  },
  'transactions-per-page-500': {
    kind: 'behaviour',
    summary: 'GET /transactions refuses per_page above 500, where the document allows 1000.',
    evidence: '[O] 2026-09-24, same source as observed-400-text (mf-api.md §6) [C]',
  },
  'unknown-id-text': {
    kind: 'wire',
    summary:
      'An unknown id in /journals/{id} is 400 invalid_request_path_parameter with "The given id does not exist for this office.", a pair no schema alternative of the document allows.',
    evidence: '[O] htaken/kadobo gas/src/app/mf/errors.ts, 2026-10-08 (mf-api.md §5)',
  },
  'path-slash-403': {
    kind: 'behaviour',
    summary: 'A raw %2F in an id in a path is decoded into / before routing, and MF answers 403.',
    evidence:
      '[O] mf-api-mcp src/rest.ts, mf-full-mcp README, kadobo accountingClient.ts (mf-api.md §3, §15)',
  },
  'second-journalize-wording': {
    kind: 'wire',
    summary:
      'With secondJournalize "invented", a second journalize (or one of an excluded line) is 400 with our own words instead of the document\'s generic text.',
    evidence: "[I] unpublished (mf-api.md §13): no public source confirms MF's answer",
  },
  'journals-per-page-100': {
    kind: 'behaviour',
    summary:
      "With journalsPerPageMax 100, GET /journals refuses per_page above 100 with the document's own error text, although its schema allows 10000.",
    evidence: '[C] the document: schema maximum 10000, Error400 text "within 1 and 100"',
  },
  'transaction-id-form': {
    kind: 'behaviour',
    summary:
      'With transactionIdForm "lowercase-hex", journal.transaction_id spells its percent escapes in lower case (%2b) while /transactions lists %2B.',
    evidence: '[I] whether the two are byte-identical is unverified (mf-api.md §15)',
  },
  'trial-balance-null-rows': {
    kind: 'wire',
    summary:
      'With trialBalanceLeafRows "null", account and sub-account rows of /reports/trial_balance_bs carry rows: null, as the document\'s own TBResponse example shows, where its TBRow schema says an array.',
    evidence: '[C] the document: TBRow.rows is type array, its example has rows: null on every account',
  },
  'trial-balance-figures': {
    kind: 'behaviour',
    summary:
      "The trial balance's figures are computed from the fake's books: our grouping of accounts into statement items, the term's opening journal (and anything before start_date) as opening_balance, a range must lie inside one term.",
    evidence:
      '[I] the document gives the shape, the columns, that zero rows are left out and unrealized journals are not counted [D]; the rest is unpublished',
  },
  'memo-stamp': {
    kind: 'behaviour',
    summary: 'MF rewrites memo on create: OAuth adds "\\n<app name>", API-key calls a trailing "\\n".',
    evidence: '[O] Composio docs "Create Journal", mf-api-mcp README (mf-api.md §0.4)',
  },
  'transport-fault': {
    kind: 'behaviour',
    summary:
      'Injected timeouts and unreachable hosts: no HTTP answer reaches the client (commit-then-timeout applies the write first).',
    evidence: '[I] what any network does; the document describes answers only',
  },
  'commit-then-5xx': {
    kind: 'behaviour',
    summary: 'The fault 5xx-after-commit applies a write and then answers 500 internal_error.',
    evidence:
      '[I] mf-api.md §0.3: a 5xx on a create is treated as unknown; whether MF can commit first is unverified',
  },
  'visibility-lag': {
    kind: 'behaviour',
    summary:
      'A new journal can stay out of GET /journals after its 201: for some listing calls (the visibility-lag fault, at most visibilityLagMaxMs), or for some time (listingLagMs, while its line still lists as none).',
    evidence: '[I] unverified (mf-api.md §10, §15)',
  },
  'tags-dropped': {
    kind: 'behaviour',
    summary:
      'With tagsOnJournalize or tagsOnCreate "dropped", the journal keeps none of the tags its request carried (the answer and every later read show tags: []).',
    evidence:
      '[I] both requests declare tags [D], but no public source shows MF storing them for journalize (mf-api.md §15)',
  },
  'retry-after': {
    kind: 'behaviour',
    summary: 'A 429 may carry Retry-After; the document declares no response headers.',
    evidence: '[I] unknown for the accounting API (mf-api.md §9); the token endpoints send it [O S4]',
  },
  'invoice-kind-reform': {
    kind: 'wire',
    summary:
      'With invoiceKindsOnWrite "mcp", a write may carry invoice_kind UNQUALIFIED_70, UNQUALIFIED_50, UNQUALIFIED_30 or UNQUALIFIED (the document writes only NOT_TARGET, QUALIFIED, UNQUALIFIED_80), and reads return UNQUALIFIED_70 / UNQUALIFIED_30 (not in the document\'s read enum).',
    evidence:
      "[O] MF's own MCP server's write schema (totto2727-org/open-connector src/providers/moneyforward_mcp/actions.ts); the 令和8年度税制改正's 70 %/30 % steps (issue 27) [C] the pinned document predates them",
  },
  'invoice-kind-refusal-text': {
    kind: 'wire',
    summary:
      'An invoice_kind MF refuses (on the credit side, or NOT_TARGET with a taxable tax: switches invoiceKindOnCredit, notTargetOnTaxable) is 400 with 「インボイスは不正な値です」, a text the document does not list.',
    evidence: "[O] a receipt app's live MF field table, 2026-05-23 (reference/mf-api.md §16)",
  },
  'invoice-kind-default': {
    kind: 'behaviour',
    summary:
      'A side sent without invoice_kind is stored QUALIFIED when its tax is a taxable purchase (the fake: a debit side with a tax rate) and NOT_TARGET otherwise.',
    evidence:
      "[O] the same receipt app's field table; MF's 仕訳帳 import guide as quoted by the-board.jp [I] the fake's test of \"taxable\"",
  },
  'fake-detail-header': {
    kind: 'behaviour',
    summary:
      "When the document's text replaces the fake's own explanation of an error, the explanation travels in x-fake-mf-detail (for the fake's tests).",
    evidence: '[I] ours; MF sends no such header, and kicho never reads it',
  },
} as const satisfies Record<string, Difference>;

export type DifferenceName = keyof typeof DIFFERENCES;

export const DIFFERENCE_NAMES = Object.keys(DIFFERENCES) as DifferenceName[];
