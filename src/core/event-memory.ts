/**
 * What each event id carried when it was received, remembered outside the 台帳 (issue 25). A resend
 * with the same id is a duplicate; a resend with other content (a corrected amount) must not be, but the
 * 台帳 row cannot tell which side changed: people correct 取引日 or 金額 on the 台帳 before approving,
 * and a sender that then resends the first content has changed nothing. So the content as received is
 * kept as a short digest per key (by remote tag), and only a digest that differs is a changed resend.
 * Pure: the web handler keeps the entries in script properties, under the script lock.
 */
import { tagDigits } from './keys';
import { sha256Hex } from './sha256';

export interface RememberedEvent {
  /** The 16 hex digits of the event key's remote tag. */
  tag: string;
  /** The first 8 hex digits of the SHA-256 of its content (eventDigest). */
  digest: string;
}

/**
 * Events remembered at most (each 25 characters with its comma: ~50 KB of the 500 KB script properties).
 * A shop sending 60 events a day is remembered for a month; an older id sent again with other content
 * is answered as a plain duplicate (README says so).
 */
export const EVENT_MEMORY_CAP = 2_000;

const ENTRY = /^([0-9a-f]{16})([0-9a-f]{8})$/;

/**
 * The content a sender controls and kicho compares: the line's fields and the partner. Not the memo (a
 * note; a change of it holds nothing back) and not the type (part of the key).
 */
export function eventDigest(e: {
  date: string;
  direction: string;
  amount: number;
  description: string;
  partner: string;
}): string {
  return sha256Hex(JSON.stringify([e.date, e.direction, e.amount, e.description, e.partner])).slice(0, 8);
}

export function parseEventMemory(text: string | null): RememberedEvent[] {
  if (!text) return [];
  const out: RememberedEvent[] = [];
  for (const part of text.split(',')) {
    const m = ENTRY.exec(part);
    if (m) out.push({ tag: m[1], digest: m[2] });
  }
  return out;
}

/** Entries as text values of at most `maxChars` each (a property value holds 9 KB). */
export function formatEventMemory(entries: readonly RememberedEvent[], maxChars = 8_000): string[] {
  const values: string[] = [];
  let current = '';
  for (const e of entries) {
    const part = `${e.tag}${e.digest}`;
    if (current.length + part.length + 1 > maxChars) {
      values.push(current);
      current = '';
    }
    current = current === '' ? part : `${current},${part}`;
  }
  if (current !== '') values.push(current);
  return values;
}

/** `entries` with each key's digest set (moved to the newest end), at most EVENT_MEMORY_CAP kept. */
export function rememberEvents(
  entries: readonly RememberedEvent[],
  digests: ReadonlyMap<string, string>,
): RememberedEvent[] {
  const fresh = new Map([...digests].map(([key, digest]) => [tagDigits(key), digest]));
  const kept = entries.filter((e) => !fresh.has(e.tag));
  for (const [tag, digest] of fresh) kept.push({ tag, digest });
  return kept.slice(-EVENT_MEMORY_CAP);
}

/** The digest remembered for `key`, if any (the newest, should a tag appear twice). */
export function rememberedDigest(entries: readonly RememberedEvent[], key: string): string | undefined {
  const tag = tagDigits(key);
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i].tag === tag) return entries[i].digest;
  return undefined;
}
