/**
 * MF's published OpenAPI document as the contract (issue 12): every request the MF client sends and every
 * answer the fake MF gives is validated against its operation in mf-openapi.ja.yaml (beside this file,
 * vendored unchanged) by openapi-backend (Ajv underneath, OpenAPI 3.0 `nullable`, form-style exploded
 * arrays, formats). What does not validate is a finding; a finding is accepted only when it is one of the
 * named differences of sim/mf/differences.ts, and is then counted under that name.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import addFormatsModule from 'ajv-formats';
import { OpenAPIBackend, type Operation, type Request } from 'openapi-backend';
import { parse } from 'yaml';
import type { DifferenceName } from '../../sim/mf/differences';
import { Messages } from '../../sim/mf/errors';
import { INVOICE_KIND_REFUSED } from '../../sim/mf/journal-input';
import type { HttpRequest, HttpResponse } from '../../sim/mf/types';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DOCUMENT_PATH = path.join(HERE, 'mf-openapi.ja.yaml');

// ajv-formats is CommonJS with a default export.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: unknown,
  formats: string[],
) => void;

/** One thing the document would not accept, with the difference that explains it, if any. */
export interface Finding {
  difference: DifferenceName | null;
  method: string;
  path: string;
  operation: string | null;
  part: 'request' | 'response';
  detail: string;
}

/** Error texts the fake sends verbatim under a name (sim/mf/errors.ts `verbatim`). */
const NAMED_TEXTS: ReadonlyMap<string, DifferenceName> = new Map<string, DifferenceName>([
  [Messages.transactionsPerPage, 'observed-400-text'],
  [Messages.sideRequired, 'observed-400-text'],
  [Messages.idNotFound, 'unknown-id-text'],
  [Messages.alreadyJournalized, 'second-journalize-wording'],
  [Messages.transactionExcluded, 'second-journalize-wording'],
  [INVOICE_KIND_REFUSED, 'invoice-kind-refusal-text'],
]);

/** インボイス区分 values of the 令和8年度 steps, which the pinned document does not list (issue 27). */
const REFORM_KINDS = new Set([
  'INVOICE_KIND_UNQUALIFIED_70',
  'INVOICE_KIND_UNQUALIFIED_50',
  'INVOICE_KIND_UNQUALIFIED_30',
  'INVOICE_KIND_UNQUALIFIED',
]);

/**
 * `value` with every invoice_kind the document does not take in this place replaced by UNQUALIFIED_80 (a
 * value it takes on writes and reads), and whether anything was replaced: to see whether anything else is
 * wrong with the exchange.
 */
function withDocumentKinds(
  value: unknown,
  kinds: ReadonlySet<string>,
): { value: unknown; replaced: boolean } {
  let replaced = false;
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk);
    if (!v || typeof v !== 'object') return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (k === 'invoice_kind' && typeof x === 'string' && kinds.has(x)) {
        replaced = true;
        out[k] = 'INVOICE_KIND_UNQUALIFIED_80';
      } else out[k] = walk(x);
    }
    return out;
  };
  return { value: walk(value), replaced };
}

/** Reads: the document's read enum has UNQUALIFIED_50 and UNQUALIFIED, not 70 and 30. */
const REFORM_READ_KINDS = new Set(['INVOICE_KIND_UNQUALIFIED_70', 'INVOICE_KIND_UNQUALIFIED_30']);
/** A document text to put in place of a named one, to check that nothing else is wrong with the body. */
const STAND_IN_400 = 'One of the requests inputs is not valid. Target';

const AUTH_PATHS: Readonly<Record<string, DifferenceName>> = {
  '/auth/exchange': 'api-key-exchange',
  '/authorize': 'oauth-endpoints',
  '/token': 'oauth-endpoints',
};

/** `k=a&k=b` → {k: ['a', 'b']} by the form style's rules; `k[]` stays a key of its own (MF refuses it). */
function formQuery(raw: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    const seen = out[name];
    out[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return out;
}

function splitUrl(url: string): { host: string; path: string; query: string } {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?/i.exec(url);
  return { host: (m?.[1] ?? '').toLowerCase(), path: m?.[2] || '/', query: m?.[3] ?? '' };
}

function header(headers: Record<string, string>, name: string): string | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
}

type AjvError = { instancePath?: string; message?: string; params?: unknown };

