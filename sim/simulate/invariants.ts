/**
 * DESIGN §9's invariants, checked on the world (the spreadsheet as stored) and the fake MF's books.
 */
import { ARCHIVE_INDEX_SHEET, ARCHIVE_SHEET, parseIndex } from '../../src/core/archive';
import { remoteTagOf } from '../../src/core/keys';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { canonicalId } from '../../src/mf/ids';
import type { World } from '../gas/world';
import { TEST_API_KEY } from '../mf/fake-mf';
import { records } from '../person';
import { type InvoiceJournal, invoiceKindProblems } from './invoice';
import { type NewerMarks, RENAMED_BALANCE_HEADER } from './newer';
import type { Marks, Typed } from './people';

export type ViolationKind =
  | 'duplicate-journal'
  | 'journal-for-excluded'
  | 'lost-line'
  | 'completed-without-journal'
  | 'wrong-journal-id'
  | 'duplicate-row'
  | 'unsettled'
  | 'row-deleted'
  | 'overwrote-person'
  | 'formula'
  | 'text-changed'
  | 'secret'
  | 'archive-unindexed'
  | 'invoice-kind'
  | 'exclusion-lost'
  | 'group-lost'
  | 'balance-erased';

export interface Violation {
  kind: ViolationKind;
  detail: string;
}

export interface Expectations {
  /** MF line ids that were 未仕訳 (none) in the import window: each must be in the 台帳 exactly once. */
  lines: ReadonlySet<string>;
  /** Every key ever seen in the 台帳 (rows are never deleted). */
  keysSeen: ReadonlySet<string>;
  typed: Typed;
  /** Secrets that must not be on any sheet. */
  secrets: readonly string[];
  /** After the drain: every row is 完了 or 除外 or listed on 要確認. */
  settled: boolean;
  /** MF's description of each line (id → content), to check 摘要 reads back exactly. */
  descriptions?: ReadonlyMap<string, string>;
  /** What people did beyond their own columns (rows they deleted, 状態 they typed). */
  marks?: Pick<Marks, 'deleted' | 'typedState'> & Partial<Pick<Marks, 'made'>>;
  /** MF keeps the tags journalize is sent (default true): a 完了 row's journal must then carry its tag. */
  tagsKept?: boolean;
  /** A 原則課税 office (invoice.ts): purchase journals are held to their row's 区分; counts those checked. */
  invoice?: { checked: number };
  /** What people did on the newer sheets and in MF's screen (newer.ts), brought up to date by noteNewer. */
  newer?: NewerMarks;
}

type JournalLike = { id: string; tags: string[]; transaction_id: string | null };

/**
 * Planted groups that share a journal are one money recorded three or more times (a journal typed again
 * twice): deleting two of three copies keeps the money (simulation seed 978344). Merged, in first-seen order.
 */
export function mergedGroups(planted: readonly { ids: readonly string[] }[]): { ids: string[] }[] {
  const out: { ids: string[] }[] = [];
  for (const g of planted) {
    const touching = out.filter((o) => o.ids.some((id) => g.ids.includes(id)));
    const merged = { ids: [...new Set([...touching.flatMap((o) => o.ids), ...g.ids])] };
    for (const o of touching) out.splice(out.indexOf(o), 1);
    out.push(merged);
  }
  return out;
}

/** Which line a journal is for: its statement line (by canonical id), else its kicho tag; null if neither. */
export function journalIdentity(j: JournalLike): string | null {
  if (j.transaction_id) return `mf#${canonicalId(j.transaction_id)}`;
  const tag = j.tags.find((t) => /^kc-[0-9a-f]{16}$/.test(t));
  return tag ? `tag#${tag}` : null;
}

function rowIdentity(r: Record<string, unknown>): string {
  const key = String(r.キー);
  return key.startsWith('mf:') ? `mf#${canonicalId(key.slice(3))}` : `tag#${remoteTagOf(key)}`;
}

