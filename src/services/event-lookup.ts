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
import { MfAuthError } from '../mf/errors';
import type { MfLookup } from '../mf/lookup';
import { nearbyWindows } from '../mf/windows';
import { taggedRowsWentMissing } from './done-rows';

export const EVENT_LOOKUP_MSG = {
  unverified:
    'MFに登録済みの仕訳を確かめられなかったため送信していません（送信元から届いたイベントは、行が消されて届き直したものを二度登録しないよう、送る前にMFを確かめます）',
} as const;

export interface EventLookup {
  /**
   * A journal MF already holds for this row, a reason not to send it, or null (send). A journal found by
   * tag gets no 指紋: kicho did not send this row's content (a resend after the row was deleted may differ
   * from what was posted), so nothing may treat the journal as carrying it (DESIGN §3: 指紋 is what was
   * sent; simulation seed 978160).
   */
  before(c: Claimed): SendResult | null;
}

/**
 * Looked for in the windows of the rows' dates; once sent CSV or event rows went missing from the 台帳,
 * in the whole accounting periods they touch (done-rows.ts `taggedRowsWentMissing`, mf/lookup.ts).
 */
export function lookUpEvents(lookup: MfLookup, claimed: readonly Claimed[]): EventLookup {
  const rows = claimed.filter((c) => isEvtKey(c.key));
  let byTag = new Map<string, string>();
  let problem: SendResult | null = null;
  if (rows.length > 0) {
    try {
      byTag = lookup.journalsByTag(nearbyWindows(rows.map((c) => c.record.取引日)), taggedRowsWentMissing());
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
