/**
 * Lines kicho sent a moment ago, remembered outside the 台帳 (issue 14). MF's listings lag behind a
 * journalize (DESIGN §5: the 照合猶予 covers it), and people delete rows: a row deleted while its send
 * was in flight, or just after, comes back with the next import — MF still lists its line as 未仕訳 —
 * and would be sent again. So every claim is remembered (by remote tag) for the lease plus 照合猶予;
 * a line that comes back within that time comes back as 不明, and reconcile looks it up before
 * anything is sent. Pure: the app layer keeps the entries in script properties.
 */
import { tagDigits } from './keys';

export interface RecentSend {
  /** The 16 hex digits of the line's remote tag. */
  tag: string;
  /** When it was claimed, in whole minutes since the epoch. */
  minute: number;
}

/** Entries kept at most (each ~22 characters): a day of sending at MF's rate limit fits many times. */
export const RECENT_SENDS_CAP = 5_000;

const ENTRY = /^([0-9a-f]{16})([0-9a-z]+)$/;

export function parseRecentSends(text: string | null): RecentSend[] {
  if (!text) return [];
  const out: RecentSend[] = [];
  for (const part of text.split(',')) {
    const m = ENTRY.exec(part);
    if (m) out.push({ tag: m[1], minute: Number.parseInt(m[2], 36) });
  }
  return out;
}

/** Entries as text values of at most `maxChars` each (a property value holds 9 KB). */
export function formatRecentSends(entries: readonly RecentSend[], maxChars = 8_000): string[] {
  const values: string[] = [];
  let current = '';
  for (const e of entries) {
    const part = `${e.tag}${e.minute.toString(36)}`;
    if (current.length + part.length + 1 > maxChars) {
      values.push(current);
      current = '';
    }
    current = current === '' ? part : `${current},${part}`;
  }
  if (current !== '') values.push(current);
  return values;
}

/**
 * `entries` with `remember` added (claimed now), `forget` removed (definitely not sent), anything older
 * than `windowMinutes` dropped, and at most RECENT_SENDS_CAP kept (the newest).
 */
export function updateRecentSends(
  entries: readonly RecentSend[],
  nowMinute: number,
  windowMinutes: number,
  remember: readonly string[],
  forget: readonly string[],
): RecentSend[] {
  const gone = new Set(forget.map(tagDigits));
  const fresh = new Set(remember.map(tagDigits));
  const kept = entries.filter(
    (e) => !gone.has(e.tag) && !fresh.has(e.tag) && nowMinute - e.minute <= windowMinutes,
  );
  for (const tag of fresh) if (!gone.has(tag)) kept.push({ tag, minute: nowMinute });
  return kept.slice(-RECENT_SENDS_CAP);
}

/** Whether the line of `key` was claimed within the window. */
export function sentRecently(
  entries: readonly RecentSend[],
  key: string,
  nowMinute: number,
  windowMinutes: number,
): boolean {
  const tag = tagDigits(key);
  return entries.some((e) => e.tag === tag && nowMinute - e.minute <= windowMinutes);
}

export const RECENT_SEND_MEMO =
  'この明細は少し前に kicho が MF に送信しています（台帳の行が消されて、取り込み直された可能性があります）。二重に登録しないよう、照合でMFの仕訳を確かめるまで送信しません。';
