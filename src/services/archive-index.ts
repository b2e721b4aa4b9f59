/**
 * The archive's key index as every run depends on it (issue 25). Imports, CSV imports, events, 台帳を復元,
 * 重複点検 and posting treat an indexed key as present; with the index gone, unreadable or cut short, an
 * archived line looks new — an 除外 line comes back and is posted, a CSV or event line is posted twice. So a
 * run that looks a key up stops first and says why (core indexTrouble), and 初期設定 rebuilds the index from
 * 台帳アーカイブ (one read of the sheet, one write of the index) or, when both are gone, asks the person.
 */
import {
  ARCHIVE_INDEX_SHEET,
  ARCHIVE_SHEET,
  type ArchiveIndex,
  type IndexTrouble,
  indexFromArchive,
  LOSE_ARCHIVE_WORD,
  stopsLookups,
  troubleMessage,
} from '../core/archive';
import { parseLedger } from '../core/ledger';
import {
  archiveSheet,
  type CheckedIndex,
  finishArchiveRun,
  forgetArchive,
  readCheckedIndex,
  readGrid,
  writeArchiveIndex,
} from '../gas/archive-sheet';
import { confirmByTyping } from '../gas/dialog';
import { BUSY_MESSAGE, underScriptLock } from '../gas/lock';
import { activeBook } from '../gas/workbook';
import type { RunResult } from './run';

/** A run's refusal when the index cannot be trusted for lookups, or null (no-archive does not stop one). */
export function indexRefusal(trouble: IndexTrouble | null): RunResult | null {
  if (!stopsLookups(trouble)) return null;
  return { ok: false, count: 0, messages: [troubleMessage(trouble)], archiveIndex: trouble.kind };
}

/** The same check on its own, before a run reaches MF (the lookup under the lock checks again). */
export function archiveIndexRefusal(): RunResult | null {
  return indexRefusal(readCheckedIndex().trouble);
}

/**
 * For 要確認's first row (no キー: it is about a sheet, not a line): what is wrong with the archive's
 * sheets and what to do, or null. Listed on every refresh until put right.
 */
export function archiveIndexNotice(): { sheet: string; reason: string; action: string } | null {
  const { trouble } = readCheckedIndex(true);
  if (!trouble) return null;
  const sheet = trouble.kind === 'no-archive' ? ARCHIVE_SHEET : ARCHIVE_INDEX_SHEET;
  const action =
    trouble.kind === 'lost'
      ? '「版の履歴」でシートを戻してから「初期設定」を実行してください。戻せないときは「初期設定」で確認の言葉を入れてください。'
      : trouble.kind === 'no-archive'
        ? trouble.lookalike
          ? `シート「${trouble.lookalike}」の名前を「${ARCHIVE_SHEET}」に戻してください。`
          : '「版の履歴」で戻すか、「初期設定」を実行してください（空のアーカイブを作ります）。'
        : 'メニュー「記帳 > 接続と設定 > 初期設定」を実行してください（索引を作り直します）。';
  return { sheet: `シート「${sheet}」`, reason: troubleMessage(trouble), action };
}

export const REBUILD_MSG = {
  rebuilt: (rows: number, entries: number, kept: number) =>
    `非表示のシート「${ARCHIVE_INDEX_SHEET}」を、シート「${ARCHIVE_SHEET}」の ${rows} 行から作り直しました（索引 ${entries} 件${kept > 0 ? `。前の索引から読めた ${kept} 件も残しました` : ''}）。取り込み・登録・アーカイブは、また動きます。`,
  unindexed: (rows: readonly number[]) =>
    `シート「${ARCHIVE_SHEET}」の ${rows.slice(0, 10).join('・')} 行目${rows.length > 10 ? ` ほか（全 ${rows.length} 行）` : ''}はキーが消されたか書き換えられていて、明細IDもないため、索引に入れられませんでした。これらの明細は取り込みで戻ってくることがあります。「ファイル > 変更履歴 > 版の履歴」でキーを元に戻してから、もう一度「初期設定」を実行してください。`,
  archiveCreated: (entries: number) =>
    `シート「${ARCHIVE_SHEET}」がなかったため、空のシートを作りました。前にアーカイブした ${entries} 行の内容はこのシートにはありません（「版の履歴」で戻せます）が、キーは索引に残っているため、これらの明細が取り込みで追加されることはありません。`,
  renamed: (name: string) =>
    `シート「${ARCHIVE_SHEET}」がなく、シート「${name}」がアーカイブのようです。名前を「${ARCHIVE_SHEET}」に戻してから、もう一度「初期設定」を実行してください（新しいアーカイブは作っていません）。`,
  forgotten: (who: string, rows: number) =>
    `${who || '実行した人'} が、アーカイブした ${rows} 行とその索引を失ったものとして続けることを確認しました。アーカイブの記録を空にしました。MFの明細の行はメニュー「記帳 > 台帳 > 台帳を復元」で戻せます。除外にしていた明細は取り込みでまた追加されるので、もう一度「除外」にしてください。`,
  notForgotten: `アーカイブは空にしていません（確認の言葉が入力されませんでした）。取り込み・登録・アーカイブは止まったままです。`,
} as const;