/** Journals in MF for rows of the 台帳 (what the summary counts as posted). */
export function journalsForLedger(world: World, journals: readonly JournalLike[]): number {
  const mine = new Set(records(world, '台帳').map(rowIdentity));
  return journals.filter((j) => mine.has(journalIdentity(j) ?? '')).length;
}

/**
 * The 台帳's rows as the invariants read them: by the header row as last seen whole, so that a header a
 * person cleared does not hide rows from the check (nor turn their keys into 'undefined'), and on the
 * sheet a person renamed (the rows are still there).
 */
/** Rows LedgerReader took from 台帳アーカイブ (they stand for 台帳 rows in every invariant). */
const FROM_ARCHIVE = new WeakSet<Record<string, unknown>>();

export class LedgerReader {
  private cols: Map<string, number> | null = null;

  rows(world: World): Record<string, unknown>[] {
    const s =
      world.spreadsheet.sheets.find((x) => x.name === '台帳') ??
      world.spreadsheet.sheets.find((x) => x.name === '台帳のコピー');
    const out: Record<string, unknown>[] = s ? this.ledgerRows(s) : [];
    // Rows moved to 台帳アーカイブ (issue 18) are rows of the 台帳 for every invariant: each line once, in
    // one place or the other. A row in both places (an archive run stopped between copy and removal) is
    // the 台帳's (also when a person changed the 台帳 copy's key: its 明細ID names the line): the product's
    // own rule, and the next archive run drops the copy.
    const onLedger = new Set(out.map((r) => String(r.キー ?? '')));
    const lines = new Set(out.map((r) => String(r.明細ID ?? '')).filter((id) => id !== ''));
    for (const rec of archivedRecords(world))
      if (!onLedger.has(String(rec.キー ?? '')) && !lines.has(String(rec.明細ID ?? ''))) {
        FROM_ARCHIVE.add(rec);
        out.push(rec);
      }
    return out;
  }

  private ledgerRows(s: World['spreadsheet']['sheets'][number]): Record<string, unknown>[] {
    const live = new Map<string, number>();
    for (let c = 1; c <= s.lastColumn(); c++) {
      const h = String(s.value(1, c));
      if (h !== '' && !live.has(h)) live.set(h, c);
    }
    if (LEDGER_HEADERS.every((h) => live.has(h))) this.cols = live;
    // Before any whole header was seen: 初期設定's layout (people in the simulation never move columns).
    const cols = this.cols ?? new Map(LEDGER_HEADERS.map((h, i) => [h, i + 1]));
    const out: Record<string, unknown>[] = [];
    for (let r = 2; r <= s.lastRow(); r++) {
      const rec: Record<string, unknown> = {};
      for (const [h, c] of cols) rec[h] = s.value(r, c);
      out.push(rec);
    }
    return out;
  }
}

/** 台帳アーカイブ's rows by its own header row. */
export function archivedRecords(world: World): Record<string, unknown>[] {
  const s = world.spreadsheet.sheets.find((x) => x.name === ARCHIVE_SHEET);
  if (!s) return [];
  const cols = new Map<string, number>();
  for (let c = 1; c <= s.lastColumn(); c++) {
    const h = String(s.value(1, c));
    if (h !== '' && !cols.has(h)) cols.set(h, c);
  }
  const out: Record<string, unknown>[] = [];
  for (let r = 2; r <= s.lastRow(); r++) {
    const rec: Record<string, unknown> = {};
    for (const [h, c] of cols) rec[h] = s.value(r, c);
    if (String(rec.キー ?? '') !== '') out.push(rec);
  }
  return out;
}

/** The tags in アーカイブ索引 (the hidden key index). */
function indexedTags(world: World): Set<string> {
  const s = world.spreadsheet.sheets.find((x) => x.name === ARCHIVE_INDEX_SHEET);
  if (!s) return new Set();
  const cells: unknown[][] = [];
  for (let r = 1; r <= s.lastRow(); r++) cells.push([s.value(r, 1)]);
  return new Set(parseIndex(cells).index.entries.keys());
}