function describeErrors(errors: readonly AjvError[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params ?? {}).slice(0, 120)}`)
    .join('; ');
}

/** A trial balance with every `rows: null` made `rows: []`, to see whether anything else is wrong. */
function leafRowsAsArrays(body: unknown): unknown {
  const fix = (row: unknown): unknown => {
    if (!row || typeof row !== 'object') return row;
    const r = row as { rows?: unknown };
    return { ...r, rows: r.rows === null ? [] : Array.isArray(r.rows) ? r.rows.map(fix) : r.rows };
  };
  const b = body as { rows?: unknown } | null;
  return b && Array.isArray(b.rows) ? { ...b, rows: b.rows.map(fix) } : body;
}

export class Contract {
  private constructor(private readonly api: OpenAPIBackend) {}

  /** Reads and compiles the document once (about a second). */
  static async load(): Promise<Contract> {
    const definition = parse(readFileSync(DOCUMENT_PATH, 'utf8'));
    const api = new OpenAPIBackend({
      definition,
      strict: true,
      quick: false,
      validate: true,
      ajvOpts: { allErrors: true },
      customizeAjv: (ajv) => {
        addFormats(ajv, ['date', 'date-time']);
        // The document writes `format: datetime` for create_time/update_time; read it as RFC 3339.
        ajv.addFormat('datetime', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/);
        return ajv;
      },
    });
    await api.init();
    return new Contract(api);
  }

  /** Operation ids of the document, e.g. getJournals. */
  operationIds(): string[] {
    return this.api.router.getOperations().map((op) => op.operationId ?? '');
  }

  /** The security scopes the document requires for an operation. */
  scopesOf(operationId: string): string[] {
    const op = this.api.router.getOperation(operationId);
    return (op?.security ?? []).flatMap((s) => Object.values(s).flat());
  }

  /** The operation a method and raw path reach, or null. */
  operationFor(method: string, rawPath: string): Operation | null {
    return (
      this.api.router.matchOperation({ method: method.toLowerCase(), path: rawPath, headers: {} }) ?? null
    );
  }

  /** Everything the document would not accept in one exchange (empty when all is well). */
  check(req: HttpRequest, res: HttpResponse): Finding[] {
    const { path: rawPath, query } = splitUrl(req.url);
    const method = req.method.toUpperCase();
    const findings: Finding[] = [];
    const add = (
      difference: DifferenceName | null,
      part: Finding['part'],
      detail: string,
      operation: string | null = null,
    ) => findings.push({ difference, method, path: rawPath, operation, part, detail });

    const authPath = AUTH_PATHS[rawPath];
    if (authPath) {
      add(authPath, 'request', `${method} ${rawPath} is not an operation of the document`);
      return findings;
    }
    const op = this.operationFor(method, rawPath);
    if (!op?.operationId) {
      add(null, 'request', `${method} ${rawPath}: the document has no such operation`);
      return findings;
    }
    const id = op.operationId;

    // Request: the security scheme, the media type, then parameters and body by the schemas.
    if (!/^Bearer \S+$/.test(header(req.headers, 'authorization') ?? '')) {
      add(null, 'request', 'no Bearer token (every operation requires OAuth2)', id);
    }
    const contentType = header(req.headers, 'content-type') ?? '';
    if (req.body !== undefined && req.body !== '' && !/^application\/json\b/i.test(contentType)) {
      add(null, 'request', `body sent as ${contentType || 'no content type'}, not application/json`, id);
    }
    const params = formQuery(query);
    if ('office_code' in params) {
      add('api-key-office-code', 'request', 'office_code in the query', id);
      delete params.office_code;
    }
    const request: Request = {
      method: method.toLowerCase(),
      path: rawPath,
      query: params,
      headers: { ...req.headers, 'content-type': contentType },
      body: req.body,
    };
    const validated = this.api.validator.validateRequest(request, op);
    if (!validated.valid) {
      // A write of a 令和8年度 インボイス区分 (issue 27): named when that is all that is wrong.
      const kinds =
        typeof req.body === 'string' && req.body !== ''
          ? withDocumentKinds(JSON.parse(req.body), REFORM_KINDS)
          : null;
      const again = kinds?.replaced
        ? this.api.validator.validateRequest({ ...request, body: JSON.stringify(kinds.value) }, op)
        : null;
      if (again?.valid) add('invoice-kind-reform', 'request', 'a 令和8年度 invoice_kind', id);
      else add(null, 'request', describeErrors(validated.errors as AjvError[]), id);
    }

    // Response.
    if (res.fault) {
      add('transport-fault', 'response', `no HTTP answer (${res.fault})`, id);
      return findings;
    }
    if (header(res.headers, 'x-fake-mf-detail') !== undefined) {
      add('fake-detail-header', 'response', 'x-fake-mf-detail', id);
    }
    if (res.status === 429 && header(res.headers, 'retry-after') !== undefined) {
      add('retry-after', 'response', 'Retry-After on a 429', id);
    }
    const declared = op.responses?.[String(res.status)] as { content?: unknown } | undefined;
    if (!declared) {
      add(null, 'response', `status ${res.status} is not declared for ${id}`, id);
      return findings;
    }
    if (!declared.content) {
      if (res.body !== '')
        add(null, 'response', `status ${res.status} has a body the document does not declare`, id);
      return findings;
    }
    let body: unknown;
    try {
      body = JSON.parse(res.body);
    } catch {
      add(null, 'response', `status ${res.status}: the body is not JSON`, id);
      return findings;
    }
    const result = this.api.validator.validateResponse(body, op, res.status);
    if (result.valid) return findings;
    if (id === 'getReportsTrialBalanceBalanceSheet' && res.status === 200) {
      // The document's own example gives leaf rows `rows: null` where its schema says an array.
      const again = this.api.validator.validateResponse(leafRowsAsArrays(body), op, res.status);
      if (again.valid) {
        add('trial-balance-null-rows', 'response', 'rows: null on leaf rows (as the example shows)', id);
        return findings;
      }
    }
    const kinds = withDocumentKinds(body, REFORM_READ_KINDS);
    if (kinds.replaced && this.api.validator.validateResponse(kinds.value, op, res.status).valid) {
      add('invoice-kind-reform', 'response', 'a 令和8年度 invoice_kind in an answer', id);
      return findings;
    }
    const named = this.namedErrorTexts(body);
    if (named) {
      const again = this.api.validator.validateResponse(named.standIn, op, res.status);
      if (again.valid) {
        add(named.difference, 'response', `error text under ${named.difference}`, id);
        return findings;
      }
    }
    add(null, 'response', `${res.status}: ${describeErrors(result.errors as AjvError[])}`, id);
    return findings;
  }

  /** When every error text in an error body is a named one: the body with document texts instead. */
  private namedErrorTexts(body: unknown): { difference: DifferenceName; standIn: unknown } | null {
    const errors = (body as { errors?: { code?: unknown; message?: unknown }[] } | null)?.errors;
    if (!Array.isArray(errors) || errors.length === 0) return null;
    let difference: DifferenceName | null = null;
    for (const e of errors) {
      const name = typeof e?.message === 'string' ? NAMED_TEXTS.get(e.message) : undefined;
      if (!name || (difference !== null && name !== difference)) return null;
      difference = name;
    }
    if (difference === null) return null;
    return { difference, standIn: { errors: errors.map((e) => ({ ...e, message: STAND_IN_400 })) } };
  }
}

/** Findings of many exchanges: the named ones counted, the others kept to fail the test that made them. */
export class ContractLog {
  readonly violations: Finding[] = [];
  readonly named = new Map<DifferenceName, number>();
  exchanges = 0;

  constructor(readonly contract: Contract) {}

  record(req: HttpRequest, res: HttpResponse): void {
    this.exchanges++;
    for (const finding of this.contract.check(req, res)) {
      if (finding.difference === null) this.violations.push(finding);
      else this.named.set(finding.difference, (this.named.get(finding.difference) ?? 0) + 1);
    }
  }

  /** A handler that answers as `handler` does and records the exchange. */
  wrap(handler: (req: HttpRequest) => HttpResponse): (req: HttpRequest) => HttpResponse {
    return (req) => {
      const res = handler(req);
      this.record(req, res);
      return res;
    };
  }

  report(): string {
    return this.violations
      .slice(0, 20)
      .map((v) => `${v.part} ${v.method} ${v.path} [${v.operation ?? '?'}]: ${v.detail}`)
      .join('\n');
  }
}
