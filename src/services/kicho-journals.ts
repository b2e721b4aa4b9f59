/**
 * The journals in a window kicho counts as its own: restore's one query and the lost-ledger guard's
 * (post-approved.ts, dry-run.ts), asked through the MF lookup (mf/lookup.ts).
 */
import type { KichoJournalsInMf } from '../core/lost-ledger';
import { isKichoJournal, type MfBehaviour } from '../core/mf-behaviour';
import { readMfBehaviour } from '../gas/run-state';
import type { MfLookup } from '../mf/lookup';
import type { MfJournal } from '../mf/types';

/**
 * Where journalize keeps no tags (本番前チェック saw it), every statement-line journal counts: the line
 * is journalized in MF, so it must never be posted again, whoever made it.
 */
export function kichoJournalsBetween(
  lookup: MfLookup,
  start: string,
  end: string,
): { all: MfJournal[]; kicho: MfJournal[]; behaviour: MfBehaviour | null } {
  const all = lookup.journalsBetween(start, end);
  const behaviour = readMfBehaviour();
  return { all, kicho: all.filter((j) => isKichoJournal(j, behaviour)), behaviour };
}

/** How many of them, for the lost-ledger guard. */
export function kichoJournalsIn(lookup: MfLookup, start: string, end: string): KichoJournalsInMf {
  const { kicho, behaviour } = kichoJournalsBetween(lookup, start, end);
  return { count: kicho.length, behaviour };
}
