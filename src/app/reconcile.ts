/**
 * reconcile(): looks up 不明 rows and stale 送信中 rows in MF before anything is sent again. The phase
 * itself is src/core/reconcile.ts; the lookup is src/mf/lookup.ts; here only the wiring and the sheets.
 */

import { applyChanges } from '../core/ledger';
import type { LedgerPort } from '../core/ports';
import { RECONCILE_MSG, reconcileLedger } from '../core/reconcile';
import { SAFETY } from '../core/safety';
import { SHEET } from '../core/schema';
import { importWindow, SETTING_NEEDS } from '../core/settings';
import { scriptClock, today } from '../gas/clock';
import { readLedger, restoreKeys, writeLedgerChanges } from '../gas/ledger-sheet';
import { scriptLock } from '../gas/lock';
import { mfClient } from '../gas/mf-connection';
import type { MfClient } from '../mf/client';
import { mfLookup } from '../mf/lookup';
import { noteCompleted } from '../services/done-rows';
import { preflight, settingsFor } from '../services/preflight';
import { noteSends } from '../services/recent-sends';
import { refreshReviewSheet } from '../services/review-sheet';
import { type RunContext, type RunResult, runEntry } from '../services/run';

/** The 台帳 for reconcile: a key given back goes through restoreKeys (checked after), the rest as usual. */
const reconcileLedgerSheet: LedgerPort = {
  read: () => readLedger(),
  write: (table, changes) => {
    writeLedgerChanges(
      table,
      changes.filter((c) => c.patch.キー === undefined),
    );
    restoreKeys(
      table,
      changes.filter((c) => c.patch.キー !== undefined),
    );
    return undefined;
  },
};

export function runReconcile(_ctx: RunContext, client?: MfClient): RunResult {
  const refused = preflight(SHEET.ledger, SHEET.settings);
  if (refused) return refused;
  const { settings, refusal } = settingsFor(SETTING_NEEDS.reconcile);
  if (refusal) return refusal;
  let lookup: ReturnType<typeof mfLookup> | undefined;
  const outcome = reconcileLedger({
    ledger: reconcileLedgerSheet,
    lock: scriptLock(),
    // MF is connected only when a row needs looking up.
    lookup: {
      lookUp: (candidates) => {
        lookup ??= mfLookup(client ?? mfClient(), importWindow(settings, today()));
        return lookup.lookUp(candidates);
      },
    },
    clock: scriptClock(),
    graceMs: SAFETY.gracePeriod ? settings.graceMinutes * 60_000 : 0,
    maxAttempts: settings.maxAttempts,
    written: (table, changes) => {
      noteCompleted(table, changes);
      noteSends(changes, settings.graceMinutes);
      refreshReviewSheet(applyChanges(table, changes), settings.graceMinutes);
    },
  });
  if (outcome.kind === 'nothing')
    return { count: 0, messages: [RECONCILE_MSG.nothing], found: 0, resend: 0, review: 0 };
  if (outcome.kind === 'busy') return { ok: false, count: 0, messages: [RECONCILE_MSG.busy], busy: true };
  return {
    count: outcome.changes.length,
    messages: [RECONCILE_MSG.summary(outcome)],
    found: outcome.found,
    resend: outcome.resend,
    review: outcome.review,
    waiting: outcome.waiting,
  };
}

export function reconcile(e?: unknown) {
  return runEntry('照合', e, (ctx) => runReconcile(ctx));
}