/** Keys on the 台帳 now (for row-deletion tracking). */
export function ledgerKeys(world: World, reader: LedgerReader = new LedgerReader()): string[] {
  return reader
    .rows(world)
    .map((r) => String(r.キー ?? ''))
    .filter((k) => k !== '');
}

export function checkInvariants(
  world: World,
  journals: readonly { id: string; tags: string[]; transaction_id: string | null; branches?: unknown }[],
  e: Expectations,
  reader: LedgerReader = new LedgerReader(),
): Violation[] {
  const out: Violation[] = [];
  const rows = reader.rows(world).filter((r) => String(r.キー ?? '') !== '' || String(r.明細ID ?? '') !== '');

  // 1. Never two MF journals for one key; never a journal for an 除外 row. A statement line's journals are
  // found by transaction_id (journalize may keep no tags: mfWorldOf), a CSV line's by its tag.
  const byIdentity = new Map<string, string[]>();
  for (const j of journals) {
    const id = journalIdentity(j);
    if (id) byIdentity.set(id, [...(byIdentity.get(id) ?? []), j.id]);
  }
  const keyOf = new Map(rows.map((r) => [rowIdentity(r), String(r.キー)]));
  for (const [identity, ids] of byIdentity) {
    if (ids.length > 1) {
      out.push({
        kind: 'duplicate-journal',
        detail: `${ids.length} journals for ${keyOf.get(identity) ?? identity}: ${ids.join(', ')}`,
      });
    }
  }
  for (const r of rows) {
    if (r.状態 !== '除外') continue;
    const ids = byIdentity.get(rowIdentity(r));
    if (ids)
      out.push({ kind: 'journal-for-excluded', detail: `${r.キー} is 除外 but MF has ${ids.join(', ')}` });
  }

  // 2. No statement line lost: every line of the window in the 台帳 exactly once; settled after the drain.
  const count = new Map<string, number>();
  for (const r of rows) count.set(String(r.キー), (count.get(String(r.キー)) ?? 0) + 1);
  // A row whose キー a person broke is still its line's row: its 明細ID names the line (it is listed
  // on 要確認 and never sent), so the line is neither lost nor to be added again.
  const rowsById = new Map<string, number>();
  for (const r of rows) {
    const id = String(r.明細ID);
    if (id !== '') rowsById.set(id, (rowsById.get(id) ?? 0) + 1);
  }
  for (const id of e.lines) {
    const n = count.get(`mf:${id}`) ?? 0;
    // A line whose journal people deleted in MF's screen, or kicho deleted on their confirmation (its row
    // then 除外), is 対象外 in MF from then on: once people also deleted its row, no import lists it again
    // (MF's state and the person's deletion, not a loss of kicho's — simulation seed 978120).
    const excludedInMf =
      e.newer?.mfExcludedLines.has(canonicalId(id)) || e.newer?.kichoExcludedLines.has(canonicalId(id));
    if (excludedInMf && e.marks?.deleted.has(`mf:${id}`)) continue;
    if (n === 0 && !rowsById.has(id))
      out.push({ kind: 'lost-line', detail: `line ${id} is not in the 台帳` });
  }
  // A key people typed on several rows is theirs (DESIGN §2: an evt: id cannot be checked against its row,
  // so a slip that keeps the form is a key): the duplicate-key guard stops every copy (§5), never sent.
  for (const [key, n] of count)
    if (key !== '' && n > 1 && n > (e.marks?.made?.get(key) ?? 0))
      out.push({ kind: 'duplicate-row', detail: `${key} is on ${n} rows` });
  for (const [id, n] of rowsById)
    if (n > 1 && (count.get(`mf:${id}`) ?? 0) < n)
      out.push({ kind: 'duplicate-row', detail: `line ${id} is on ${n} rows (明細ID)` });
  const review = new Set(records(world, '要確認').map((r) => String(r.キー)));
  if (e.settled) {
    for (const r of rows) {
      const state = String(r.状態);
      if (state === '完了' || state === '除外' || review.has(String(r.キー))) continue;
      out.push({ kind: 'unsettled', detail: `${r.キー} ended ${state} and is not on 要確認 (${r.メモ})` });
    }
  }

  // 2 (cont.). A 完了 row stands for a journal in MF (every journal of these lines is kicho's), carrying its
  // tag where MF keeps tags, and MF仕訳ID, when set, is that journal. A row marked 完了 without one is a
  // line lost for the books.
  const byId = new Map(journals.map((j) => [j.id, j]));
  for (const r of rows) {
    if (r.状態 !== '完了') continue;
    // Its journal deleted in MF's screen (newer.ts): kicho cannot know until it looks (issue 25: the daily
    // check); after the drain the row must be listed on 要確認 with the reason.
    if (e.newer?.mfDeleted.has(String(r.MF仕訳ID)) && (!e.settled || review.has(String(r.キー)))) continue;
    // The daily check reads the 台帳's 完了 rows, not 台帳アーカイブ's (docs/guide/screens.md §6: archived
    // rows are months old where offices archive at all; the simulation archives through today). A journal
    // deleted in MF's screen under an archived row is the product's stated limit, not a violation.
    if (e.newer?.mfDeleted.has(String(r.MF仕訳ID)) && FROM_ARCHIVE.has(r)) continue;
    const identity = rowIdentity(r);
    const tag = remoteTagOf(String(r.キー));
    // A 完了 a person typed (no MF仕訳ID) claims nothing until reconcile has looked it up.
    const typedDone =
      !e.settled && e.marks?.typedState.get(String(r.キー)) === '完了' && String(r.MF仕訳ID) === '';
    // A key a person changed names no journal until reconcile gives the key back (by the 明細ID).
    const brokenKey = !e.settled && String(r.明細ID) !== '' && String(r.キー) !== `mf:${String(r.明細ID)}`;
    if (brokenKey) continue;
    // A key without a 明細ID (an event's, a CSV line's) that a person changed cannot be given back: its
    // row is the person's from then on (people.ts marks both keys). Known gap, README 他の自動化からのイベント.
    if (String(r.明細ID) === '' && e.marks?.deleted.has(String(r.キー))) continue;
    const mine = byIdentity.get(identity) ?? [];
    // Who deleted the journal it names, when the newer acts ran (issue 25's items 2 and 3 read apart).
    const by = e.newer?.mfDeleted.has(String(r.MF仕訳ID))
      ? ` (its journal ${r.MF仕訳ID} was deleted in MF's screen, and the row is not on 要確認)`
      : e.newer?.kichoDeleted?.has(String(r.MF仕訳ID))
        ? ` (kicho deleted its journal ${r.MF仕訳ID})`
        : '';
    if (mine.length === 0) {
      if (typedDone) continue;
      out.push({
        kind: 'completed-without-journal',
        detail: `${r.キー} is 完了 but MF has no journal for it${by}`,
      });
    } else if (e.tagsKept !== false && !mine.some((id) => byId.get(id)?.tags.includes(tag))) {
      out.push({
        kind: 'completed-without-journal',
        detail: `${r.キー} is 完了 but no journal carries its tag`,
      });
    }
    const id = String(r.MF仕訳ID);
    if (id !== '' && !mine.includes(id)) {
      const other = byId.get(id);
      const of = other ? keyOf.get(journalIdentity(other) ?? '') : undefined;
      out.push({
        kind: 'wrong-journal-id',
        detail: `${r.キー} has MF仕訳ID ${id}, ${other ? `a journal of ${of ?? 'another line'}` : 'which MF does not have'}`,
      });
    }
  }

  // 2 (cont.). インボイス区分 (issue 27, invoice.ts): in a 原則課税 world each posted purchase carries the kind its
  // row's 区分 and 取引日 require; a 未判定 one is never posted (MF would record 適格).
  if (e.invoice) {
    const found = invoiceKindProblems(rows, (r) => {
      const id = (byIdentity.get(rowIdentity(r)) ?? [])[0];
      return id === undefined ? undefined : (byId.get(id) as InvoiceJournal | undefined);
    });
    e.invoice.checked += found.checked;
    for (const detail of found.problems) out.push({ kind: 'invoice-kind', detail });
  }

  // 3. No row deleted; what people typed is not overwritten (操作 may only be consumed).
  for (const key of e.keysSeen) {
    if (!count.has(key) && !e.marks?.deleted.has(key))
      out.push({ kind: 'row-deleted', detail: `${key} was on the 台帳 and is gone` });
  }
  const byKey = new Map(rows.map((r) => [String(r.キー), r]));
  for (const [key, t] of e.typed) {
    const r = byKey.get(key);
    if (!r) continue;
    for (const h of ['勘定科目', '税区分'] as const) {
      if (t[h] !== undefined && String(r[h]) !== t[h]) {
        out.push({ kind: 'overwrote-person', detail: `${key} ${h}: typed ${t[h]}, now ${r[h]}` });
      }
    }
    // A インボイス a person typed stays (未判定 and empty ask kicho to judge it).
    const invoice = t.インボイス;
    if (invoice !== undefined && invoice !== '' && invoice !== '未判定' && String(r.インボイス) !== invoice)
      out.push({
        kind: 'overwrote-person',
        detail: `${key} インボイス: typed ${invoice}, now ${r.インボイス}`,
      });
    if (t.操作 !== undefined && r.操作 !== '' && r.操作 !== t.操作) {
      out.push({ kind: 'overwrote-person', detail: `${key} 操作: typed ${t.操作}, now ${r.操作}` });
    }
  }

  // 2 (cont.). Every archived row is in the key index, so no import can bring its line back (checked after
  // the drain: a row a person puts into the archive is indexed by the next archive run; the run itself
  // writes the index before it copies, so a kill never leaves an archived row outside it).
  if (e.settled) {
    const tags = indexedTags(world);
    const live = new Set(records(world, '台帳').map((r) => String(r.キー)));
    for (const r of archivedRecords(world)) {
      const key = String(r.キー);
      if (!live.has(key) && !tags.has(remoteTagOf(key).slice(3)))
        out.push({
          kind: 'archive-unindexed',
          detail: `${key} is in 台帳アーカイブ but not in the key index`,
        });
    }
  }

  if (e.newer) out.push(...newerViolations(world, rows, byIdentity, e.newer, e.marks?.deleted));

  // 4. No formula in the 台帳 or its archive.
  for (const name of ['台帳', ARCHIVE_SHEET]) {
    const sheet = world.spreadsheet.sheets.find((s) => s.name === name);
    for (let r = 1; sheet && r <= sheet.lastRow(); r++) {
      for (let c = 1; c <= sheet.lastColumn(); c++) {
        const f = sheet.meta(r, c)?.formula;
        if (f) out.push({ kind: 'formula', detail: `${name} row ${r} column ${c}: ${f}` });
      }
    }
  }

  // 4 (cont.). Keys and outside text read back exactly as written (no apostrophe kept, nothing parsed).
  for (const r of rows) {
    const key = String(r.キー);
    const id = String(r.明細ID);
    if (id === '') continue;
    // A key a person changed is theirs (people.ts marks it); any other difference is the sheet's doing.
    if (key !== `mf:${id}` && !e.marks?.deleted.has(key))
      out.push({ kind: 'text-changed', detail: `キー ${key} does not read as mf:${id}` });
    const content = e.descriptions?.get(id);
    if (content !== undefined && r.摘要 !== content) {
      out.push({
        kind: 'text-changed',
        detail: `${key} 摘要 reads ${JSON.stringify(r.摘要)}, MF has ${JSON.stringify(content)}`,
      });
    }
  }

  // 5. No secret on any sheet.
  const secrets = [TEST_API_KEY, ...e.secrets].filter((s) => s.length >= 8);
  for (const s of world.spreadsheet.sheets) {
    for (const row of s.rows) {
      for (const v of row?.v ?? []) {
        if (typeof v !== 'string' || v.length < 8) continue;
        const hit = secrets.find((secret) => v.includes(secret));
        if (hit)
          out.push({ kind: 'secret', detail: `${s.name}: ${hit.slice(0, 6)}… in "${v.slice(0, 60)}"` });
      }
    }
  }
  return out;
}

