/**
 * What 重複を削除's settle does to the 台帳 (deletion.ts): each row tied to a deleted journal keeps a
 * surviving journal of its own from the same recorded group, or becomes 除外, so it is never posted again.
 */
import type { LedgerTable, RowChange } from '../ledger';
import { transition } from '../states';
import { DELETE_MSG } from './deletion-messages';
import { canonical } from './facts';
import type { RecordedMember } from './record';

/** A journal deleted (or found gone), with what ties it to the 台帳. */
export interface DeletedJournal {
  id: string;
  /** Its record entry (null: a row the record does not hold — the 台帳 is not touched for it). */
  member: RecordedMember | null;
  /** 台帳 keys found at the claim (the journal's tag and line against the 台帳 then). */
  claimKeys: readonly string[];
}

/**
 * The 台帳 after journals were deleted: each row tied to a deleted journal (the record's keys for it, the
 * keys found at its claim, or MF仕訳ID) keeps a surviving journal of its own from the same recorded group, or
 * becomes 除外. `alive` are the group's journals MF was seen to hold (the only ones named or relinked to).
 * A 完了 row whose own journal survives, an 除外 row and a row being sent are left alone.
 */
export function ledgerChangesForDeleted(
  ledger: LedgerTable,
  deleted: readonly DeletedJournal[],
  alive: ReadonlyMap<string, readonly RecordedMember[]>,
  who: string,
  now: string,
  at: string,
): { changes: RowChange[]; excluded: number; relinked: number; messages: string[] } {
  const changes: RowChange[] = [];
  const messages: string[] = [];
  let excluded = 0;
  let relinked = 0;
  const deletedIds = new Set(deleted.map((d) => canonical(d.id)));
  const touched = new Set<number>();
  for (const d of deleted) {
    if (!d.member) {
      messages.push(DELETE_MSG.unrecorded(d.id));
      continue;
    }
    const dId = canonical(d.id);
    const keys = new Set([...d.member.keys, ...d.claimKeys]);
    const kept = (alive.get(d.member.group) ?? []).filter((m) => !deletedIds.has(canonical(m.id)));
    for (const row of ledger.rows) {
      if (touched.has(row.rowNumber)) continue;
      const key = row.record.キー;
      const ownJournal = row.record.MF仕訳ID.trim();
      const tied = keys.has(key) || (ownJournal !== '' && canonical(ownJournal) === dId);
      if (!tied) continue;
      const state = row.record.状態;
      if (state === '除外') continue;
      if (
        state === '完了' &&
        ownJournal !== '' &&
        canonical(ownJournal) !== dId &&
        !deletedIds.has(canonical(ownJournal))
      )
        continue;
      if (state === '送信中') {
        messages.push(DELETE_MSG.ledgerSending(key));
        continue;
      }
      touched.add(row.rowNumber);
      const mine = kept.find((k) => k.keys.includes(key));
      if (mine) {
        relinked++;
        changes.push({
          key,
          rowNumber: row.rowNumber,
          patch: {
            状態: transition(state, '完了', '重複を削除: relinked to a surviving journal'),
            MF仕訳ID: mine.id,
            更新日時: now,
            ...(row.record.完了日時 === '' ? { 完了日時: now } : {}),
            メモ: DELETE_MSG.ledgerRelinked(d.id, mine.id),
          },
        });
        continue;
      }
      excluded++;
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: {
          状態: transition(state, '除外', '重複を削除: its journal deleted'),
          更新日時: now,
          メモ: DELETE_MSG.ledgerExcluded(
            d.id,
            kept.map((k) => k.id),
            who,
            at,
          ),
        },
      });
    }
  }
  return { changes, excluded, relinked, messages };
}
