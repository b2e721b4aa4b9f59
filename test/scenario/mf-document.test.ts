/**
 * The defects a reading of the client against MF's published OpenAPI document found (issue 12 §2), each
 * end to end: the built bundle in the emulator against the fake MF, held to the document (kichoWorld
 * routes every exchange through test/contract). Each test here failed on the build before the fix.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FakeMf } from '../../sim/mf/fake-mf';
import type { Journal } from '../../sim/mf/types';
import { remoteTagOf } from '../../src/core/keys';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld } from '../helpers/kicho';

const API = 'https://api-accounting.moneyforward.com';

interface Summary {
  ok: boolean;
  messages: string[];
  [k: string]: unknown;
}

function run(w: KichoWorld, name: string, args?: unknown[]): Summary {
  const r = w.run(name, args ? { args } : {});
  assert.equal(r.status, 'ok', `${name}: ${JSON.stringify(r.error)}`);
  return r.value as Summary;
}

function byKey(w: KichoWorld): Map<string, Record<string, unknown>> {
  return new Map(w.ledger().map((r) => [String(r.キー), r]));
}

function approve(w: KichoWorld, keys: readonly string[], account = '消耗品費'): void {
  for (const key of keys) {
    w.edit(key, '勘定科目', account);
    w.edit(key, '操作', '承認');
  }
}

/** What MF's own screen (or any other client) does: journalize the line. */
function journalizeInMf(mf: FakeMf, transactionId: string): Journal {
  const token = mf.issueAccessToken('oauth');
  const res = mf.handle({
    method: 'POST',
    url: `${API}/api/v3/transactions/journalize`,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ transaction_id: transactionId, account_id: mf.findAccount('雑費').id }),
  });
  assert.equal(res.status, 201, res.body);
  return (JSON.parse(res.body) as { journal: Journal }).journal;
}

function rowIn(w: KichoWorld, from: string, to = '9999-12-31'): Record<string, unknown> {
  const row = w
    .ledger()
    .find((r) => String(r.取引日) >= from && String(r.取引日) <= to && r.状態 === '未判定');
  assert.ok(row, `a 未判定 row dated ${from}..${to}`);
  return row;
}

/** A line dated before the first accounting period (2025-04-01), imported with the window widened. */
function lineBeforeFirstPeriod(w: KichoWorld): string {
  const [line] = w.mf.addTransactions([
    { date: '2025-03-20', value: 4400, side: 'EXPENSE', content: 'ｷｼｭﾏｴ ｼｮｳﾋﾝ' },
  ]);
  assert.ok(line);
  w.setSetting('取込開始日', '2025-03-01');
  run(w, 'importTransactions');
  return `mf:${line.id}`;
}

describe('1. every journal listing is split by accounting period', () => {
  test('import finds the journal of a line journalized in MF’s own screen in the second period of the window', () => {
    const w = kichoWorld();
    run(w, 'importTransactions');
    const row = rowIn(w, '2026-04-01');
    const journal = journalizeInMf(w.mf, String(row.明細ID));
    run(w, 'importTransactions');
    const after = byKey(w).get(String(row.キー));
    assert.equal(after?.状態, '完了');
    assert.equal(after?.MF仕訳ID, journal.id, 'the journal of the second period was listed');
  });
});

