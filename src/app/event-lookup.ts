/**
 * Look before an event's send (issue 17). A sender resends an event whose 台帳 row a person deleted
 * after it was posted: doPost cannot ask MF (it answers at once, within Apps Script's quotas), so the row
 * comes back 未判定. Before an evt: row is sent, its tag is looked for among MF's journals of its dates —
 * one listing per window of dates for the chunk — and a journal found makes the row 完了 instead of a
 * second journal. A send remembered a moment ago is held as 不明 at intake already (recent-sends.ts).
 */
import { isEvtKey } from '../core/events';
import { remoteTagOf } from '../core/keys';
import type { Claimed, SendResult } from '../core/posting';
import type { MfClient } from '../mf/client';
import { MfAuthError } from '../mf/errors';
import { taggedRowsWentMissing } from './done-rows';

export const EVENT_LOOKUP_MSG = {
  unverified:
    'MFに登録済みの仕訳を確かめられなかったため送信していません（送信元から届いたイベントは、行が消されて届き直したものを二度登録しないよう、送る前にMFを確かめます）',
} as const;

/** Dates within a month of each other share one listing. */
function nearWindows(dates: readonly string[]): { start: string; end: string }[] {
  const sorted = [...new Set(dates.filter((d) => /^\d{4}-\d{2}-\d{2}$/.test(d)))].sort();
  const out: { start: string; end: string }[] = [];
  for (const d of sorted) {
    const open = out[out.length - 1];
    if (open && Date.parse(d) - Date.parse(open.end) <= 31 * 86_400_000) open.end = d;
    else out.push({ start: d, end: d });
  }
  return out;
}

/**
 * The listings in which a journal for lines of these windows may be found. Normally the windows
 * themselves; once sent CSV or event rows went missing from the 台帳 (`wide`), stretched to the whole
 * accounting periods they touch, because a person may have changed a line's 取引日 before it was posted
 * (done-rows.ts `taggedRowsWentMissing`). A date outside every period stays as it is (MF lists nothing
 * there; the send itself is refused for it).
 */
export function tagWindows(
  client: MfClient,
  windows: readonly { start: string; end: string }[],
  wide: boolean,
): { start: string; end: string }[] {
  if (!wide) return [...windows];
  const out = new Map<string, { start: string; end: string }>();
  for (const w of windows) {
    const start = client.periodOf(w.start)?.start_date ?? w.start;
    const end = client.periodOf(w.end)?.end_date ?? w.end;
    out.set(`${start}..${end}`, { start, end });
  }
  return [...out.values()];
}

export interface EventLookup {
  /**
   * A journal MF already holds for this row, a reason not to send it, or null (send). A journal found by
   * tag gets no 指紋: kicho did not send this row's content (a resend after the row was deleted may differ
   * from what was posted), so nothing may treat the journal as carrying it (DESIGN §3: 指紋 is what was
   * sent; simulation seed 978160).
   */
  before(c: Claimed): SendResult | null;
}

export function lookUpEvents(client: MfClient, claimed: readonly Claimed[]): EventLookup {
  const rows = claimed.filter((c) => isEvtKey(c.key));
  const byTag = new Map<string, string>();
  let problem: SendResult | null = null;
  if (rows.length > 0) {
    try {
      for (const w of tagWindows(
        client,
        nearWindows(rows.map((c) => c.record.取引日)),
        taggedRowsWentMissing(),
      ))
        for (const j of client.journalsBetween(w.start, w.end)) for (const t of j.tags) byTag.set(t, j.id);
    } catch (e) {
      problem =
        e instanceof MfAuthError
          ? { kind: 'unauthorized', message: e.message }
          : { kind: 'not-sent', reason: EVENT_LOOKUP_MSG.unverified };
    }
  }
  return {
    before(c) {
      if (!isEvtKey(c.key)) return null;
      if (problem) return problem;
      const found = byTag.get(remoteTagOf(c.key));
      return found ? { kind: 'found', journalId: found, fingerprint: '' } : null;
    },
  };
}
