/**
 * The ledger archive (issue 18): old 完了 and 除外 rows move from the 台帳 to the sheet 台帳アーカイブ so
 * the passes that read the whole 台帳 stay short, and every archived key stays findable through a
 * compact index (the hidden sheet アーカイブ索引) instead of a scan of the archive.
 *
 * The index holds, per archived row, the 16 hex digits of its remote tag (DESIGN §2: kc- + 16 hex of
 * SHA-256(key)) and one letter for what the row was — the tag rather than the key because 台帳を復元
 * and CSV re-imports meet journals by tag, and a tag is short (17 characters an entry, 2,800 entries a
 * cell: 200,000 keys are 72 cells, read with one getValues). Cell A1 holds the index's own facts.
 */
import { evtKeySource, isEventChangedMemo, isEvtKey } from './events';
import { fingerprint } from './fingerprint';
import { contentCounts, csvContentForm, keyProblem } from './key-check';
import { isCsvKey, isMfKey, mfKey, tagDigits } from './keys';
import type { LedgerRecord, LedgerRow, LedgerTable, RowChange } from './ledger';
import { LEDGER_HEADERS } from './schema';
import { transition } from './states';

export const ARCHIVE_SHEET = '台帳アーカイブ';
export const ARCHIVE_INDEX_SHEET = 'アーカイブ索引';
/** Extra header on the archive: when the row moved there. */
export const ARCHIVED_AT = 'アーカイブ日時';
export const ARCHIVE_HEADERS: readonly string[] = [...LEDGER_HEADERS, ARCHIVED_AT];
/** What a person types in an archived row's 操作 to bring it back to the 台帳. */
export const BRING_BACK = '戻す';
export const ARCHIVE_SETTING = 'アーカイブまでの月数';

/** Rows moved in one run at most: bounds the lock's hold and one write's size; the rest go next run. */
export const ARCHIVE_ROWS_PER_RUN = 50_000;

/**
 * What an archived row was: m = 完了 with a journal, from an MF line; c = 完了 with a journal, from a
 * CSV line or an event; d = 完了 without MF仕訳ID; x = 除外. The counts feed the lost-ledger guard and
 * the mark of sent rows (done-rows), which must know an archive from a loss.
 */
export type ArchivedKind = 'm' | 'c' | 'd' | 'x';
const KINDS = new Set<string>(['m', 'c', 'd', 'x']);

const TAG_HEX = 16;
const ENTRY = TAG_HEX + 1;
export const ENTRIES_PER_CELL = 2_800;
const CHUNK_PREFIX = 't:';

export interface ArchiveIndex {
  /** Tag hex → kind. */
  entries: Map<string, ArchivedKind>;
  /** Archive data rows the index accounts for: another count means a copy or a person's edit to settle. */
  sheetRows: number;
}

export interface ArchivedCounts {
  rows: number;
  /** Sent rows (完了 with MF仕訳ID), by kind of line, as done-rows counts them. */
  mf: number;
  csv: number;
  /**
   * An archive run wrote its index entries and has not finished: entries may be ahead of the sheet (a
   * kill between the index write and the copy). Lookups then check the sheet (indexBackedByRows).
   */
  pending?: boolean;
}

export function emptyIndex(): ArchiveIndex {
  return { entries: new Map(), sheetRows: 0 };
}

export function kindOf(record: Pick<LedgerRecord, 'キー' | '状態' | 'MF仕訳ID'>): ArchivedKind {
  if (String(record.状態) === '除外') return 'x';
  if (String(record.MF仕訳ID).trim() === '') return 'd';
  const key = String(record.キー);
  return isCsvKey(key) || isEvtKey(key) ? 'c' : 'm';
}

/** The 状態 an archived key's row had (the answer to a resent event). */
export function stateOfKind(kind: ArchivedKind): '完了' | '除外' {
  return kind === 'x' ? '除外' : '完了';
}

