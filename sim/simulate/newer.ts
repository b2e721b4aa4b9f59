/**
 * People on the newer sheets (issue 25), as a new user handles them: one unhides and deletes the hidden
 * sheet アーカイブ索引; one edits the 重複点検 sheet after an audit — pastes a copy of a row to keep, moves a
 * row into another group, chooses 削除 on rows — and runs 重複を削除; in MF, someone types a journal kicho
 * posted once more by hand (so the audit has a group), or deletes, after an audit, the journal the sheet
 * keeps; one types odd 通帳残高 values on 残高照合 (「約120万円」, 「1234.5」, 「(1,000)」, `=1+1`), renames its
 * header and runs 残高照合 again. The clicks 重複点検 / 重複を削除 / 残高照合 come with them.
 *
 * Derived from the scenario's seeds with its own generator (like sender.ts and archiver.ts), so the
 * fast-check scenario and every seed's draw stay as they were; these acts do not shrink with it. Each kind
 * is switched on by name (`--newer-acts index,duplicates,balances`): the defects they find on main are
 * issue 25's items, fixed on their own branches.
 */
import { ARCHIVE_INDEX_SHEET } from '../../src/core/archive';
import { canonicalId } from '../../src/mf/ids';
import type { World } from '../gas/world';
import type { FakeMf } from '../mf/fake-mf';
import { mulberry32 } from '../mf/random';
import type { Journal } from '../mf/types';
import type { Marks } from './people';
import type { Scenario } from './scenario';

export const NEWER_KINDS = ['index', 'duplicates', 'balances'] as const;
export type NewerKind = (typeof NEWER_KINDS)[number];

/**
 * The kinds every run has unless told otherwise (the CLI, the CI seeds): all of them. On CI seeds 1–200
 * they found five defects of issue 25's newer features (seeds 45, 161, 199, 19 and the archived-row limit
 * of the journal check, see README), all fixed; test/sim-simulate/newer-acts.test.ts keeps those seeds.
 */
export const DEFAULT_NEWER_ACTS: readonly NewerKind[] = [...NEWER_KINDS];

/** What a person does on the newer sheets, or in MF's screen. */
export type NewerAct =
  /** Unhides the hidden sheet アーカイブ索引 and deletes it. */
  | { k: 'delete-index' }
  /** In MF's screen, types a journal kicho posted once more (the same money, a hand-made journal). */
  | { k: 'mf-copy'; pick: number; dayLater: boolean }
  /** In MF's screen, deletes a journal 重複点検 proposes to keep (after the audit). */
  | { k: 'mf-delete-kept'; pick: number }
  /** On 重複点検: pastes a copy of a row the audit proposes to keep, below the table. */
  | { k: 'dup-paste'; pick: number }
  /** On 重複点検: moves a row into another group (types another グループ). */
  | { k: 'dup-move'; pick: number; to: number }
  /** On 重複点検: chooses 削除 on a row, or on every row of its group. */
  | { k: 'dup-delete'; pick: number; whole: boolean }
  /** On 残高照合: types a 通帳残高 a person might type. */
  | { k: 'balance-type'; pick: number; value: number }
  /** On 残高照合: renames the 通帳残高 header. */
  | { k: 'balance-rename' };

/** What people typed as 通帳残高 (as they would type it). */
export const ODD_BALANCES = ['約120万円', '1234.5', '(1,000)', '=1+1', '1,234,567', '１２００００'] as const;
/** The name a person gives the 通帳残高 header. */
export const RENAMED_BALANCE_HEADER = '通帳の残高';

export type NewerClick = 'auditDuplicates' | 'deleteDuplicates' | 'checkBalances';

export interface NewerPlan {
  acts: { at: number; act: NewerAct }[];
  clicks: { at: number; name: NewerClick; user: 0 | 1; kill?: number }[];
}

