/**
 * Duplicate deletion's ports over the real adapters (core/duplicates/deletion.ts, an instance of the
 * exactly-once skeleton, talks only through them): the 重複点検 sheet, the 台帳 with the sent-rows mark
 * following each write, the script lock, MF's journals and DELETE, and which archived row holds a journal.
 * Used by 重複を削除 (app/duplicate-delete.ts) and by 重複点検, which first settles deletes a killed run left
 * (recoverStaleDeletions).
 */

import { archivedJournal, stopsLookups, troubleMessage } from '../core/archive';
import { type DeletionSummary, recoverDeletions } from '../core/duplicates/deletion';
import type { DeleteResult, DeleterPort, DeletionInput } from '../core/duplicates/deletion-ports';
import { type AuditJournal, canonical, journalFacts, LedgerLinks } from '../core/duplicates/facts';
import { HttpNotSentError } from '../core/ports';
import { sha256Hex } from '../core/sha256';
import { archivedJournalHolders, readIndexForLookup } from '../gas/archive-sheet';
import { nowInScriptZone, scriptClock } from '../gas/clock';
import { readAuditRecord } from '../gas/duplicate-record';
import { duplicateSheetPort } from '../gas/duplicate-sheet';
import { ledgerSheet, readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { scriptLock } from '../gas/lock';
import type { MfClient } from '../mf/client';
import { noteCompleted } from './done-rows';
import type { RunContext } from './run';

/** What 重複点検 says when it settled deletes an earlier run left (its summary, then ログ). */
export const RECOVERED_MSG = (n: number) => `前回の削除の結果を MF で確かめ、${n} 件を片付けました。`;

/** The 重複点検 plan's token: the dialog's and the run's must match (core/duplicates/sheet.ts). */
export function digest(text: string): string {
  return sha256Hex(text).slice(0, 32);
}

function stampNow(): string {
  return nowInScriptZone('yyyy-MM-dd HH:mm');
}

function deleterOf(client: MfClient): DeleterPort {
  return {
    journal: (id) => client.journal(id) as AuditJournal | null,
    journalsIn(windows, wanted) {
      // Page by page, keeping only the journals asked about (a window may hold thousands).
      const out = new Map<string, AuditJournal>();
      for (const w of windows)
        client.eachJournalPage(w.start, w.end, (page) => {
          for (const j of page as AuditJournal[]) {
            const cid = canonical(j.id);
            if (wanted.has(cid)) out.set(cid, j);
          }
        });
      return out;
    },
    deleteJournal(id): DeleteResult {
      try {
        const outcome = client.deleteJournal(id);
        return outcome.kind === 'rejected' ? { kind: 'rejected', explanation: outcome.explanation } : outcome;
      } catch (e) {
        // Apps Script refused to send it: nothing reached MF.
        if (e instanceof HttpNotSentError) return { kind: 'not-sent', reason: e.message };
        return { kind: 'unknown', reason: e instanceof Error ? e.message : String(e) };
      }
    },
  };
}

/**
 * Which archived row holds a journal: the key index says whether one might (no Sheets call per journal),
 * and only then is 台帳アーカイブ read, once, for the row whose MF仕訳ID it is.
 */
function archivedHolderOf(): (journal: AuditJournal) => string | null {
  // Checked again here, not only when the run began: the index may be deleted while the run reads MF
  // (simulation seed 161), and an empty index would make every archived row's journal look deletable.
  const { index, trouble } = readIndexForLookup();
  if (stopsLookups(trouble)) throw new Error(troubleMessage(trouble));
  const links = new LedgerLinks([], archivedJournal(index));
  let holders: Map<string, string> | null = null;
  return (journal) => {
    const [facts] = journalFacts([journal], links);
    if (!facts.referenced) return null;
    holders ??= archivedJournalHolders(canonical);
    return holders.get(facts.cid) ?? null;
  };
}

export function deletionInput(ctx: RunContext, client: MfClient): DeletionInput {
  const clock = scriptClock();
  let holderOf: ((journal: AuditJournal) => string | null) | null = null;
  const sheet = ledgerSheet();
  return {
    sheet: duplicateSheetPort(),
    ledger: {
      read: () => readLedger(sheet),
      write: (table, changes) => {
        const written = writeLedgerChanges(table, changes, sheet);
        // A 完了 row made 除外 is one sent row fewer by kicho's own hand: the sent-rows mark follows, or every
        // later run would report it as a row gone (done-rows.ts).
        const held = new Set(written.withheld.map((c) => c.rowNumber));
        noteCompleted(
          table,
          changes.filter((c) => !held.has(c.rowNumber)),
        );
        return written;
      },
    },
    lock: scriptLock(),
    deleter: deleterOf(client),
    clock: { ...clock, stamp: stampNow },
    record: readAuditRecord,
    who: ctx.who,
    startedAt: ctx.startedAt,
    digest,
    archivedHolder: (journal) => {
      holderOf ??= archivedHolderOf();
      return holderOf(journal);
    },
  };
}

/** 削除中 rows past their lease and 不明 rows, looked up and settled (the audit does this first). */
export function recoverStaleDeletions(ctx: RunContext, client: MfClient): DeletionSummary {
  const summary = recoverDeletions(deletionInput(ctx, client));
  if (summary.recovered > 0) summary.messages.unshift(RECOVERED_MSG(summary.recovered));
  return summary;
}