/** The index from column A of アーカイブ索引 as read (one getValues); unreadable cells are reported. */
export function parseIndex(cells: readonly (readonly unknown[])[]): {
  index: ArchiveIndex;
  problems: number;
  /** Entries the facts cell says the index holds (null when it does not say): fewer found = cells lost. */
  declared: number | null;
} {
  const index = emptyIndex();
  let problems = 0;
  let declared: number | null = null;
  const meta = String(cells[0]?.[0] ?? '');
  if (meta !== '') {
    try {
      const m = JSON.parse(meta) as { sheetRows?: unknown; rows?: unknown };
      if (typeof m.sheetRows === 'number' && m.sheetRows >= 0) index.sheetRows = m.sheetRows;
      else problems += 1;
      if (typeof m.rows === 'number' && Number.isInteger(m.rows) && m.rows >= 0) declared = m.rows;
    } catch (_e) {
      problems += 1;
    }
  }
  for (let i = 1; i < cells.length; i++) {
    const text = String(cells[i]?.[0] ?? '');
    if (text === '') continue;
    if (!text.startsWith(CHUNK_PREFIX) || (text.length - CHUNK_PREFIX.length) % ENTRY !== 0) {
      problems += 1;
      continue;
    }
    for (let at = CHUNK_PREFIX.length; at < text.length; at += ENTRY) {
      const hex = text.slice(at, at + TAG_HEX);
      const kind = text.charAt(at + TAG_HEX);
      if (!/^[0-9a-f]{16}$/.test(hex) || !KINDS.has(kind)) {
        problems += 1;
        continue;
      }
      index.entries.set(hex, kind as ArchivedKind);
    }
  }
  return { index, problems, declared };
}

/** Column A of アーカイブ索引: the facts cell, then the entries packed ENTRIES_PER_CELL a cell. */
export function formatIndex(index: ArchiveIndex): string[] {
  const cells = [JSON.stringify({ v: 1, sheetRows: index.sheetRows, rows: index.entries.size })];
  let chunk = '';
  let n = 0;
  for (const [hex, kind] of index.entries) {
    chunk += hex + kind;
    n += 1;
    if (n === ENTRIES_PER_CELL) {
      cells.push(CHUNK_PREFIX + chunk);
      chunk = '';
      n = 0;
    }
  }
  if (n > 0) cells.push(CHUNK_PREFIX + chunk);
  return cells;
}

export function countsOf(index: ArchiveIndex): ArchivedCounts {
  const c: ArchivedCounts = { rows: index.entries.size, mf: 0, csv: 0 };
  for (const kind of index.entries.values()) {
    if (kind === 'm') c.mf += 1;
    else if (kind === 'c') c.csv += 1;
  }
  return c;
}

export function parseCounts(raw: string | null): ArchivedCounts {
  try {
    const v = JSON.parse(raw ?? 'null');
    if (v && [v.rows, v.mf, v.csv].every((n) => typeof n === 'number' && n >= 0))
      return { rows: v.rows, mf: v.mf, csv: v.csv, ...(v.pending === true ? { pending: true } : {}) };
  } catch (_e) {
    // An unreadable mirror counts nothing; the next archive run writes it again from the index.
  }
  return { rows: 0, mf: 0, csv: 0 };
}

/**
 * What the index's health is judged from, all cheap: the index as read (one getValues), whether the
 * two sheets exist, and — asked only when the index holds nothing — how many data rows 台帳アーカイブ has
 * (getLastRow) and what the counts mirror says (a healthy index costs no call beyond its own read).
 */
export interface IndexFacts {
  /** アーカイブ索引 exists (it may still be empty). */
  indexSheet: boolean;
  /** Column A of アーカイブ索引 as read ([] when the sheet is missing or empty). */
  cells: readonly (readonly unknown[])[];
  archiveSheet: boolean;
  /** Data rows of 台帳アーカイブ (0 when it is missing). */
  archiveRows: () => number;
  /** Rows KICHO_ARCHIVE says are archived. */
  mirrorRows: () => number;
}

/**
 * Why the index cannot be trusted (issue 25). Every kind but `no-archive` stops whatever looks a key up
 * in it: an archived line would look new, come back on the next import and be classified and posted —
 * an 除外 line a person decided on, or a CSV / event line sent twice.
 *   unreadable: cells kicho cannot read (a person typed in the hidden sheet);
 *   missing:    no index (sheet deleted, renamed or emptied) while 台帳アーカイブ has rows;
 *   short:      the facts cell says more entries than the cells hold (rows of the hidden sheet deleted);
 *   lost:       neither the index nor any archived row, while the mirror says rows were archived;
 *   no-archive: 台帳アーカイブ gone (deleted or renamed) while the index stands — lookups are still
 *               right (the keys are all there), but archiving and bringing back need the sheet.
 * A difference between the index and the sheet's row count is not one of these: a run killed between
 * its index write and its copy leaves one, and the next archive run settles it (§5 step 1).
 */
