/**
 * What MF says before 重複を削除 claims anything (deletion.ts): one listing per window of the groups'
 * dates — never a call per row — then, by id, only what a delete's "already gone" must hear from MF
 * itself; which journals still keep each group, as the audit saw them; and the two refusals that depend
 * on the 台帳 (a line left with no journal, a journal kicho posted that no row holds).
 */
import type { LedgerTable } from '../ledger';
import { DELETE_MSG } from './deletion-messages';
import type { DateWindow, DeleterPort } from './deletion-ports';
import { PROPOSAL } from './detect';
import { type AuditJournal, canonical, journalFacts, LedgerLinks } from './facts';
import type { RecordedMember } from './record';
import type { PlannedGroup } from './sheet';

/**
 * Groups' date ranges this close are listed as one window: a listing costs a call a page whatever its
 * span, so nearby groups share one instead of one call each.
 */
const WINDOW_GAP_DAYS = 7;

/** The journal still looks as the audit recorded it (a person may have edited it in MF since). */
export function unchangedJournal(j: AuditJournal, m: RecordedMember): boolean {
  const [facts] = journalFacts([j], new LedgerLinks([]));
  return (
    facts.date === m.date &&
    facts.amount === m.amount &&
    facts.debitLabel === m.debit &&
    facts.creditLabel === m.credit
  );
}

/**
 * 台帳 keys a journal belongs to: `all` — the audit's, plus its tag's and line's rows, plus MF仕訳ID;
 * `now` — only the rows the 台帳 holds now, and whether kicho's tag is on the journal.
 */
export function keysOf(
  j: AuditJournal,
  ledger: LedgerTable,
  recorded: readonly string[],
): { all: string[]; now: string[]; tagged: boolean } {
  const [facts] = journalFacts([j], new LedgerLinks(ledger.rows));
  return {
    all: [...new Set([...recorded, ...facts.ledgerKeys])],
    now: facts.ledgerKeys,
    tagged: facts.kichoTags.length > 0,
  };
}

const DAY_MS = 86_400_000;

function shiftDate(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The windows to list for these journals: each group's dates, merged when they overlap or lie within
 * WINDOW_GAP_DAYS of each other. Calls grow with windows and pages, never with rows.
 */
export function lookupWindows(members: readonly RecordedMember[]): DateWindow[] {
  const byGroup = new Map<string, DateWindow>();
  for (const m of members) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(m.date)) continue;
    const w = byGroup.get(m.group);
    if (!w) byGroup.set(m.group, { start: m.date, end: m.date });
    else {
      if (m.date < w.start) w.start = m.date;
      if (m.date > w.end) w.end = m.date;
    }
  }
  const sorted = [...byGroup.values()].sort((a, b) => a.start.localeCompare(b.start));
  const out: DateWindow[] = [];
  for (const w of sorted) {
    const last = out.length > 0 ? out[out.length - 1] : undefined;
    if (last && w.start <= shiftDate(last.end, WINDOW_GAP_DAYS)) {
      if (w.end > last.end) last.end = w.end;
    } else out.push({ ...w });
  }
  return out;
}

/** What MF holds of some recorded journals: listed, or looked up by id when the listing missed them. */
export interface MfView {
  listed: Map<string, AuditJournal>;
  /** Looked up by id after the listing missed them: null = MF has no such journal. */
  byId: Map<string, AuditJournal | null>;
}

export function current(view: MfView, cid: string): AuditJournal | null | undefined {
  return view.listed.get(cid) ?? view.byId.get(cid);
}

/**
 * One listing for the groups' windows; then, by id, only the journals in `confirm` it did not show (a
 * journal gone, or dated elsewhere now): a delete's "already gone" must be MF's own answer.
 */
export function lookInMf(
  deleter: DeleterPort,
  members: readonly RecordedMember[],
  confirm: readonly RecordedMember[],
): MfView {
  const wanted = new Set(members.map((m) => canonical(m.id)));
  const listed = wanted.size === 0 ? new Map() : deleter.journalsIn(lookupWindows(members), wanted);
  const byId = new Map<string, AuditJournal | null>();
  for (const m of confirm) {
    const cid = canonical(m.id);
    if (listed.has(cid) || byId.has(cid)) continue;
    byId.set(cid, deleter.journal(m.id));
  }
  return { listed, byId };
}

/** The statement line behind a journal now (MF line id, or a CSV line's 台帳 key), or null. */
function statementLineOf(j: AuditJournal, ledger: LedgerTable): string | null {
  return journalFacts([j], new LedgerLinks(ledger.rows))[0].lineId;
}

/**
 * A group the audit took for possibly two real payments (each journal its own line): deleting a journal
 * whose line no kept journal shares leaves that line with no journal at all (simulation seed 978265).
 */
export function leavesLineBare(
  g: PlannedGroup,
  journal: AuditJournal,
  alive: readonly RecordedMember[],
  view: MfView,
  ledger: LedgerTable,
): boolean {
  if (!g.members.some((m) => m.proposal === PROPOSAL.genuine)) return false;
  const line = statementLineOf(journal, ledger);
  if (line === null) return false;
  return !alive.some((s) => {
    const kept = view.listed.get(canonical(s.id));
    return kept !== undefined && statementLineOf(kept, ledger) === line;
  });
}

/**
 * The group's journals that keep it: survivors MF still holds as the audit saw them. None → the reason, in
 * the group's words (each journal to keep and what MF says of it). In a group the audit took for possibly
 * several real payments, every survivor must still be there: the one that is gone may have been the only
 * journal of its own payment, and the journal chosen may be a copy of it (simulation seed 982917,
 * --people-anytime: a person deleted kicho's journal in MF's screen, then chose its hand-typed copy; another
 * line's journal "kept" the group and the payment was left with none).
 */
function keepers(g: PlannedGroup, view: MfView): { alive: RecordedMember[]; refusal: string | null } {
  const alive: RecordedMember[] = [];
  const parts: string[] = [];
  for (const s of g.survivors) {
    const j = view.listed.get(canonical(s.id));
    if (j && unchangedJournal(j, s)) alive.push(s);
    else parts.push(j ? DELETE_MSG.keptChanged(s.id) : DELETE_MSG.keptGone(s.id));
  }
  if (alive.length === 0) return { alive, refusal: DELETE_MSG.keptMissing(g.group, parts) };
  const genuine = g.members.some((m) => m.proposal === PROPOSAL.genuine);
  if (genuine && parts.length > 0) return { alive, refusal: DELETE_MSG.keptChangedSince(g.group, parts) };
  return { alive, refusal: null };
}

/** What the MF check decided before the claim: per group, refused (why) or the journals that keep it. */
export interface GroupVerdicts {
  refused: Map<string, string>;
  alive: Map<string, RecordedMember[]>;
}

export function verdicts(groups: readonly PlannedGroup[], view: MfView): GroupVerdicts {
  const refused = new Map<string, string>();
  const alive = new Map<string, RecordedMember[]>();
  for (const g of groups) {
    const k = keepers(g, view);
    if (k.refusal) refused.set(g.group, k.refusal);
    else alive.set(g.group, k.alive);
  }
  return { refused, alive };
}