describe('2. a date outside every accounting period goes to 要確認; the rest of the run goes on', () => {
  test('an import whose window starts before the first period runs', () => {
    const w = kichoWorld();
    run(w, 'importTransactions');
    journalizeInMf(w.mf, String(rowIn(w, '2026-01-01').明細ID));
    w.setSetting('取込開始日', '2025-01-01');
    const r = run(w, 'importTransactions');
    assert.equal(r.ok, true, JSON.stringify(r));
  });

  test('a line dated before the first period is not sent: 要確認 with a Japanese メモ; the others are posted', () => {
    const w = kichoWorld();
    run(w, 'importTransactions');
    const outside = lineBeforeFirstPeriod(w);
    const inside = String(rowIn(w, '2026-01-01').キー);
    approve(w, [outside, inside]);
    w.mf.clearRequestLog();
    const r = run(w, 'postApproved');
    assert.equal(r.posted, 1);
    const rows = byKey(w);
    assert.equal(rows.get(inside)?.状態, '完了');
    assert.equal(rows.get(outside)?.状態, '要確認');
    assert.match(
      String(rows.get(outside)?.メモ),
      /取引日 2025-03-20 は MF のどの会計期間にも入らないため送信しません/,
    );
    assert.equal(
      w.mf.requestLog.filter((e) => e.path.endsWith('/journalize')).length,
      1,
      'only the inside row sent',
    );
  });

  test('a CSV line dated outside every period goes to 要確認 when it is classified, not to 失敗 when posted', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    const csv = ['日付,摘要,出金,入金', '2025/03/20,ﾀｸｼｰ ｺｳﾂｳ,1500,', '2026/05/20,ﾀｸｼｰ ｺｳﾂｳ,1600,'].join(
      '\n',
    );
    run(w, 'importCsv', [csv, '○○銀行']);
    run(w, 'classifyPending');
    const rows = w.ledger().filter((r) => String(r.キー).startsWith('csv:'));
    const old = rows.find((r) => r.取引日 === '2025-03-20');
    const fresh = rows.find((r) => r.取引日 === '2026-05-20');
    assert.equal(old?.状態, '要確認');
    assert.match(String(old?.メモ), /取引日 2025-03-20 は MF のどの会計期間にも入らない/);
    assert.notEqual(fresh?.状態, '要確認', JSON.stringify(fresh));
  });

  test('reconcile: a 不明 row outside every period goes to 要確認 and the other 不明 row is found', () => {
    const w = kichoWorld();
    run(w, 'importTransactions');
    const outside = lineBeforeFirstPeriod(w);
    const inside = String(rowIn(w, '2026-01-01').キー);
    approve(w, [inside]);
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { path: '/api/v3/transactions/journalize' } });
    run(w, 'postApproved');
    assert.equal(byKey(w).get(inside)?.状態, '不明');
    w.edit(outside, '状態', '不明');
    const r = run(w, 'reconcile');
    assert.equal(r.ok, true, JSON.stringify(r));
    const rows = byKey(w);
    assert.equal(rows.get(inside)?.状態, '完了');
    assert.equal(rows.get(outside)?.状態, '要確認');
    assert.match(String(rows.get(outside)?.メモ), /会計期間にも入らないため、MF で照合できません/);
  });
});

describe('3. a refused journalize is looked up before anything is decided (either wording)', () => {
  for (const secondJournalize of ['generic', 'invented'] as const) {
    test(`journalized in MF meanwhile → 完了 with MF’s journal, not 失敗 (${secondJournalize} wording)`, () => {
      const w = kichoWorld({ secondJournalize });
      run(w, 'importTransactions');
      const row = rowIn(w, '2026-01-01');
      approve(w, [String(row.キー)]);
      const journal = journalizeInMf(w.mf, String(row.明細ID));
      const r = run(w, 'postApproved');
      const after = byKey(w).get(String(row.キー));
      assert.equal(after?.状態, '完了', JSON.stringify({ after, r }));
      assert.equal(after?.MF仕訳ID, journal.id);
      assert.equal(w.mf.journalsForTransaction(String(row.明細ID)).length, 1);
    });
  }

  test('still 未仕訳 in MF → 失敗 with MF’s code explained in Japanese', () => {
    const w = kichoWorld();
    run(w, 'importTransactions');
    const row = rowIn(w, '2026-01-01');
    approve(w, [String(row.キー)]);
    w.mf.injectFault({ kind: '403', match: { path: '/api/v3/transactions/journalize' } });
    run(w, 'postApproved');
    const after = byKey(w).get(String(row.キー));
    assert.equal(after?.状態, '失敗');
    assert.match(
      String(after?.メモ),
      /「仕訳の登録、更新、削除」の権限（mfc\/accounting\/journal\.write）がありません/,
    );
    assert.match(String(after?.メモ), /APIキー管理/);
    assert.doesNotMatch(String(after?.メモ), /再試行|直して/);
  });
});

