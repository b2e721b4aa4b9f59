/**
 * The read that settles which インボイス区分 MF takes (issue 27): the journal MF's answer shows it created.
 * In the fake's `ignored` world MF takes UNQUALIFIED_70 without a word and stores the kind of a side sent
 * without one (適格) — no source shows MF doing so, and a journal listed with some kind proves nothing
 * about API writes (MF's read enum is wider than its write enum). kicho reads the created journal: a kind
 * not stored is said on the row (the journal exists: MF's screen fixes it) and counts as refused, so no
 * later row is sent with it — one wrong journal at most, never a silent 適格 after it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { remoteTagOf } from '../../src/core/keys';
import { kichoWorld } from '../helpers/kicho';

test('a kind MF stored as another: said on the row, counted refused, and the next row is not sent', () => {
  const w = kichoWorld({
    taxMethod: 'INDIVIDUAL_ALLOCATION',
    invoiceKindsOnWrite: 'ignored',
    window: ['2026-09-20', '2026-10-20'],
  });
  const lines = w.mf.addTransactions([
    { date: '2026-09-28', value: 55_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾔﾏﾓﾄ ﾎﾝﾔｸ' },
    { date: '2026-10-05', value: 44_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾔﾏﾓﾄ ﾎﾝﾔｸ' },
    { date: '2026-10-06', value: 33_000, side: 'EXPENSE', content: 'ﾌﾘｺﾐ ﾀﾅｶ ｲﾗｽﾄ' },
  ]);
  assert.equal(w.run('importTransactions').status, 'ok');
  const keys = lines.map((l) => `mf:${l.id}`);
  for (const key of keys) {
    w.edit(key, '勘定科目', '外注費');
    w.edit(key, 'インボイス', '非適格');
    w.edit(key, '操作', '承認');
  }
  const r = w.run('postApproved');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  const rows = w.ledger();
  const row = (key: string) => rows.find((x) => x.キー === key) ?? {};
  const journals = (key: string) => w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));

  // 80 %: in the document's enum, stored as sent.
  assert.equal(
    journals(keys[0] as string)[0]?.branches[0]?.debitor?.invoice_kind,
    'INVOICE_KIND_UNQUALIFIED_80',
  );

  const seventy = keys.slice(1);
  const posted = seventy.filter((k) => journals(k).length > 0);
  assert.equal(posted.length, 1, 'one journal at most carries the wrong kind');
  const [first] = posted as [string];
  assert.equal(journals(first)[0]?.branches[0]?.debitor?.invoice_kind, 'INVOICE_KIND_QUALIFIED');
  assert.equal(row(first).状態, '完了');
  assert.match(
    String(row(first).メモ),
    /「70%控除」（INVOICE_KIND_UNQUALIFIED_70）ではなく 「適格」（INVOICE_KIND_QUALIFIED） として記録しました/,
  );
  const other = seventy.find((k) => k !== first) as string;
  assert.equal(row(other).状態, '失敗');
  assert.equal(row(other).試行回数, 0, 'not sent');
  assert.match(String(row(other).メモ), /この MF はこの区分を受け付けませんでした/);

  const seen = JSON.parse(w.emu.world.properties.script.get('KICHO_INVOICE_KINDS') ?? '{}');
  assert.equal(seen.INVOICE_KIND_UNQUALIFIED_70?.seen, 'refused');
  assert.equal(seen.INVOICE_KIND_UNQUALIFIED_80?.seen, 'accepted');
});