/** The acts and clicks of a scenario's slots, for the kinds switched on. */
export function newerPlan(
  s: Scenario,
  slotStarts: readonly number[],
  kinds: ReadonlySet<NewerKind>,
): NewerPlan {
  const plan: NewerPlan = { acts: [], clicks: [] };
  if (kinds.size === 0) return plan;
  // One generator per kind: switching one kind on or off leaves the others' draws as they were.
  const gen = (salt: number) => mulberry32((s.data.seed * 0x2c1b3c6d) ^ s.schedule.seed ^ salt);
  const at = (next: () => number, base: number) => base + Math.floor(next() * 600) * 1000;
  const user = (next: () => number): 0 | 1 => (next() < 0.7 ? 0 : 1);
  const nat = (next: () => number) => Math.floor(next() * 1000);
  if (kinds.has('index')) {
    const next = gen(0x25a);
    // Once in a world at most, in about one world in two: a sheet deleted is noticed and not done again.
    const slot = next() < 0.5 ? Math.floor(next() * slotStarts.length) : -1;
    if (slot >= 0) plan.acts.push({ at: at(next, slotStarts[slot]), act: { k: 'delete-index' } });
  }
  if (kinds.has('duplicates')) {
    const next = gen(0x25b);
    slotStarts.forEach((base, i) => {
      const copy = (t: number): void => {
        plan.acts.push({ at: t, act: { k: 'mf-copy', pick: nat(next), dayLater: next() < 0.3 } });
      };
      // MF: the same money typed in by hand (so there are groups), once kicho has posted something.
      if (i > 0 && next() < 0.3) copy(at(next, base));
      if (next() >= 0.45) return;
      // 重複点検 (mostly after a copy typed in MF), then (a minute or more later) the sheet edited, then
      // 重複を削除: the dialog and its button.
      const audit = base + (200 + Math.floor(next() * 300)) * 1000;
      if (next() < 0.7) copy(audit - (30 + Math.floor(next() * 150)) * 1000);
      plan.clicks.push({ at: audit, name: 'auditDuplicates', user: user(next) });
      const later = (from: number, span: number) => audit + (from + Math.floor(next() * span)) * 1000;
      if (next() < 0.15)
        plan.acts.push({ at: later(60, 200), act: { k: 'mf-delete-kept', pick: nat(next) } });
      const edits = 1 + Math.floor(next() * 3);
      for (let e = 0; e < edits; e++) {
        const r = next();
        const act: NewerAct =
          r < 0.3
            ? { k: 'dup-paste', pick: nat(next) }
            : r < 0.5
              ? { k: 'dup-move', pick: nat(next), to: nat(next) }
              : { k: 'dup-delete', pick: nat(next), whole: next() < 0.5 };
        plan.acts.push({ at: later(60, 240), act });
      }
      if (next() < 0.8) {
        const kill = next() < 0.15 ? 1 + Math.floor(next() * 60) : undefined;
        plan.clicks.push({
          at: later(310, 200),
          name: 'deleteDuplicates',
          user: user(next),
          ...(kill ? { kill } : {}),
        });
      }
    });
  }
  if (kinds.has('balances')) {
    const next = gen(0x25c);
    slotStarts.forEach((base) => {
      if (next() >= 0.4) return;
      // 残高照合, the person types (and sometimes renames the header), then 残高照合 again.
      const check = base + Math.floor(next() * 300) * 1000;
      const later = (from: number, span: number) => check + (from + Math.floor(next() * span)) * 1000;
      plan.clicks.push({ at: check, name: 'checkBalances', user: user(next) });
      const typed = 1 + Math.floor(next() * 2);
      for (let t = 0; t < typed; t++)
        plan.acts.push({
          at: later(60, 180),
          act: { k: 'balance-type', pick: nat(next), value: Math.floor(next() * ODD_BALANCES.length) },
        });
      if (next() < 0.12) plan.acts.push({ at: later(250, 40), act: { k: 'balance-rename' } });
      if (next() < 0.6) plan.clicks.push({ at: later(310, 200), name: 'checkBalances', user: user(next) });
    });
  }
  return plan;
}

