/**
 * MF ids are percent-encoded strings (`BowMh…F5%2B3QQ%3D%3D`). kicho stores and sends them exactly as MF
 * listed them (DESIGN §2), but compares two of them by their canonical form: decoded once, so `%2b` and
 * `%2B` are the same id. Whether journal.transaction_id is byte-identical to the line's id is unverified
 * (mf-api.md §15); a difference in hex case must not make a posted journal invisible.
 */
import type { MfId } from './types';

/** The id decoded once; an id that does not decode (a stray `%`) is compared with its escapes in upper case. */
export function canonicalId(id: MfId | string): string {
  const text = String(id);
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%[0-9a-f]{2}/gi, (hex) => hex.toUpperCase());
  }
}

export function sameMfId(a: MfId | string | null | undefined, b: MfId | string | null | undefined): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false;
  return a === b || canonicalId(a) === canonicalId(b);
}

/** A map keyed by canonical id. */
export class IdMap<V> {
  private readonly map = new Map<string, V>();

  set(id: MfId | string, value: V): this {
    this.map.set(canonicalId(id), value);
    return this;
  }

  get(id: MfId | string): V | undefined {
    return this.map.get(canonicalId(id));
  }

  has(id: MfId | string): boolean {
    return this.map.has(canonicalId(id));
  }

  get size(): number {
    return this.map.size;
  }

  values(): IterableIterator<V> {
    return this.map.values();
  }
}