/**
 * Issue 25's invariants over what people did on the newer sheets (newer.ts): an archived 除外 decision
 * stands and is never posted; a group of journals people made in MF never loses its last journal to kicho;
 * a 通帳残高 people typed is never erased.
 */
function newerViolations(
  world: World,
  rows: readonly Record<string, unknown>[],
  byIdentity: ReadonlyMap<string, string[]>,
  newer: NewerMarks,
  deleted: ReadonlySet<string> | undefined,
): Violation[] {
  const out: Violation[] = [];
  for (const key of newer.archivedExcluded) {
    if (deleted?.has(key)) continue;
    const live = rows.filter((r) => String(r.キー) === key);
    const ids = byIdentity.get(rowIdentity({ キー: key }));
    if (ids && !live.some((r) => r.状態 === '除外'))
      out.push({
        kind: 'journal-for-excluded',
        detail: `${key} was 除外 in 台帳アーカイブ but MF has ${ids.join(', ')}`,
      });
    if (live.length === 0)
      out.push({
        kind: 'exclusion-lost',
        detail: `${key} was 除外 in 台帳アーカイブ and is on neither sheet now`,
      });
    for (const r of live)
      if (r.状態 !== '除外')
        out.push({
          kind: 'exclusion-lost',
          detail: `${key} was 除外 in 台帳アーカイブ and is ${String(r.状態) || '（空）'} now`,
        });
  }
  for (const g of mergedGroups(newer.planted)) {
    const gone = g.ids.map((id) => newer.gone.get(id));
    if (gone.some((x) => x === undefined)) continue;
    const last = gone.reduce((a, b) => ((b?.at ?? 0) >= (a?.at ?? 0) ? b : a));
    if (last?.by === 'kicho')
      out.push({
        kind: 'group-lost',
        detail: `every journal of the group ${g.ids.join(' / ')} is gone, the last deleted by kicho (${g.ids
          .map((id) => `${id}: ${newer.gone.get(id)?.by}`)
          .join(', ')})`,
      });
  }
  if (newer.balances.size > 0) {
    const s = world.spreadsheet.sheets.find((x) => x.name === '残高照合');
    const cols = new Map<string, number>();
    for (let c = 1; s && c <= s.lastColumn(); c++) {
      const h = String(s.value(1, c));
      if (!cols.has(h)) cols.set(h, c);
    }
    const where = [cols.get('通帳残高'), cols.get(RENAMED_BALANCE_HEADER)].filter((c) => c !== undefined);
    for (const t of newer.balances.values()) {
      let found: unknown[] = [];
      for (let r = 2; s && r <= s.lastRow(); r++) {
        if (String(s.value(r, cols.get('口座') ?? 0)) !== t.口座) continue;
        if (String(s.value(r, cols.get('月末') ?? 0)) !== t.月末) continue;
        found = where.map((c) => s.value(r, c as number));
      }
      if (!found.some((v) => sameBalance(v, t.value)))
        out.push({
          kind: 'balance-erased',
          detail: `残高照合 ${t.口座} ${t.月末}: 通帳残高 typed ${JSON.stringify(t.value)}, now ${JSON.stringify(found)}`,
        });
    }
  }
  return out;
}

/** A number as a person may type it: full-width digits, commas, a yen sign (NFKC), or null. */
function amountOf(v: unknown): number | null {
  if (typeof v === 'number') return v;
  const text = String(v)
    .normalize('NFKC')
    .replace(/[,¥\s]/g, '');
  if (!/^-?\d+(\.\d+)?$/.test(text)) return null;
  return Number(text);
}

/** The cell still holds what was typed: the same text, or the same amount written as a number. */
function sameBalance(cell: unknown, typed: unknown): boolean {
  if (String(cell) === String(typed)) return true;
  const a = amountOf(cell);
  return a !== null && a === amountOf(typed);
}
