/**
 * Posting's ports over the real adapters — everything core/protocol.ts reaches the world through, built
 * in one place so what a write adds to the protocol's changes is visible beside it:
 * - the 台帳: the narrow posting scan (gas/ledger-scan.ts, issue 18) or the whole sheet for a previewed
 *   plan, with the watch on completed rows at the first read (done-rows.ts);
 * - each write: MF's words in メモ cut of any credential they echo (DESIGN §9.5), claims remembered in
 *   the recent-sends record before the write and unsent rows forgotten after it (recent-sends.ts), and
 *   the sent-rows mark following the write (done-rows.ts);
 * - the script lock, and the MF sender (mf-sender.ts) with what this run's journals teach about the
 *   インボイス区分 MF takes, kept after the run (recordLearnt).
 */
import type { InvoiceKind, InvoicePolicy, KindsSeen } from '../core/invoice';
import { invoicePolicy } from '../core/invoice';
import type { Masters } from '../core/masters';
import type { ClockPort, LedgerPort, LockPort, SenderPort } from '../core/ports';
import { redactSecrets } from '../core/redact';
import type { Settings } from '../core/settings';
import { postingReader } from '../gas/ledger-scan';
import { readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { scriptLock } from '../gas/lock';
import { knownSecrets } from '../gas/properties';
import { readInvoiceKinds, recordInvoiceKinds } from '../gas/run-state';
import { readSources } from '../gas/sources-sheet';
import type { MfClient } from '../mf/client';
import { watchDoneRows, withSentMark } from './done-rows';
import { type InvoiceLearner, mfSender } from './mf-sender';
import { preflightLedgerHeader } from './preflight';
import { noteSends } from './recent-sends';

type Sheet = GoogleAppsScript.Spreadsheet.Sheet;
type PostingReader = ReturnType<typeof postingReader>;

export interface PostingPortInput {
  /** The 台帳 sheet. */
  sheet: Sheet;
  /** Read only the columns and rows posting needs; false for a previewed plan (checked on the whole 台帳). */
  narrow: boolean;
  settings: Settings;
  mf: MfClient;
  masters: Masters;
  clock: ClockPort;
  /** Told what the watch on completed rows found at the first read (rows gone since the last run). */
  notice(message: string): void;
}

export interface PostingPort {
  ledger: LedgerPort;
  lock: LockPort;
  sender: SenderPort;
  /** After the run: keeps what its journals showed about the インボイス区分 MF takes (KICHO_MF_BEHAVIOUR). */
  recordLearnt(): void;
}

/**
 * インボイス区分: the 設定 and what MF was seen taking; a kind MF stored as another stops the next rows of
 * this run too (policy.seen is read at each send).
 */
function invoiceMemory(
  settings: Settings,
  clock: ClockPort,
): { policy: InvoicePolicy; learn: InvoiceLearner; learnt: KindsSeen } {
  const policy = invoicePolicy(settings, readInvoiceKinds());
  const learnt: KindsSeen = {};
  const learn = (kind: InvoiceKind, seen: 'accepted' | 'refused') => {
    if (seen === 'accepted' && policy.seen[kind]?.seen === 'accepted') return;
    learnt[kind] = { seen, at: clock.iso() };
    if (seen === 'refused') policy.seen[kind] = learnt[kind];
  };
  return { policy, learn, learnt };
}

/** The 台帳 as posting reads and writes it, under the lock (the protocol takes it around both). */
function ledgerPort(
  sheet: Sheet,
  reader: PostingReader | null,
  graceMinutes: number,
  notice: (message: string) => void,
): LedgerPort {
  let watched = false;
  let known: string[] | null = null;
  const secrets = () => {
    known ??= knownSecrets();
    return known;
  };
  return {
    // The watch on completed rows goes with the first read.
    read: () => {
      const table = reader ? reader.read() : readLedger(sheet);
      if (!watched) {
        watched = true;
        const gone = watchDoneRows(table);
        if (gone) notice(gone);
      }
      return table;
    },
    write: (read, rawChanges, options) => {
      // A change to a row the scan did not read whole: the whole 台帳 first (rare: rows moved).
      const { table, changes: raw } = reader
        ? reader.wholeFor(read, rawChanges)
        : { table: read, changes: rawChanges };
      // MF's words reach メモ: whatever piece of a credential they echo is cut first (DESIGN §9.5).
      const changes = raw.map((c) =>
        typeof c.patch.メモ === 'string' && c.patch.メモ !== ''
          ? { ...c, patch: { ...c.patch, メモ: redactSecrets(c.patch.メモ, secrets()) } }
          : c,
      );
      // Claims are remembered before the write (a run killed after it must not forget them), rows
      // that went back unsent are forgotten after it.
      noteSends(
        changes.filter((c) => c.patch.状態 === '送信中'),
        graceMinutes,
      );
      const written = withSentMark(table, changes, () =>
        writeLedgerChanges(table, changes, sheet, { ...options, formats: reader?.formats }),
      );
      const held = new Set(written.withheld.map((c) => c.rowNumber));
      noteSends(
        changes.filter((c) => !held.has(c.rowNumber) && c.patch.状態 !== '送信中'),
        graceMinutes,
      );
      return written;
    },
  };
}

/** Posting's ports, built in the order the run always made these calls (Properties, then Sheets, lock, 取込元). */
export function postingPort(o: PostingPortInput): PostingPort {
  const invoice = invoiceMemory(o.settings, o.clock);
  // Only the columns and rows posting needs (issue 18).
  const reader = o.narrow ? postingReader(o.sheet, preflightLedgerHeader() ?? undefined) : null;
  return {
    ledger: ledgerPort(o.sheet, reader, o.settings.graceMinutes, o.notice),
    lock: scriptLock(),
    sender: mfSender(o.mf, o.masters, readSources(), invoice.policy, invoice.learn),
    recordLearnt: () => recordInvoiceKinds(invoice.learnt),
  };
}
