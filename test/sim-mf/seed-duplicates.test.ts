import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeMf } from '../../sim/mf/fake-mf';
import { plantDemoDuplicates } from '../../sim/mf/seed-duplicates';

test('the demo duplicates: planted in journalized lines only, so nothing kicho imports changes', () => {
  const mf = new FakeMf({ seed: 1, receivables: true });
  const none = mf.transactions().filter((t) => t.journalizing_status === 'none').length;
  const before = mf.journals().length;
  const planted = plantDemoDuplicates(mf);
  assert.equal(mf.transactions().filter((t) => t.journalizing_status === 'none').length, none);
  assert.equal(mf.journals().length, before + 6);
  assert.equal(planted.copies.length, 3);
  assert.equal(planted.twins.length, 2);
  const [sameLine] = planted.copies;
  const copy = mf.journals().find((j) => j.id === sameLine);
  assert.ok(copy?.transaction_id);
  assert.equal(mf.journalsForTransaction(copy.transaction_id).length, 2);
});
