// Turns an HttpRequest into what handlers need, keeping the path exactly as on the wire: id matching
// depends on whether the client percent-encoded an id once, twice or not at all.

import { isIsoDate } from './dates';
import { badRequest, Messages } from './errors';
import type { HttpRequest } from './types';

export interface ParsedRequest {
  method: string;
  /** Raw path as sent, without host and query; never decoded. */
  path: string;
  /** Raw query string without the leading `?`. */
  rawQuery: string;
  query: Query;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  body: string;
}

export function parseRequest(req: HttpRequest): ParsedRequest {
  // Strip scheme and host by hand: `new URL` would normalise the path and hide what the client sent.
  const withoutOrigin = req.url.replace(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/, '');
  const withoutFragment = withoutOrigin.split('#')[0] ?? '';
  const queryAt = withoutFragment.indexOf('?');
  const path = (queryAt < 0 ? withoutFragment : withoutFragment.slice(0, queryAt)) || '/';
  const rawQuery = queryAt < 0 ? '' : withoutFragment.slice(queryAt + 1);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers ?? {})) headers[name.toLowerCase()] = value;
  return {
    method: req.method.toUpperCase(),
    path,
    rawQuery,
    query: new Query(rawQuery),
    headers,
    body: req.body ?? '',
  };
}

/** Query parameters, decoded once (form style: `+` is a space), with MF's validation rules. */
export class Query {
  private readonly entries: [string, string][];

  constructor(rawQuery: string) {
    this.entries = [...new URLSearchParams(rawQuery)];
  }

  names(): string[] {
    return [...new Set(this.entries.map(([name]) => name))];
  }

  all(name: string): string[] {
    return this.entries.filter(([key]) => key === name).map(([, value]) => value);
  }

  /** A single-valued parameter; repeating it is `redundant_query_parameter`. */
  one(name: string): string | undefined {
    const values = this.all(name);
    if (values.length > 1) {
      throw badRequest('redundant_query_parameter', `${name} must not be specified more than once.`);
    }
    return values[0];
  }

  /**
   * Rejects parameters the endpoint does not know. `k[]` gets its own message because it is the usual
   * client mistake: MF wants array parameters repeated form-style (`k=a&k=b`).
   */
  allowOnly(allowed: readonly string[], arrays: readonly string[] = []): void {
    for (const name of this.names()) {
      if (name.endsWith('[]')) {
        throw badRequest(
          'unsupported_query_parameter',
          `${name} is not supported. Repeat the key instead: ${name.slice(0, -2)}=a&${name.slice(0, -2)}=b.`,
        );
      }
      if (!allowed.includes(name) && !arrays.includes(name)) {
        throw badRequest('unsupported_query_parameter', `${name} is not a supported query parameter.`);
      }
      if (!arrays.includes(name)) this.one(name);
    }
  }

  date(name: string): string | undefined {
    const value = this.one(name);
    if (value === undefined) return undefined;
    if (!isIsoDate(value))
      throw badRequest('invalid_query_parameter_value', `${name} must be a YYYY-MM-DD date.`);
    return value;
  }

  requiredDate(name: string): string {
    const value = this.date(name);
    if (value === undefined) throw badRequest('missing_required_query_parameter', `${name} is required.`);
    return value;
  }

  integer(
    name: string,
    range: { min: number; max: number; message?: string; verbatim?: string },
  ): number | undefined {
    const value = this.one(name);
    if (value === undefined) return undefined;
    const n = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < range.min || n > range.max) {
      throw badRequest(
        'invalid_query_parameter_value',
        range.message ?? `${name} must be an integer between ${range.min} and ${range.max}.`,
        range.verbatim,
      );
    }
    return n;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.one(name);
    if (value === undefined) return undefined;
    return checkEnum(name, value, values);
  }

  allOneOf<T extends string>(name: string, values: readonly T[]): T[] {
    return this.all(name).map((value) => checkEnum(name, value, values));
  }

  boolean(name: string): boolean | undefined {
    const value = this.one(name);
    if (value === undefined) return undefined;
    return checkEnum(name, value, ['true', 'false'] as const) === 'true';
  }
}

function checkEnum<T extends string>(name: string, value: string, values: readonly T[]): T {
  if (!(values as readonly string[]).includes(value)) {
    throw badRequest('invalid_query_parameter_value', `${name} must be one of: ${values.join(', ')}.`);
  }
  return value as T;
}

/** Page-based paging shared by /transactions and /journals (mf-api.md §3). */
export function paginate<T>(
  items: readonly T[],
  page: number,
  perPage: number,
): { items: T[]; metadata: { total_count: number; total_pages: number } } {
  const totalPages = Math.ceil(items.length / perPage);
  // An empty result has total_pages 0, and page 1 of it is still a valid (empty) request.
  if (page > Math.max(totalPages, 1)) {
    throw badRequest('invalid_query_parameter_value', Messages.pageTooLarge);
  }
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    metadata: { total_count: items.length, total_pages: totalPages },
  };
}