export type IndexTrouble =
  | { kind: 'unreadable'; cells: number }
  | { kind: 'missing'; sheet: boolean; archiveRows: number }
  | { kind: 'short'; declared: number; found: number }
  | { kind: 'lost'; archived: number; lookalike?: string }
  | { kind: 'no-archive'; entries: number; lookalike?: string };

export function indexTrouble(f: IndexFacts): IndexTrouble | null {
  const { index, problems, declared } = parseIndex(f.cells);
  if (problems > 0) return { kind: 'unreadable', cells: problems };
  const written = f.cells.some((c) => String(c?.[0] ?? '') !== '');
  if (!written) {
    const rows = f.archiveRows();
    if (rows > 0) return { kind: 'missing', sheet: f.indexSheet, archiveRows: rows };
    const archived = f.mirrorRows();
    if (archived > 0) return { kind: 'lost', archived };
    return null;
  }
  if (declared !== null && declared !== index.entries.size)
    return { kind: 'short', declared, found: index.entries.size };
  if (!f.archiveSheet && index.entries.size > 0) return { kind: 'no-archive', entries: index.entries.size };
  return null;
}

/** Whether a lookup (import, CSV, event, restore, posting, 重複点検) must stop: every kind but no-archive. */
export function stopsLookups(t: IndexTrouble | null): t is IndexTrouble {
  return t !== null && t.kind !== 'no-archive';
}

/** The message for a trouble, in the words of the run it stops (its own sentence says what stopped). */
export function troubleMessage(t: IndexTrouble): string {
  const rebuild = `メニュー「記帳 > 接続と設定 > 初期設定」を実行すると、シート「${ARCHIVE_SHEET}」から索引を作り直します（作り直すまで、取り込み・CSVの取り込み・イベントの受け付け・登録・アーカイブを止めます）。`;
  const why =
    '索引が使えないと、アーカイブした明細が新しい明細に見えて取り込み直され、除外にした明細が登録されたり、同じ明細が二重に登録されたりするためです。';
  switch (t.kind) {
    case 'unreadable':
      return `非表示のシート「${ARCHIVE_INDEX_SHEET}」に読めないセルが ${t.cells} 個あります（kicho が管理するシートです。書き換えないでください）。${why}${rebuild}`;
    case 'missing':
      return `非表示のシート「${ARCHIVE_INDEX_SHEET}」${t.sheet ? 'が空になっています' : 'がありません（削除されたか、名前が変えられています）'}。シート「${ARCHIVE_SHEET}」には ${t.archiveRows} 行あります。${why}${rebuild}`;
    case 'short':
      return `非表示のシート「${ARCHIVE_INDEX_SHEET}」の一部が消されています（${t.declared} 件のはずが ${t.found} 件しか読めません）。${why}${rebuild}`;
    case 'lost':
      return `シート「${ARCHIVE_SHEET}」の行（アーカイブした ${t.archived} 行）と非表示のシート「${ARCHIVE_INDEX_SHEET}」が、どちらも見つかりません。${why}取り込み・CSVの取り込み・イベントの受け付け・登録・アーカイブを止めています。${t.lookalike ? `シート「${t.lookalike}」がアーカイブのようです。名前を「${ARCHIVE_SHEET}」に戻してから「初期設定」を実行してください。` : `「ファイル > 変更履歴 > 版の履歴」で2つのシートがある版を開き、シートを戻してから「初期設定」を実行してください。`}戻せないときは、メニュー「記帳 > 接続と設定 > 初期設定」で「${LOSE_ARCHIVE_WORD}」と入力すると、アーカイブなしで続けます（アーカイブした明細は取り込みで戻ります。除外にしていた明細はもう一度除外してください）。`;
    case 'no-archive':
      return `シート「${ARCHIVE_SHEET}」がありません（索引には ${t.entries} 行の明細が残っているため、取り込みでこれらが追加されることはありません）。${t.lookalike ? `シート「${t.lookalike}」がアーカイブのようです。名前を「${ARCHIVE_SHEET}」に戻してください。` : `削除したなら「ファイル > 変更履歴 > 版の履歴」から戻してください。戻さずに続けるなら「初期設定」を実行すると、空の「${ARCHIVE_SHEET}」を作ります。`}それまで、アーカイブと「アーカイブから戻す」は止めます。`;
  }
}