/**
 * 初期設定's part: make the archive's sheets whole again when the index cannot be trusted. Under the
 * script lock (an archive run writes the index too). Returns the summary lines and whether it failed.
 */
export function repairArchiveIndex(
  ledgerHeader: readonly unknown[],
  who: string,
  fromMenu: boolean,
): {
  messages: string[];
  failed: boolean;
} {
  const first = readCheckedIndex(true);
  if (!first.trouble) return { messages: [], failed: false };
  const done = underScriptLock(() => repairLocked(readCheckedIndex(true), ledgerHeader, who, fromMenu));
  if (!done) return { messages: [BUSY_MESSAGE], failed: true };
  return done.value;
}

function repairLocked(
  checked: CheckedIndex,
  ledgerHeader: readonly unknown[],
  who: string,
  fromMenu: boolean,
): { messages: string[]; failed: boolean } {
  const t = checked.trouble;
  if (!t) return { messages: [], failed: false };
  switch (t.kind) {
    case 'no-archive': {
      if (t.lookalike) return { messages: [REBUILD_MSG.renamed(t.lookalike)], failed: true };
      archiveSheet(ledgerHeader, true);
      return { messages: [REBUILD_MSG.archiveCreated(t.entries)], failed: false };
    }
    case 'lost': {
      if (t.lookalike) return { messages: [REBUILD_MSG.renamed(t.lookalike)], failed: true };
      // Only a person, on purpose, in a menu run: a trigger never lets the archive go (dialog.ts).
      const agreed =
        fromMenu && confirmByTyping('アーカイブが見つかりません', troubleMessage(t), LOSE_ARCHIVE_WORD);
      if (!agreed) return { messages: [troubleMessage(t), REBUILD_MSG.notForgotten], failed: true };
      forgetArchive();
      return { messages: [REBUILD_MSG.forgotten(who, t.archived)], failed: false };
    }
    default:
      return rebuild(checked);
  }
}

/**
 * The index from 台帳アーカイブ (one read of the sheet), joined with whatever entries the old index still
 * gives (an unreadable or cut-short one: its readable cells may hold keys whose rows a person deleted from
 * the archive, which must stay present), written in one write and mirrored; the run mark is cleared.
 */
function rebuild(checked: CheckedIndex): { messages: string[]; failed: boolean } {
  const archive = activeBook().getSheetByName(ARCHIVE_SHEET);
  const grid = archive ? readGrid(archive) : [];
  const rows = parseLedger(grid).rows;
  const dataRows = Math.max(0, grid.length - 1);
  const { index, unindexed } = indexFromArchive(rows, dataRows);
  const kept = keepReadable(index, checked);
  writeArchiveIndex(index, checked.cells, { pending: false });
  finishArchiveRun(index);
  const messages = [REBUILD_MSG.rebuilt(dataRows, index.entries.size, kept)];
  if (unindexed.length > 0) messages.push(REBUILD_MSG.unindexed(unindexed));
  return { messages, failed: false };
}

/** Entries of the old index the archive does not give, added to the rebuilt one; how many. */
function keepReadable(index: ArchiveIndex, checked: CheckedIndex): number {
  let kept = 0;
  for (const [hex, kind] of checked.index.entries) {
    if (index.entries.has(hex)) continue;
    index.entries.set(hex, kind);
    kept += 1;
  }
  return kept;
}
