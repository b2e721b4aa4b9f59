import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildDataset } from '../../sim/mf/seed';
import { RECEIVABLE_DEPOSIT_LINES, RECEIVABLE_MOVES } from '../../sim/mf/seed-receivables';

test('the receivables book only adds journals: the default dataset is unchanged', () => {
  const plain = buildDataset(1);
  const withBook = buildDataset(1, { receivables: true });
  assert.deepEqual(withBook.transactions.slice(0, plain.transactions.length), plain.transactions);
  assert.equal(withBook.transactions.length, plain.transactions.length + RECEIVABLE_DEPOSIT_LINES.length);
  assert.deepEqual(withBook.journals.slice(0, plain.journals.length), plain.journals);
  const ar = plain.accounts.find((a) => a.name === '売掛金')?.id;
  const added = withBook.journals.slice(plain.journals.length);
  const seededDeposits = plain.journals
    .flatMap((j) => j.branches)
    .filter((b) => b.creditor.account_id === ar);
  assert.ok(seededDeposits.length > 0);
  // One invoice per seeded deposit, then the hand-made moves.
  assert.equal(added.length, seededDeposits.length + RECEIVABLE_MOVES.length);
  for (const j of added) {
    const b = j.branches[0];
    assert.equal(b.debitor.value, b.creditor.value, 'balanced');
    assert.ok(b.debitor.account_id === ar || b.creditor.account_id === ar);
  }
});