/** What a person types in 初期設定's question to go on after losing both archive sheets. */
export const LOSE_ARCHIVE_WORD = 'アーカイブなしで続ける';

/**
 * The index rebuilt from 台帳アーカイブ's rows (初期設定, issue 25), one entry per key the rows hold: the key
 * as written when it has one of the three forms (archived rows had sound keys when they moved; a person may
 * since have edited a CSV row's 摘要, and the key is still its line's), and for an MF line also mf:<明細ID>
 * (MF's id names the line even when its key was edited). A row that gives neither (its key cleared or
 * mangled, no 明細ID) cannot be indexed: it is named, for a person to put its key back. Where two rows share
 * a key, a kind with a journal (m / c) wins over d, and d over x: the lookups that tell kinds apart must
 * never take a line with a journal for one without.
 */
export function indexFromArchive(
  rows: readonly LedgerRow[],
  sheetRows: number,
): {
  index: ArchiveIndex;
  unindexed: number[];
} {
  const index: ArchiveIndex = { entries: new Map(), sheetRows };
  const unindexed: number[] = [];
  const rank = (k: ArchivedKind) => (k === 'm' || k === 'c' ? 2 : k === 'd' ? 1 : 0);
  const put = (key: string, kind: ArchivedKind) => {
    const hex = tagDigits(key);
    const had = index.entries.get(hex);
    if (had === undefined || rank(kind) > rank(had)) index.entries.set(hex, kind);
  };
  for (const { record, rowNumber } of rows) {
    const key = record.キー.trim();
    const id = record.明細ID.trim();
    const kind = kindOf({ ...record, キー: key });
    let indexed = false;
    if (wellFormedKey(key)) {
      put(key, kind);
      indexed = true;
    }
    if (id !== '' && (key === '' || isMfKey(key) || !indexed)) {
      put(mfKey(id), kind === 'c' ? 'm' : kind);
      indexed = true;
    }
    if (!indexed) unindexed.push(rowNumber);
  }
  return { index, unindexed };
}

/** One of the three key forms (DESIGN §2), whether or not it still fits its row. */
function wellFormedKey(key: string): boolean {
  if (isMfKey(key)) return key.length > 3;
  if (isCsvKey(key)) return /^csv:[0-9a-f]{32}$/.test(key);
  if (isEvtKey(key)) return evtKeySource(key) !== null;
  return false;
}

/** Whether a key is archived (a lookup, no scan). */
export function isArchived(index: ArchiveIndex, key: string): boolean {
  return index.entries.has(tagDigits(key));
}

/**
 * Kinds whose key may leave the index when no archive row backs it: an 除外 row (nothing was posted, so
 * an import bringing the line back is safe) and an MF line's 完了 row (MF lists it as journalized, and
 * 台帳を復元 rebuilds it from its journal). A CSV or event 完了 row keeps its key: a re-import or a resent
 * event must not look new.
 */
const RELEASABLE = new Set<ArchivedKind>(['x', 'm']);

/**
 * After an archive run stopped between its index write and its copy: the releasable entries no archive
 * row backs (`heldTags`: the tags of the keys 台帳アーカイブ holds) — the ones a lookup leaves out and the
 * next archive run takes out of the index.
 */
export function unbackedReleasable(index: ArchiveIndex, heldTags: ReadonlySet<string>): string[] {
  return [...index.entries]
    .filter(([hex, kind]) => RELEASABLE.has(kind) && !heldTags.has(hex))
    .map(([hex]) => hex);
}

/** An archived key's kind, or undefined. */
export function archivedKind(index: ArchiveIndex, key: string): ArchivedKind | undefined {
  return index.entries.get(tagDigits(key));
}

/**
 * For 重複点検: whether an archived row holds a journal with this kicho tag (a sent row's) or of this
 * statement line (its key mf:<id>, sent or completed in MF's own screen).
 */