/** What the newer acts did, for the invariants. */
export interface NewerMarks {
  /** Journals people deleted in MF's screen (kicho did not), and when. */
  mfDeleted: Map<string, number>;
  /** Statement lines of those journals (canonical ids): MF lists them 対象外 from then on (no import brings them back). */
  mfExcludedLines: Set<string>;
  /**
   * Statement lines whose journal kicho deleted on a person's confirmation (重複を削除): MF lists them 対象外
   * from then on too (DELETE /journals, [O S3]); their row became 除外. Once people delete that row, no
   * import brings the line back — the person's deletion of a decided row, not a loss of kicho's.
   */
  kichoExcludedLines: Set<string>;
  /** The statement line of each journal seen in MF (a deleted journal's line is known only from before). */
  lineOfJournal: Map<string, string>;
  /** Groups people made in MF: a journal kicho posted and its copy typed by hand. */
  planted: { ids: string[] }[];
  /** 通帳残高 people typed, by 口座 and 月末: the value the cell took. */
  balances: Map<string, { 口座: string; 月末: string; value: unknown }>;
  /** Keys of 除外 rows seen in 台帳アーカイブ (their decision must stand and never be posted). */
  archivedExcluded: Set<string>;
  /** Journals kicho deleted (its DELETE answered), for the invariants' messages (run.ts: MfView's). */
  kichoDeleted?: ReadonlyMap<string, number>;
  /** When each journal of a planted group was first missed from MF, and who deleted it. */
  gone: Map<string, { at: number; by: 'person' | 'kicho' }>;
}

export function newNewerMarks(): NewerMarks {
  return {
    mfDeleted: new Map(),
    mfExcludedLines: new Set(),
    kichoExcludedLines: new Set(),
    lineOfJournal: new Map(),
    planted: [],
    balances: new Map(),
    archivedExcluded: new Set(),
    gone: new Map(),
  };
}

type Sheet = World['spreadsheet']['sheets'][number];

function sheetOf(world: World, name: string): Sheet | undefined {
  return world.spreadsheet.sheets.find((s) => s.name === name);
}

function headerCols(s: Sheet): Map<string, number> {
  const cols = new Map<string, number>();
  for (let c = 1; c <= s.lastColumn(); c++) {
    const h = String(s.value(1, c));
    if (h !== '' && !cols.has(h)) cols.set(h, c);
  }
  return cols;
}

/** Data rows of a sheet that have something in `header`. */
function filledRows(s: Sheet, col: number | undefined): number[] {
  const out: number[] = [];
  if (col === undefined) return out;
  for (let r = 2; r <= s.lastRow(); r++) if (String(s.value(r, col)) !== '') out.push(r);
  return out;
}

/** A cell typed as a person types it: Sheets parses it (numbers, formulas) as the UI would. */
function typeCell(world: World, s: Sheet, r: number, c: number, text: string): unknown {
  const stored = world.spreadsheet.coerce(text, s, r, c);
  s.setValue(r, c, stored.value);
  s.updateMeta(r, c, { formula: stored.formula });
  return stored.value;
}

/** One side of a hand-typed copy, by names as a person picks them in MF's screen. */
function sideOf(b: Journal['branches'][number]['debitor']) {
  return {
    account: b.account_name,
    sub: b.sub_account_name,
    value: b.value + b.tax_value,
    tax: b.tax_long_name,
  };
}

function addDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** Journals kicho made (its tag or its statement line), the ones a person would type again. */
function kichoJournals(mf: FakeMf): Journal[] {
  return mf.journals().filter((j) => j.transaction_id !== null || j.tags.some((t) => t.startsWith('kc-')));
}

