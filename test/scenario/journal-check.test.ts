/**
 * A 完了 row whose journal is gone from MF (issue 25): deleted in MF's own screen, found by the day's
 * scheduled run and by 要確認を開く, listed on 要確認 with what happened and what to do (or relinked to the
 * journal its line or tag still has), and never sent again without a person.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { records } from '../../sim/person';
import { remoteTagOf } from '../../src/core/keys';
import { ok, plantedWorld } from '../helpers/duplicate-book';
import type { KichoWorld } from '../helpers/kicho';

/** Someone deletes a journal in MF's own screen (not through kicho). */
function deleteInMf(w: KichoWorld, id: string): void {
  const res = w.mf.handle({
    method: 'DELETE',
    url: `https://api-accounting.moneyforward.com/api/v3/journals/${encodeURIComponent(id)}?office_code=1234-5678`,
    headers: { Authorization: `Bearer ${w.mf.issueAccessToken()}` },
  });
  assert.equal(res.status, 204);
  w.mf.requestLog.length = 0;
}

function ledgerRow(w: KichoWorld, key: string): Record<string, unknown> {
  const row = w.ledger().find((r) => r.キー === key);
  assert.ok(row, `row ${key}`);
  return row;
}

function review(w: KichoWorld, key: string): Record<string, unknown> | undefined {
  return records(w.emu.world, '要確認').find((r) => r.キー === key);
}