export function archivedJournal(index: ArchiveIndex): (tag: string, transactionId: string | null) => boolean {
  return (tag, transactionId) => {
    if (transactionId !== null) {
      // The index holds the line's id as /transactions lists it (escapes in upper case, mf-api.md §5); a
      // journal's transaction_id may spell them in lower case (fake switch transactionIdForm). Both are asked,
      // or an archived row's journal would look unreferenced and 重複を削除 would delete it.
      const listed = transactionId.replace(/%[0-9a-f]{2}/gi, (hex) => hex.toUpperCase());
      const kind =
        index.entries.get(tagDigits(mfKey(transactionId))) ?? index.entries.get(tagDigits(mfKey(listed)));
      return kind === 'm' || kind === 'd';
    }
    const kind = index.entries.get(tag.startsWith('kc-') ? tag.slice(3) : tag);
    return kind === 'm' || kind === 'c';
  };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * The first day that is not old enough: `months` calendar months before today (the same day of the
 * month, or the month's last day). 0 months: tomorrow (every 完了・除外 row up to today moves).
 */
export function archiveCutoff(todayText: string, months: number): string {
  const [y, m, d] = todayText.split('-').map(Number);
  if (months === 0) {
    const next = new Date(Date.UTC(y, m - 1, d + 1));
    return `${next.getUTCFullYear()}-${pad(next.getUTCMonth() + 1)}-${pad(next.getUTCDate())}`;
  }
  const total = y * 12 + (m - 1) - months;
  const year = Math.floor(total / 12);
  const month = (total % 12) + 1;
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${year}-${pad(month)}-${pad(Math.min(d, last))}`;
}

/** The JST calendar day of an ISO timestamp, or null. */
function tokyoDay(iso: string): string | null {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  const t = new Date(ms + 9 * 3_600_000);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}`;
}

export const FINAL_STATES: ReadonlySet<string> = new Set(['完了', '除外']);

/**
 * Whether a row may move: 完了 or 除外, nothing pending in 操作, a key that fits the row (a broken one is
 * on 要確認 and stays where people see it), 取引日 before the cutoff and no change since (更新日時 and
 * 完了日時 before it too: a row just brought back, or just completed from an old line, stays), and
 * nothing 要確認 lists for a 完了 row: no MF仕訳ID, or edited after posting (指紋 differs).
 */
export function oldEnough(record: LedgerRecord, cutoff: string): boolean {
  if (!FINAL_STATES.has(record.状態)) return false;
  if (record.操作.trim() !== '') return false;
  // 完了 without MF仕訳ID (a person typed it, or MF's journal was not found yet): reconcile looks it up
  // and it is on 要確認 — archived, a line without a journal would be lost for the books.
  if (record.状態 === '完了' && record.MF仕訳ID.trim() === '') return false;
  // Edited after posting: listed on 要確認 for a person, so it stays where 要確認 links to.
  const print = record.指紋.trim();
  if (record.状態 === '完了' && print !== '' && fingerprint(record) !== print) return false;
  // Its event came again with other content: listed on 要確認 until a person clears the メモ (issue 25).
  if (isEventChangedMemo(record.メモ)) return false;
  const date = record.取引日;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || date >= cutoff) return false;
  for (const h of ['更新日時', '完了日時'] as const) {
    const v = record[h].trim();
    if (v === '') continue;
    const day = tokyoDay(v);
    if (day === null || day >= cutoff) return false;
  }
  return true;
}

export interface ArchivePlan {
  /** Rows to copy and then remove, in sheet order. */
  move: LedgerRow[];
  /** Rows whose key the index already holds: the 台帳 copy wins (the archive copy is dropped first). */
  inBoth: LedgerRow[];
  /** Old enough but left for the next run (ARCHIVE_ROWS_PER_RUN). */
  deferred: number;
  /** Old enough but held for a delete in flight on 重複点検. */
  held: number;
}

/** What one archive run moves. `tags[i]` is the tag hex of table.rows[i] (hashed once by the caller). */
export function planArchive(
  table: LedgerTable,
  tags: readonly string[],
  index: ArchiveIndex,
  cutoff: string,
  limit = ARCHIVE_ROWS_PER_RUN,
  held: { keys: ReadonlySet<string>; journals: ReadonlySet<string> } = {
    keys: new Set(),
    journals: new Set(),
  },
): ArchivePlan {
  const perKey = new Map<string, number>();
  for (const r of table.rows) perKey.set(r.record.キー, (perKey.get(r.record.キー) ?? 0) + 1);
  const counts = contentCounts(table.rows);
  const move: LedgerRow[] = [];
  const inBoth: LedgerRow[] = [];
  let deferred = 0;
  let kept = 0;
  table.rows.forEach((row, i) => {
    // A key the index still holds after the settle is a line imported again beside its archived row
    // (the settle keeps the archived row and lists this one): it never moves onto it.
    if (index.entries.has(tags[i])) {
      inBoth.push(row);
      return;
    }
    const r = row.record;
    // A key on two rows is the duplicate guard's (both stay, listed on 要確認).
    if (perKey.get(r.キー) !== 1 || !oldEnough(r, cutoff)) return;
    if (keyProblem(r, counts.get(csvContentForm(r)) ?? 1) !== null) return;
    // 重複を削除 settles its delete on this row by key after MF answers: the row waits for it.
    if (held.keys.has(String(r.キー).trim()) || held.journals.has(String(r.MF仕訳ID).trim())) {
      kept += 1;
      return;
    }
    if (move.length >= limit) deferred += 1;
    else move.push(row);
  });
  return { move, inBoth, deferred, held: kept };
}

/**
 * Whether a 台帳 row and an archived row with the same key are one row in two places — left by an archive
 * run stopped between its copy and its removal, or a bring-back between its append and its index write —
 * rather than the line imported again as a new row. Both copies keep 初回検知 (when the line was first
 * imported); a re-import has its own. A 完了 row with the archived row's journal is the same row too (台帳を
 * 復元 rebuilds a line's row from its journal with a new 初回検知).
 */
export function sameRow(
  live: Pick<LedgerRecord, '初回検知' | '状態' | 'MF仕訳ID'>,
  archived: Pick<LedgerRecord, '初回検知' | '状態' | 'MF仕訳ID'>,
): boolean {
  if (String(live.初回検知).trim() === String(archived.初回検知).trim()) return true;
  const journal = String(live.MF仕訳ID).trim();
  return (
    journal !== '' &&
    live.状態 === '完了' &&
    archived.状態 === '完了' &&
    journal === String(archived.MF仕訳ID).trim()
  );
}

/**
 * A re-imported row that may leave the 台帳 because its line's archived row holds the decision: never sent
 * (no MF仕訳ID, no send counted, not 送信中 / 不明 / 完了 / 失敗) and nothing pending in 操作. Whatever a
 * person did with it cannot stand: 除外 is final (§4), and a line with a journal is never sent again (§9.1).
 */
export function removableReimport(r: Pick<LedgerRecord, '状態' | 'MF仕訳ID' | '試行回数' | '操作'>): boolean {
  return (
    REIMPORT_REMOVABLE.has(r.状態) &&
    String(r.MF仕訳ID).trim() === '' &&
    (Number(r.試行回数) || 0) === 0 &&
    String(r.操作).trim() === ''
  );
}
const REIMPORT_REMOVABLE = new Set(['未判定', '要確認', '送信待ち', '除外']);

export const ARCHIVED_KEY_MEMO = `この明細はシート「${ARCHIVE_SHEET}」にアーカイブ済みです（完了か除外）。同じ明細がもう一度取り込まれた行のため、送信しません。アーカイブの行が元の記録です。この行は次の「古い行をアーカイブ」で台帳から外します（操作 に「除外」を入れても構いません）。`;

/**
 * The posting guard (DESIGN §9.8): a 送信待ち row whose key the index holds is never claimed; it goes to
 * 要確認 with the reason. Such a row is the line imported again (the index was missing, or a row was put
 * back by hand); its archived row is 完了 or 除外, and either way sending it would be wrong.
 */
export function guardArchivedKeys(
  rows: readonly LedgerRow[],
  now: string,
  archived: ((key: string) => boolean) | undefined,
): RowChange[] {
  if (!archived) return [];
  const changes: RowChange[] = [];
  for (const row of rows) {
    if (row.record.状態 !== '送信待ち' || !archived(row.record.キー)) continue;
    changes.push({
      key: row.record.キー,
      rowNumber: row.rowNumber,
      patch: {
        状態: transition(row.record.状態, '要確認', 'archived-key guard'),
        メモ: ARCHIVED_KEY_MEMO,
        更新日時: now,
      },
    });
  }
  return changes;
}

/** Runs of consecutive row numbers, bottom first: the order rows can be deleted in without renumbering. */
export function deletionBlocks(rowNumbers: readonly number[]): { start: number; count: number }[] {
  const sorted = [...new Set(rowNumbers)].sort((a, b) => b - a);
  const blocks: { start: number; count: number }[] = [];
  for (const n of sorted) {
    const last = blocks[blocks.length - 1];
    if (last && last.start - 1 === n) {
      last.start = n;
      last.count += 1;
    } else blocks.push({ start: n, count: 1 });
  }
  return blocks;
}

/** A cell as compared between a copy and its original (a Date by its instant). */
export function cellForm(v: unknown): string {
  if (Object.prototype.toString.call(v) === '[object Date]') return `d:${(v as Date).getTime()}`;
  if (typeof v === 'number') return `n:${v}`;
  if (typeof v === 'boolean') return `b:${v}`;
  return `s:${String(v ?? '')}`;
}

/** A row's identity for the deletion safety net: every cell, trailing empties dropped. */
export function rowForm(row: readonly unknown[]): string {
  const cells = row.map(cellForm);
  while (cells.length > 0 && cells[cells.length - 1] === 's:') cells.pop();
  return cells.join('\u0000');
}

/** A row's identity for the deletion safety net: its key when it has one, else all its cells. */
export function rowIdentity(row: readonly unknown[], keyCol: number): string {
  const key = String(row[keyCol] ?? '').trim();
  return key !== '' ? `k:${key}` : rowForm(row);
}

/**
 * Rows of `before` that are neither in `after` nor meant to go (multisets by identity): what a sort
 * under a deletion took by mistake, to be put back as they were.
 */
export function lostRows(
  before: readonly (readonly unknown[])[],
  after: readonly (readonly unknown[])[],
  removed: ReadonlySet<number>,
  keyCol: number,
): unknown[][] {
  const left = new Map<string, number>();
  for (const r of after) {
    const f = rowIdentity(r, keyCol);
    if (f !== '') left.set(f, (left.get(f) ?? 0) + 1);
  }
  const lost: unknown[][] = [];
  before.forEach((r, i) => {
    if (removed.has(i)) return;
    const f = rowIdentity(r, keyCol);
    if (f === '') return;
    const n = left.get(f) ?? 0;
    if (n > 0) left.set(f, n - 1);
    else lost.push([...r]);
  });
  return lost;
}

export const ARCHIVE_MSG = {
  off: `設定「${ARCHIVE_SETTING}」が空のため、アーカイブしませんでした。古い行を移すには、何か月より前の「完了」「除外」の行を移すか（例: 12）を設定に入れてください。`,
  none: (cutoff: string) =>
    `${cutoff} より前の「完了」「除外」の行で、移せるものはありませんでした（取引日と最後の更新がともにこの日より前の行を移します）。`,
  moved: (n: number, cutoff: string, total: number) =>
    `${cutoff} より前の「完了」「除外」の行 ${n} 行を、シート「${ARCHIVE_SHEET}」に移しました（アーカイブは全部で ${total} 行）。取り込み・復元・重複点検は、アーカイブした行も「台帳にある」ものとして扱います。`,
  deletionInFlight: (n: number) =>
    `${n} 行は、シート「重複点検」でその仕訳の削除が「削除中」か「不明」のため、台帳に残しました（削除の結果が決まってから移します）。`,
  duplicateHeaders: (missing: readonly string[]) =>
    `シート「重複点検」の見出し ${missing.map((h) => `「${h}」`).join('・')} が見つからないため、アーカイブしませんでした（削除の途中の仕訳の行を移さないために読みます）。見出しを元の名前に戻すか、メニュー「記帳 > 点検 > 重複点検」をもう一度実行してください。`,
  deferred: (n: number) =>
    `ほかに ${n} 行が移せますが、1回に移すのは ${ARCHIVE_ROWS_PER_RUN} 行までです。もう一度実行してください。`,
  notVerified: (n: number) =>
    `${n} 行はアーカイブに書いた内容を読み直すと一致しなかったため、台帳に残しました（次の実行でやり直します）。`,
  editedMeanwhile: (n: number) =>
    `${n} 行は移している間に台帳で書き換えられたため、台帳の内容を残しました（次の実行で、書き換えた内容を移します）。`,
  putBack: (n: number) =>
    `移している間に台帳が並べ替えられたため、消えた ${n} 行を台帳の末尾に戻しました。並べ替えは実行が終わってからにしてください。`,
  resolved: (n: number) =>
    `${n} 行は台帳とアーカイブの両方にありました（前の実行が途中で止まったか、アーカイブから戻す途中でした）。台帳の行を残し、アーカイブの写しを消しました。`,
  orphansDropped: (n: number) =>
    `前の実行が途中で止まって残った、アーカイブの写し ${n} 行を消しました（台帳に元の行があります）。`,
  adopted: (n: number) =>
    `アーカイブにあって索引にない ${n} 行を索引に加えました（「完了」「除外」の行です）。`,
  strays: (rows: readonly number[]) =>
    `アーカイブの ${rows.slice(0, 10).join('・')} 行目${rows.length > 10 ? ` ほか（全 ${rows.length} 行）` : ''}は、台帳にも索引にもない行か、「完了」「除外」でない行です。kicho はこの行を扱いません。台帳に戻したい行は 操作 に「${BRING_BACK}」と入れて、メニュー「記帳 > 台帳 > アーカイブから戻す」を実行してください。`,
  released: (n: number) =>
    `前回のアーカイブが途中で止まり、その間に台帳から消えた行が ${n} 行ありました。アーカイブには移っていないため索引から外しました（MFの明細は取り込みで、MFの仕訳は「台帳を復元」で台帳に戻ります）。`,
  keptUnbacked: (n: number) =>
    `前回のアーカイブが途中で止まり、その間に台帳から消えた CSV・イベントの「完了」の行が ${n} 行あります。二重登録を防ぐため、キーは索引に残しました（同じCSVの取り込み直しや、イベントの送り直しでは追加されません）。行の内容は、非表示のシート「台帳バックアップ 日付」かシートの版の履歴で確かめてください。`,
  missingRows: (n: number) =>
    `索引にあるのにアーカイブのシートにない行が ${n} 行あります（アーカイブの行が削除された可能性があります）。MFの仕訳はそのままで、取り込みでこれらの明細が追加されることはありません。シートの版の履歴から戻せます。`,
  reimportedDropped: (rows: readonly string[]) =>
    `台帳の ${rows.slice(0, 10).join('・')}${rows.length > 10 ? ` ほか（全 ${rows.length} 行）` : ''}は、アーカイブ済みの明細がもう一度取り込まれた行で、まだ送信していなかったため、台帳から外しました。明細はシート「${ARCHIVE_SHEET}」の行（元の「完了」「除外」）のままです。`,
  reimportedKept: (rows: readonly string[]) =>
    `台帳の ${rows.slice(0, 10).join('・')}${rows.length > 10 ? ` ほか（全 ${rows.length} 行）` : ''}は、シート「${ARCHIVE_SHEET}」にある明細と同じキーですが、送信済みか、操作が入っているか、キーが書き換えられているため、どちらの行も残しました。これらの行は送信しません。MFに二重の仕訳がないか「重複点検」で確かめ、台帳の行を直すか削除してください。`,
  busy: 'ほかの処理が実行中のため、アーカイブしませんでした。少し待ってからもう一度実行してください。',
  noArchive: `シート「${ARCHIVE_SHEET}」がありません。まだアーカイブした行がないか、シートが削除されています。`,
  noneMarked: `アーカイブの 操作 に「${BRING_BACK}」と入れた行がありません。台帳に戻したい行の 操作 の列に「${BRING_BACK}」と入れてから、もう一度実行してください。`,
  broughtBack: (n: number) =>
    `${n} 行をアーカイブから台帳に戻しました（台帳の末尾にあります）。これらの行は、最後の更新から「${ARCHIVE_SETTING}」が過ぎるまでアーカイブされません。`,
  notFinal: (row: number, state: string) =>
    `アーカイブの ${row} 行目は 状態 が「${state}」です。アーカイブの行は「完了」か「除外」のまま戻します。状態を元に戻してから戻し、状態を変えるのは台帳に戻した後にしてください。`,
  notIndexed: (row: number) =>
    `アーカイブの ${row} 行目のキーは索引にありません（kicho が移した行ではないか、キーが書き換えられています）。キーを元に戻してください。`,
  alreadyLive: (row: number) =>
    `アーカイブの ${row} 行目のキーは台帳にもあります。台帳の行を使ってください（アーカイブの写しは次のアーカイブで消えます）。`,
  readBackShort: (want: number, got: number) =>
    `台帳に ${want} 行を戻しましたが、読み直すと ${got} 行しかありません。台帳の見出し（1 行目）を確かめてから、もう一度実行してください（アーカイブの行はそのまま残っています）。`,
} as const;
