/** The lost-ledger guard: one decision and one wording for 登録 and its ドライラン (DESIGN §5). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planDryRun } from '../../src/core/dry-run';
import { parseLedger } from '../../src/core/ledger';
import { ledgerLooksLost, lostLedgerReason } from '../../src/core/lost-ledger';
import { LEDGER_HEADERS } from '../../src/core/schema';

test('far fewer rows than the last run saw, or none, is a lost 台帳', () => {
  assert.equal(ledgerLooksLost(10, 0), false, 'no earlier run: nothing to compare');
  assert.equal(ledgerLooksLost(0, 1), true);
  assert.equal(ledgerLooksLost(4, 10), true);
  assert.equal(ledgerLooksLost(5, 10), false);
  assert.equal(lostLedgerReason(5, 10, null), null);
  assert.match(lostLedgerReason(4, 10, null) ?? '', /前回（10 行）より大きく減っています（今 4 行）/);
});

test('an empty 台帳 is lost only when MF holds kicho’s journals, named as 本番前チェック saw them', () => {
  assert.equal(lostLedgerReason(0, 0, null), null, 'MF not asked');
  assert.equal(lostLedgerReason(0, 0, { count: 0, behaviour: null }), null, 'a new book');
  const dropped = lostLedgerReason(0, 0, {
    count: 3,
    behaviour: { journalizeTags: 'dropped' } as never,
  });
  assert.match(dropped ?? '', /kicho が登録した仕訳か明細から作られた仕訳が 3 件/);
});

test('the ドライラン warns with the very sentence 登録 refuses with', () => {
  const empty = parseLedger([LEDGER_HEADERS.slice()]);
  const inMf = { count: 2, behaviour: null };
  const plan = planDryRun(empty, {
    masters: { accounts: [], taxes: [], partners: [], connectedAccounts: [], fetchedAt: '' },
    batchLimit: 200,
    who: 'a',
    now: 'N',
    lastRowCount: 0,
    lastWindow: null,
    currentWindow: '2026-01-01..',
    taggedJournalsInMf: inMf,
  });
  assert.ok(plan.warnings.includes(lostLedgerReason(0, 0, inMf) as string));
});
