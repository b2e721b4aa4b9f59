/**
 * What 本番前チェック saw MF do in this office (script property KICHO_MF_BEHAVIOUR), for the answers no
 * public source settles (reference/mf-api.md §13, §15): whether a journal keeps the tags kicho sends, how
 * long a new journal takes to show in listings, and whether journal.transaction_id spells the line's id
 * byte for byte. kicho adapts to what was seen: the lost-ledger guard and 台帳を復元 find statement-line
 * journals by transaction id when journalize drops tags, 照合猶予 is raised to cover the lag, and CSV
 * lines are not posted or imported where POST /journals drops tags (they are reconciled by tag).
 */
import { isRemoteTag } from './keys';

export type TagsSeen = 'kept' | 'dropped';

/** How journal.transaction_id compared with the line's id as /transactions lists it. */
export type IdFormSeen = 'identical' | 'case' | 'different';

/** A posting check's journal not yet seen in listings: the next 本番前チェック looks for it again. */
export interface PendingCheck {
  key: string;
  /** 'mf': journalized statement line; 'csv': POST /journals. */
  kind: 'mf' | 'csv';
  journalId: string;
  /** The line's transaction id (MF lines). */
  lineId: string;
  date: string;
  /** When MF answered the create (ISO). */
  postedAt: string;
  /** How long the check waited without seeing it (ms): the lag is at least this. */
  waitedMs: number;
}

export interface MfBehaviour {
  v: 1;
  at: string;
  /** Tags on a journal made by POST /transactions/journalize. */
  journalizeTags?: TagsSeen;
  /** Tags on a journal made by POST /journals (CSV lines). */
  createTags?: TagsSeen;
  /** The longest listing lag seen (ms): from MF's 201 to the journal in GET /journals. */
  lagMs?: number;
  transactionIdForm?: IdFormSeen;
  pending?: PendingCheck;
}

export function parseMfBehaviour(raw: string | null): MfBehaviour | null {
  if (!raw) return null;
  try {
    const b = JSON.parse(raw) as Partial<MfBehaviour>;
    if (b.v !== 1 || typeof b.at !== 'string') return null;
    return b as MfBehaviour;
  } catch (_e) {
    return null;
  }
}

/** The longest a send can follow its claim (the 5-minute send budget, core/budget.ts), in minutes. */
const CLAIM_TO_SEND_MINUTES = 5;
/** 照合猶予's default and its largest allowed value (core/settings.ts). */
export const DEFAULT_GRACE_MINUTES = 15;
export const MAX_GRACE_MINUTES = 1440;

/**
 * The 照合猶予 (minutes) that covers a listing lag: a row is sent again only when MF has not listed its
 * journal within the grace, counted from its claim — so the grace must exceed the lag plus the time a
 * send may follow its claim. One measurement is one sample, so the lag counts twice; rounded up to 5.
 */
export function graceForLag(lagMs: number): number {
  const minutes = CLAIM_TO_SEND_MINUTES + Math.ceil((2 * Math.max(0, lagMs)) / 60_000);
  return Math.max(DEFAULT_GRACE_MINUTES, Math.ceil(minutes / 5) * 5);
}

/**
 * A journal kicho may have made: its tag; where 本番前チェック saw journalize drop tags, any
 * statement-line journal; and before it has looked, a statement-line journal made through the API
 * (entered_by JOURNAL_TYPE_EXTERNAL, "APIで作成された仕訳" in MF's document). Until the check, whether MF
 * keeps tags is unknown, and a 台帳 restored only from tagged journals would lose every line where it does
 * not (the line is journalized in MF, so it is never imported again).
 */
export function isKichoJournal(
  journal: { tags: readonly string[]; transaction_id: string | null; entered_by?: string },
  behaviour: MfBehaviour | null,
): boolean {
  if (journal.tags.some(isRemoteTag)) return true;
  if (!journal.transaction_id) return false;
  const seen = behaviour?.journalizeTags;
  if (seen === 'dropped') return true;
  return seen !== 'kept' && journal.entered_by === 'JOURNAL_TYPE_EXTERNAL';
}

/** How the lost-ledger messages name those journals. */
export function kichoJournalsLabel(behaviour: MfBehaviour | null): string {
  const seen = behaviour?.journalizeTags;
  if (seen === 'dropped') return 'kicho が登録した仕訳か明細から作られた仕訳';
  return seen === 'kept' ? 'kicho が登録した仕訳' : 'kicho が登録した仕訳か API で明細から作られた仕訳';
}

export const MF_BEHAVIOUR_MSG = {
  csvRefused:
    '本番前チェックで、この MF は POST /journals の仕訳にタグを残さないと分かりました。CSV の明細は登録のあとタグで照合するため、二重登録を防げません。CSV の取込と登録は行いません（MF の明細は登録できます）。',
  graceLow: (now: number, need: number, lagMs: number) =>
    `照合猶予（分）が ${now} 分ですが、本番前チェックで MF が新しい仕訳を一覧に出すまでに${describeLag(lagMs)}かかりました。${need} 分以上にしてください（短いと、登録できている行をもう一度送るおそれがあります）。`,
} as const;

/** "約 40 秒" / "約 12 分" for people. */
export function describeLag(ms: number): string {
  if (ms < 90_000) return `約 ${Math.max(1, Math.round(ms / 1000))} 秒`;
  return `約 ${Math.round(ms / 60_000)} 分`;
}

/** What the dry run says about what MF was seen doing (null when nothing needs saying). */
export function mfBehaviourWarnings(behaviour: MfBehaviour | null, graceMinutes: number): string[] {
  if (!behaviour) return [];
  const out: string[] = [];
  if (behaviour.lagMs !== undefined && graceMinutes < graceForLag(behaviour.lagMs)) {
    out.push(MF_BEHAVIOUR_MSG.graceLow(graceMinutes, graceForLag(behaviour.lagMs), behaviour.lagMs));
  }
  if (behaviour.createTags === 'dropped') out.push(MF_BEHAVIOUR_MSG.csvRefused);
  return out;
}