describe('a 完了 row whose journal is gone from MF', () => {
  const trigger = { kind: 'trigger' as const, args: [{ triggerUid: 't1', authMode: 'FULL' }] };

  test('found by the day’s scheduled run, listed on 要確認 with what to do, never sent again by itself', () => {
    const { w, planted: p } = plantedWorld();
    const key = String(w.ledger().find((r) => r.MF仕訳ID === p.hand.line)?.キー);
    // The next day someone deletes it in MF's screen.
    w.emu.world.clock.advance(24 * 3_600_000);
    deleteInMf(w, p.hand.line);
    const journals = w.mf.journals().length;
    const run = w.run('runScheduled', trigger);
    assert.equal(run.status, 'ok', JSON.stringify(run.error));
    const row = ledgerRow(w, key);
    assert.equal(row.状態, '要確認');
    assert.equal(row.MF仕訳ID, p.hand.line, 'the journal it had stays named');
    assert.match(String(row.メモ), /MF の仕訳 .* が MF にありません.*「承認」.*「除外」/);
    const listed = review(w, key);
    assert.ok(listed, 'listed on 要確認');
    assert.match(String(listed.理由), /MF にありません/);
    assert.match(String(listed.対応), /「承認」.*「除外」.*自動では送り直しません/);
    assert.match(
      JSON.stringify((run.value as { messages: string[] }).messages),
      /仕訳がなくなっていた 1 行を要確認/,
    );
    // Later runs (MF made the line 対象外 when its journal went): it stays listed, nothing is sent.
    for (let i = 0; i < 3; i++) {
      w.emu.world.clock.advance(15 * 60_000);
      assert.equal(w.run('runScheduled', trigger).status, 'ok');
    }
    ok(w, 'importTransactions');
    assert.equal(ledgerRow(w, key).状態, '要確認');
    assert.ok(review(w, key));
    assert.equal(w.mf.journals().length, journals, 'nothing posted again');
    // The person decides: 除外.
    w.edit(key, '操作', '除外');
    ok(w, 'postApproved');
    assert.equal(ledgerRow(w, key).状態, '除外');
    ok(w, 'openReview');
    assert.equal(review(w, key), undefined);
  });

  test('a CSV row found gone is sent again only when the person chooses 再試行: one journal for its tag', () => {
    const { w, planted: p } = plantedWorld();
    w.emu.world.clock.advance(3_600_000);
    deleteInMf(w, p.csvAndLine.csv);
    ok(w, 'openReview');
    const row = ledgerRow(w, p.csvAndLine.csvKey);
    assert.equal(row.状態, '要確認');
    assert.ok(review(w, p.csvAndLine.csvKey));
    const tag = remoteTagOf(p.csvAndLine.csvKey);
    ok(w, 'postApproved');
    assert.equal(w.mf.journalsByTag(tag).length, 0, 'not sent without the person');
    w.edit(p.csvAndLine.csvKey, '操作', '再試行');
    ok(w, 'postApproved');
    const again = ledgerRow(w, p.csvAndLine.csvKey);
    assert.equal(again.状態, '完了', String(again.メモ));
    assert.equal(w.mf.journalsByTag(tag).length, 1);
    assert.notEqual(again.MF仕訳ID, p.csvAndLine.csv);
  });

  test('要確認を開く finds it at once; a row whose line still has another journal is relinked to it instead', () => {
    const { w, planted: p } = plantedWorld();
    // An hour later the journal kicho posted for the line is deleted in MF; the other journal of the same
    // line stays.
    w.emu.world.clock.advance(3_600_000);
    deleteInMf(w, p.sameLine.kept);
    const r = w.run('openReview');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const row = ledgerRow(w, p.sameLine.key);
    assert.equal(row.状態, '完了');
    assert.equal(row.MF仕訳ID, p.sameLine.copy);
    assert.match(String(row.メモ), /同じ明細から作られた仕訳 .* につなぎ直しました/);
    // The toast says what the check did.
    const toasts = w.emu.world.ui.events.filter((e) => e.type === 'toast').map((e) => JSON.stringify(e));
    assert.match(toasts.join(' '), /つなぎ直しました/);
  });

  test('the check is daily: the day’s later scheduled runs list no month of journals', () => {
    const { w } = plantedWorld();
    assert.equal(w.run('runScheduled', trigger).status, 'ok');
    const monthListing = (q: string) => /start_date=\d{4}-\d{2}-01&end_date=\d{4}-\d{2}-\d{2}/.test(q);
    const listed = w.mf.requestLog.filter((e) => e.path === '/api/v3/journals' && monthListing(e.query));
    assert.ok(listed.length > 0, 'the first run of the day lists the months of the 完了 rows');
    w.mf.requestLog.length = 0;
    w.emu.world.clock.advance(15 * 60_000);
    assert.equal(w.run('runScheduled', trigger).status, 'ok');
    assert.equal(
      w.mf.requestLog.filter((e) => e.path === '/api/v3/journals' && monthListing(e.query)).length,
      0,
    );
    w.emu.world.clock.advance(24 * 3_600_000);
    w.mf.requestLog.length = 0;
    assert.equal(w.run('runScheduled', trigger).status, 'ok');
    assert.ok(w.mf.requestLog.some((e) => e.path === '/api/v3/journals' && monthListing(e.query)));
  });
  test('a journal whose date was changed in MF is not taken for gone (only MF’s own “no such journal” is)', () => {
    const { w, planted: p } = plantedWorld();
    w.emu.world.clock.advance(3_600_000);
    const key = String(w.ledger().find((r) => r.MF仕訳ID === p.hand.line)?.キー);
    const j = w.mf.journals().find((x) => x.id === p.hand.line);
    assert.ok(j);
    // Someone moves it to September in MF's screen: no 完了 row of the 台帳 is dated there.
    const put = w.mf.handle({
      method: 'PUT',
      url: `https://api-accounting.moneyforward.com/api/v3/journals/${encodeURIComponent(j.id)}?office_code=1234-5678`,
      headers: { Authorization: `Bearer ${w.mf.issueAccessToken()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        journal: {
          transaction_date: '2026-09-15',
          journal_type: 'journal_entry',
          tags: j.tags,
          branches: j.branches.map((b) => ({
            remark: b.remark,
            debitor: { account_id: b.debitor.account_id, value: b.debitor.value + b.debitor.tax_value },
            creditor: {
              account_id: b.creditor.account_id,
              sub_account_id: b.creditor.sub_account_id,
              value: b.creditor.value + b.creditor.tax_value,
            },
          })),
        },
      }),
    });
    assert.equal(put.status, 200, put.body);
    ok(w, 'openReview');
    assert.equal(ledgerRow(w, key).状態, '完了');
    assert.equal(ledgerRow(w, key).MF仕訳ID, p.hand.line);
  });
  test('a row posted within 照合猶予 is not asked about (MF may not list it yet); the next day’s check is', () => {
    const { w, planted: p } = plantedWorld();
    deleteInMf(w, p.hand.line);
    const key = String(w.ledger().find((r) => r.MF仕訳ID === p.hand.line)?.キー);
    ok(w, 'openReview');
    assert.equal(ledgerRow(w, key).状態, '完了');
    assert.equal(
      w.mf.requestLog.filter((e) => e.method === 'GET' && e.path.startsWith('/api/v3/journals/')).length,
      0,
      'no journal asked for by id',
    );
    w.emu.world.clock.advance(24 * 3_600_000);
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    assert.equal(ledgerRow(w, key).状態, '要確認');
  });
});
