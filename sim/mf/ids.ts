// MF ids are opaque base64 strings that the API hands out ALREADY percent-encoded
// (`BowMhLnFvzZ1y9TeF5%2B3QQ%3D%3D`). Clients must store and send them exactly as received; these
// helpers reproduce how the server compares them in a path, a query and a JSON body (mf-api.md §3).

import type { Random } from './random';

/** 16 bytes gives 24 base64 characters ending in `==`, like the ids seen in the wild. */
const ID_BYTES = 16;

/** Percent-encodes exactly the base64 characters that are not URL-safe, as MF does. */
export function encodeBase64Id(base64: string): string {
  return base64.replace(/[+/=]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

export class IdFactory {
  private readonly taken = new Set<string>();

  constructor(
    private readonly random: Random,
    taken: Iterable<string> = [],
  ) {
    for (const id of taken) this.taken.add(id);
  }

  /**
   * A fresh id. Candidates without `+` or `/` are drawn again so that every id carries %2B or %2F (and
   * %3D): a client that decodes or re-encodes ids then fails on every id, not on half of them.
   */
  next(): string {
    for (;;) {
      const base64 = Buffer.from(this.random.bytes(ID_BYTES)).toString('base64');
      if (!/[+/]/.test(base64)) continue;
      const id = encodeBase64Id(base64);
      if (this.taken.has(id)) continue;
      this.taken.add(id);
      return id;
    }
  }

  reserve(id: string): void {
    this.taken.add(id);
  }
}

function decodeOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The stored ids a raw path segment may denote. The server decodes the segment once, so both the stored
 * string as is (`%2B` on the wire) and encodeURIComponent(stored) (`%252B`) reach the same id; a fully
 * decoded id (literal `+`, `=`) denotes nothing.
 */
export function pathIdCandidates(rawSegment: string): string[] {
  const decoded = decodeOnce(rawSegment);
  return decoded === undefined || decoded === rawSegment ? [rawSegment] : [rawSegment, decoded];
}

/**
 * Maps a query value (already URL-decoded once by the query parser) to the stored form of the id, or
 * undefined when it cannot be one. The wire must carry the stored string unchanged (`%2B`), which
 * decodes to the raw base64; a double-encoded id (`%252B`) decodes to something still holding `%`, and a
 * literal `+` sent unencoded decodes to a space: both are rejected as invalid_query_parameter_value.
 */
export function storedIdFromQueryValue(value: string): string | undefined {
  if (value === '' || /[%\s]/.test(value)) return undefined;
  return encodeBase64Id(value);
}

/** In a JSON body an id is compared as is; a URL-decoded one still shows its `+`, `/` or `=`. */
export function looksDecoded(id: string): boolean {
  return /[+/=]/.test(id);
}
