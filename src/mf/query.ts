import type { MfId } from './types';

/**
 * URL building by MF's rules (mf-api.md §3):
 * - array parameters repeat the key (`k=a&k=b`); `k[]=` gets 400 unsupported_query_parameter;
 * - ids go on the wire exactly as MF returned them: they are already percent-encoded, and encoding the
 *   `%` again (`%252B`) gets 400 invalid_query_parameter_value;
 * - every other value is percent-encoded normally.
 */

export type QueryScalar = string | number | boolean;

/** Percent-encodes an ordinary value (dates, numbers, enum words, free text). */
export function encodeQueryValue(value: QueryScalar): string {
  return encodeURIComponent(String(value));
}

/**
 * An id as it goes into a query or a path: stored ids are left exactly as they are. Only characters that
 * cannot appear raw in a URL are encoded, and `%` only when it does not start a `%XX` escape, so a well-formed
 * stored id (`BowMh…F5%2B3QQ%3D%3D`) passes through untouched and nothing is ever encoded twice.
 */
export function encodeStoredId(id: MfId): string {
  return String(id).replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~%]/g, (c) => encodeURIComponent(c));
}

/** A query string assembled in order; empty values (null, undefined, empty arrays) are left out. */
export class QueryBuilder {
  private readonly parts: string[] = [];

  /** One ordinary value. */
  set(name: string, value: QueryScalar | null | undefined): this {
    if (value !== null && value !== undefined)
      this.parts.push(`${encodeQueryValue(name)}=${encodeQueryValue(value)}`);
    return this;
  }

  /** Ordinary values, form style: the key repeated once per value. */
  list(name: string, values: readonly QueryScalar[] | null | undefined): this {
    for (const value of values ?? []) this.set(name, value);
    return this;
  }

  /** One id, sent as stored. */
  id(name: string, id: MfId | null | undefined): this {
    if (id !== null && id !== undefined) this.parts.push(`${encodeQueryValue(name)}=${encodeStoredId(id)}`);
    return this;
  }

  /** Ids, form style and as stored. */
  ids(name: string, ids: readonly MfId[] | null | undefined): this {
    for (const id of ids ?? []) this.id(name, id);
    return this;
  }

  /** The query without the leading `?`. */
  toString(): string {
    return this.parts.join('&');
  }
}

export function withQuery(url: string, query: QueryBuilder | string): string {
  const text = String(query);
  if (text === '') return url;
  return `${url}${url.indexOf('?') >= 0 ? '&' : '?'}${text}`;
}

/**
 * `base/{id}` with the stored id percent-encoded exactly once more (`%2F` travels as `%252F`): MF decodes a
 * path once, and a raw `%2F` becomes `/` before routing, which public clients saw answered 403
 * (mf-api.md §3, §15).
 */
export function pathWithId(base: string, id: MfId): string {
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(String(id))}`;
}