describe('4. ids are compared by canonical form (journal.transaction_id spelt %2b)', () => {
  test('reconcile finds a journal whose transaction_id differs from the line id in hex case', () => {
    const w = kichoWorld({ transactionIdForm: 'lowercase-hex' });
    run(w, 'importTransactions');
    const row = rowIn(w, '2026-01-01');
    approve(w, [String(row.キー)]);
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { path: '/api/v3/transactions/journalize' } });
    run(w, 'postApproved');
    run(w, 'reconcile');
    assert.equal(byKey(w).get(String(row.キー))?.状態, '完了');
  });

  test('restore keys rebuilt rows by the line id as listed, so nothing is posted twice', () => {
    const w = kichoWorld({ transactionIdForm: 'lowercase-hex' });
    run(w, 'importTransactions');
    const keys = w
      .ledger()
      .slice(0, 3)
      .map((r) => String(r.キー));
    approve(w, keys);
    run(w, 'postApproved');
    const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(sheet);
    sheet.rows.splice(1);
    const restored = run(w, 'restoreLedgerFromMf');
    assert.equal(restored.restored, 3, JSON.stringify(restored));
    const rows = byKey(w);
    for (const key of keys) assert.equal(rows.get(key)?.状態, '完了', key);
  });
});

describe('6. 摘要 is cut by characters within the document’s maxLength', () => {
  test('a long description of surrogate pairs is cut at 200 characters, never in half a character', () => {
    const w = kichoWorld();
    const content = `a${'𠮷'.repeat(250)}`;
    const [line] = w.mf.addTransactions([{ date: '2026-05-11', value: 1200, side: 'EXPENSE', content }]);
    assert.ok(line);
    run(w, 'importTransactions');
    approve(w, [`mf:${line.id}`]);
    run(w, 'postApproved');
    const sent = w.emu.world.fetch.log.filter((r) => r.url.includes('/journalize')).at(-1);
    const remark = JSON.parse(sent?.body ?? '{}').remark as string;
    assert.equal(remark, Array.from(content).slice(0, 200).join(''));
    assert.equal(byKey(w).get(`mf:${line.id}`)?.状態, '完了');
  });
});

describe('7. per_page: the document’s maximum, and 100 when MF refuses more', () => {
  test('journal listings ask per_page=10000', () => {
    const w = kichoWorld();
    w.mf.clearRequestLog();
    run(w, 'restoreLedgerFromMf');
    const listings = w.mf.requestLog.filter((e) => e.path === '/api/v3/journals');
    assert.ok(listings.length > 0);
    assert.ok(
      listings.every((e) => /(^|&)per_page=10000(&|$)/.test(e.query)),
      JSON.stringify(listings),
    );
  });

  test('a 400 to per_page=10000 is retried once with 100, and 100 is kept for the rest of the run', () => {
    const w = kichoWorld({ journalsPerPageMax: 100 });
    run(w, 'importTransactions');
    approve(
      w,
      w
        .ledger()
        .slice(0, 4)
        .map((r) => String(r.キー)),
    );
    run(w, 'postApproved');
    const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(sheet);
    sheet.rows.splice(1);
    w.mf.clearRequestLog();
    const restored = run(w, 'restoreLedgerFromMf');
    assert.equal(restored.restored, 4, JSON.stringify(restored));
    const listings = w.mf.requestLog.filter((e) => e.path === '/api/v3/journals');
    assert.equal(listings.filter((e) => e.status === 400).length, 1, 'one refusal in the run');
    assert.ok(listings.slice(1).every((e) => /per_page=100(&|$)/.test(e.query) && e.status === 200));
  });
});

describe('journals kicho finds carry its tag', () => {
  test('a posted row’s journal is the one with its tag (sanity for the cases above)', () => {
    const w = kichoWorld();
    run(w, 'importTransactions');
    const key = String(rowIn(w, '2026-01-01').キー);
    approve(w, [key]);
    run(w, 'postApproved');
    assert.equal(w.mf.journalsByTag(remoteTagOf(key)).length, 1);
  });
});