/** Applies one act; returns a short description, or null when nothing fits it. */
export function newerAct(
  world: World,
  mf: FakeMf,
  a: NewerAct,
  track: NewerMarks,
  marks: Marks,
): string | null {
  switch (a.k) {
    case 'delete-index': {
      const s = sheetOf(world, ARCHIVE_INDEX_SHEET);
      if (!s) return null;
      world.spreadsheet.sheets = world.spreadsheet.sheets.filter((x) => x !== s);
      // The runs say what to do (初期設定); the person does it before the quiet period (run.ts repair).
      marks.damaged = true;
      return `${ARCHIVE_INDEX_SHEET} unhidden and deleted`;
    }
    case 'mf-copy': {
      const mine = kichoJournals(mf).filter((j) => j.branches.length === 1);
      if (mine.length === 0) return null;
      const j = mine[a.pick % mine.length];
      const [b] = j.branches;
      const date = a.dayLater ? addDay(j.transaction_date) : j.transaction_date;
      let copy: Journal;
      try {
        copy = mf.addJournal({
          date,
          debit: sideOf(b.debitor),
          credit: sideOf(b.creditor),
          remark: b.remark,
          enteredBy: 'JOURNAL_TYPE_NORMAL',
        });
      } catch (_e) {
        return null; // outside every accounting period, or a master MF no longer has
      }
      track.planted.push({ ids: [j.id, copy.id] });
      return `MF: ${j.id} typed again by hand as ${copy.id}`;
    }
    case 'mf-delete-kept': {
      const s = sheetOf(world, '重複点検');
      if (!s) return null;
      const cols = headerCols(s);
      const id = cols.get('仕訳ID');
      const proposal = cols.get('提案');
      if (id === undefined || proposal === undefined) return null;
      const kept = filledRows(s, id)
        .filter((r) => String(s.value(r, proposal)).startsWith('残す'))
        .map((r) => String(s.value(r, id)))
        .filter((j) => mf.journals().some((x) => x.id === j));
      if (kept.length === 0) return null;
      const target = kept[a.pick % kept.length];
      const line = mf.journals().find((x) => x.id === target)?.transaction_id;
      if (!mf.deleteJournalByHand(target)) return null;
      if (line) track.mfExcludedLines.add(canonicalId(line));
      track.mfDeleted.set(target, world.clock.now());
      return `MF: kept journal ${target} deleted in MF's screen`;
    }
    case 'dup-paste': {
      const s = sheetOf(world, '重複点検');
      if (!s) return null;
      const cols = headerCols(s);
      const rows = filledRows(s, cols.get('仕訳ID'));
      const proposal = cols.get('提案');
      const keep = rows.filter(
        (r) => proposal !== undefined && String(s.value(r, proposal)).startsWith('残す'),
      );
      const from = (keep.length > 0 ? keep : rows)[
        a.pick % Math.max(1, (keep.length > 0 ? keep : rows).length)
      ];
      if (from === undefined) return null;
      const to = s.lastRow() + 1;
      if (to > s.maxRows) s.maxRows = to;
      for (let c = 1; c <= s.lastColumn(); c++) s.setValue(to, c, s.value(from, c) as never);
      const op = cols.get('操作');
      if (op !== undefined) s.setValue(to, op, '残す');
      return `重複点検: row ${from} pasted as row ${to} (残す)`;
    }
    case 'dup-move': {
      const s = sheetOf(world, '重複点検');
      if (!s) return null;
      const cols = headerCols(s);
      const group = cols.get('グループ');
      const rows = filledRows(s, cols.get('仕訳ID'));
      if (group === undefined || rows.length === 0) return null;
      const r = rows[a.pick % rows.length];
      const others = [...new Set(rows.map((x) => String(s.value(x, group))))].filter(
        (g) => g !== String(s.value(r, group)),
      );
      if (others.length === 0) return null;
      const to = others[a.to % others.length];
      s.setValue(r, group, to);
      return `重複点検: row ${r} moved to group ${to}`;
    }
    case 'dup-delete': {
      const s = sheetOf(world, '重複点検');
      if (!s) return null;
      const cols = headerCols(s);
      const group = cols.get('グループ');
      const op = cols.get('操作');
      const rows = filledRows(s, cols.get('仕訳ID'));
      if (group === undefined || op === undefined || rows.length === 0) return null;
      const r = rows[a.pick % rows.length];
      const chosen = a.whole ? rows.filter((x) => s.value(x, group) === s.value(r, group)) : [r];
      for (const x of chosen) s.setValue(x, op, '削除');
      return `重複点検: 削除 on row${chosen.length > 1 ? 's' : ''} ${chosen.join(',')}`;
    }
    case 'balance-type': {
      const s = sheetOf(world, '残高照合');
      if (!s) return null;
      const cols = headerCols(s);
      const col = cols.get('通帳残高') ?? cols.get(RENAMED_BALANCE_HEADER);
      const account = cols.get('口座');
      const month = cols.get('月末');
      const rows = filledRows(s, account);
      if (col === undefined || month === undefined || account === undefined || rows.length === 0) return null;
      const r = rows[a.pick % rows.length];
      const text = ODD_BALANCES[a.value % ODD_BALANCES.length];
      const value = typeCell(world, s, r, col, text);
      const where = { 口座: String(s.value(r, account)), 月末: String(s.value(r, month)) };
      track.balances.set(`${where.口座}|${where.月末}`, { ...where, value });
      return `残高照合: 通帳残高 「${text}」 on ${where.口座} ${where.月末}`;
    }
    case 'balance-rename': {
      const s = sheetOf(world, '残高照合');
      const c = s ? headerCols(s).get('通帳残高') : undefined;
      if (!s || c === undefined) return null;
      s.setValue(1, c, RENAMED_BALANCE_HEADER);
      // The runs say what to do (初期設定 puts headers back); the person does it before the quiet period.
      marks.damaged = true;
      return `残高照合: header 通帳残高 renamed 「${RENAMED_BALANCE_HEADER}」`;
    }
  }
}

/** The token the 重複を削除 dialog shows (as openDuplicateDeletion puts it in the page), or null. */
export function dialogToken(html: string | undefined): string | null {
  const m = /const PLAN = (\{.*\});/.exec(html ?? '');
  if (!m) return null;
  try {
    const plan = JSON.parse(m[1]) as { token?: string };
    return typeof plan.token === 'string' ? plan.token : null;
  } catch (_e) {
    return null;
  }
}

/**
 * Brings the marks up to date before a check: 除外 rows now in 台帳アーカイブ, and who deleted each journal of
 * a planted group that MF no longer has (people in MF's screen, else kicho: by its DELETE, else found gone).
 */
export function noteNewer(
  track: NewerMarks,
  archived: readonly Record<string, unknown>[],
  journals: readonly { id: string; transaction_id?: string | null }[],
  kichoDeleted: ReadonlyMap<string, number>,
  now: number,
): void {
  track.kichoDeleted = kichoDeleted;
  for (const j of journals)
    if (j.transaction_id) track.lineOfJournal.set(j.id, canonicalId(j.transaction_id));
  for (const id of kichoDeleted.keys()) {
    const line = track.lineOfJournal.get(id);
    if (line) track.kichoExcludedLines.add(line);
  }
  for (const r of archived) if (r.状態 === '除外') track.archivedExcluded.add(String(r.キー));
  const live = new Set(journals.map((j) => j.id));
  for (const g of track.planted) {
    for (const id of g.ids) {
      if (live.has(id) || track.gone.has(id)) continue;
      const person = track.mfDeleted.get(id);
      track.gone.set(
        id,
        person !== undefined
          ? { at: person, by: 'person' }
          : { at: kichoDeleted.get(id) ?? now, by: 'kicho' },
      );
    }
  }
}
