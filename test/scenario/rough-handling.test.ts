/**
 * The 台帳 in rough hands (issue 14): what people do to a sheet they live in — clear a header, rename
 * or delete the 台帳, type into system columns, keep typing while a run works, delete rows — on the
 * built bundle against the fake MF. Each case ends safe (nothing posted twice, nothing lost), clear (a
 * message that says what is wrong and what to do) and honest (no 成功 for work that did not happen).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SheetModel } from '../../sim/gas/services/sheets-model';
import { postToWebApp } from '../../sim/gas/web-app';
import { remoteTagOf } from '../../src/core/keys';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld, records } from '../helpers/kicho';

const MINUTE = 60_000;

type Summary = { ok: boolean; count: number; messages: string[]; [k: string]: unknown };

function summary(r: { status: string; value?: unknown; error?: unknown }): Summary {
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return r.value as Summary;
}

function sheet(w: KichoWorld, name: string): SheetModel {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === name);
  assert.ok(s, `no sheet ${name}`);
  return s;
}

function col(w: KichoWorld, header: string, name = '台帳'): number {
  const s = sheet(w, name);
  for (let c = 1; c <= s.lastColumn(); c++) if (s.value(1, c) === header) return c;
  throw new Error(`no header ${header}`);
}

function lastLog(w: KichoWorld): Record<string, unknown> {
  return records(w.emu, 'ログ')[0];
}

function journalsFor(w: KichoWorld, key: string) {
  return w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));
}

/** Imported and classified by the example rules: most rows 送信待ち. */
function classified(): KichoWorld {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  summary(w.run('importTransactions'));
  summary(w.run('classifyPending'));
  return w;
}

function keysIn(w: KichoWorld, state: string): string[] {
  return w
    .ledger()
    .filter((r) => r.状態 === state)
    .map((r) => String(r.キー));
}

function everyLineOnce(w: KichoWorld): void {
  const keys = w.ledger().map((r) => String(r.キー));
  assert.equal(new Set(keys).size, keys.length, 'a line on two rows');
  for (const t of w.mf.transactions()) {
    if (t.journalizing_status === 'none') assert.ok(keys.includes(`mf:${t.id}`), `line ${t.id} lost`);
  }
  const tags = new Map<string, number>();
  for (const j of w.mf.journals()) for (const t of j.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
  for (const [t, n] of tags) assert.equal(n, 1, `${n} journals with ${t}`);
}

describe('a damaged header row stops every run before it reads or writes', () => {
  test('キー header cleared: import and post refuse (失敗, says what to do), nothing is appended or sent; 初期設定 puts it back over its column', () => {
    const w = classified();
    const waiting = keysIn(w, '送信待ち');
    assert.ok(waiting.length > 0);
    const rows = w.ledger().length;
    const ledger = sheet(w, '台帳');
    const lastRow = ledger.lastRow();
    const journals = w.mf.journals().length;
    ledger.setValue(1, col(w, 'キー'), '');
    for (const name of ['importTransactions', 'importTransactions', 'postApproved', 'runScheduled']) {
      const r = summary(w.run(name));
      assert.equal(r.ok, false, name);
      const text = r.messages.join('\n');
      assert.match(text, /見出し「キー」が見つかりません/, name);
      assert.match(text, /初期設定/, name);
      assert.equal(lastLog(w).結果, '失敗', name);
    }
    assert.equal(ledger.lastRow(), lastRow, 'no row appended');
    assert.equal(w.mf.journals().length, journals, 'nothing sent');
    const setup = summary(w.run('setup'));
    assert.match(setup.messages.join('\n'), /A 列に見出し「キー」を戻しました/);
    assert.equal(ledger.value(1, 1), 'キー');
    assert.equal(w.ledger().length, rows);
    const posted = summary(w.run('postApproved'));
    assert.equal(posted.ok, true);
    assert.equal(posted.posted, waiting.length);
    summary(w.run('importTransactions'));
    assert.equal(w.ledger().length, rows, 'every line on exactly one row again');
    everyLineOnce(w);
  });

  test('the whole header row cleared: import reports nothing as added (it refuses); 初期設定 restores every header where it was', () => {
    const w = classified();
    const ledger = sheet(w, '台帳');
    const lastRow = ledger.lastRow();
    const width = ledger.lastColumn();
    for (let c = 1; c <= width; c++) ledger.setValue(1, c, '');
    const r = summary(w.run('importTransactions'));
    assert.equal(r.ok, false);
    assert.equal(r.count, 0);
    assert.doesNotMatch(r.messages.join('\n'), /件を台帳に追加しました/);
    assert.equal(ledger.lastRow(), lastRow);
    summary(w.run('setup'));
    const header = Array.from({ length: LEDGER_HEADERS.length }, (_, i) => ledger.value(1, i + 1));
    assert.deepEqual(header, LEDGER_HEADERS.slice());
    assert.equal(ledger.lastColumn(), width, 'no new column beside the old ones');
    const again = summary(w.run('postApproved'));
    assert.equal(again.ok, true);
    everyLineOnce(w);
  });

  test('whole header row cleared with columns people had reordered: 初期設定 follows the remembered layout', () => {
    const w = classified();
    const ledger = sheet(w, '台帳');
    // A person swaps 摘要 and 金額 (columns move with their data), then clears row 1.
    const a = col(w, '金額');
    const b = col(w, '摘要');
    for (const row of ledger.rows) {
      if (!row) continue;
      while (row.v.length < Math.max(a, b)) row.v.push('');
      [row.v[a - 1], row.v[b - 1]] = [row.v[b - 1], row.v[a - 1]];
    }
    summary(w.run('dryRun')); // a run that finds every header remembers where they are
    for (let c = 1; c <= ledger.lastColumn(); c++) ledger.setValue(1, c, '');
    summary(w.run('setup'));
    assert.equal(ledger.value(1, a), '摘要');
    assert.equal(ledger.value(1, b), '金額');
    assert.ok(w.ledger().every((r) => typeof r.金額 === 'number'));
  });

  test('金額 header renamed: one message that the column is missing (not one per row); 初期設定 renames it back', () => {
    const w = classified();
    const c = col(w, '金額');
    sheet(w, '台帳').setValue(1, c, '金額(円)');
    const r = summary(w.run('postApproved'));
    assert.equal(r.ok, false);
    const text = r.messages.join('\n');
    assert.match(text, /見出し「金額」が見つかりません/);
    assert.doesNotMatch(text, /正の整数ではありません/);
    assert.ok(r.messages.length <= 3, text);
    const setup = summary(w.run('setup'));
    assert.match(setup.messages.join('\n'), /見出し「金額\(円\)」を「金額」に戻しました/);
    assert.equal(sheet(w, '台帳').value(1, c), '金額');
    assert.equal(summary(w.run('postApproved')).ok, true);
  });
});

describe('the 台帳 sheet renamed or deleted', () => {
  test('renamed: runs refuse and name the sheet that looks like it; no empty 台帳 appears; 初期設定 does not make a second one', () => {
    const w = classified();
    sheet(w, '台帳').name = '台帳 (1)';
    for (const name of ['importTransactions', 'postApproved', 'restoreLedgerFromMf', 'reconcile']) {
      const r = summary(w.run(name));
      assert.equal(r.ok, false, name);
      assert.match(
        r.messages.join('\n'),
        /シート「台帳 \(1\)」が台帳のようです。名前を「台帳」に戻してください/,
        name,
      );
    }
    const csv = summary(w.run('importCsv', { args: ['日付,摘要,出金,入金\n2026/05/01,ﾃｽﾄ,100,', 'カード'] }));
    assert.equal(csv.ok, false);
    const setup = summary(w.run('setup'));
    assert.equal(setup.ok, false);
    assert.match(setup.messages.join('\n'), /新しい台帳は作っていません/);
    assert.equal(
      w.emu.world.spreadsheet.sheets.filter((s) => s.name === '台帳').length,
      0,
      'no headerless 台帳 created',
    );
    sheet(w, '台帳 (1)').name = '台帳';
    assert.equal(summary(w.run('postApproved')).ok, true);
    everyLineOnce(w);
  });

  test('deleted: import, CSV import and 台帳を復元 refuse instead of reporting counts; 初期設定 recreates it, 台帳を復元 brings back what was posted', () => {
    const w = classified();
    const posted = summary(w.run('postApproved'));
    assert.ok(Number(posted.posted) > 0);
    const model = w.emu.world.spreadsheet;
    model.sheets = model.sheets.filter((s) => s.name !== '台帳');
    for (const name of ['importTransactions', 'restoreLedgerFromMf', 'postApproved']) {
      const r = summary(w.run(name));
      assert.equal(r.ok, false, name);
      assert.match(r.messages.join('\n'), /シート「台帳」が見つかりません/, name);
      assert.equal(lastLog(w).結果, '失敗', name);
    }
    const csv = summary(w.run('importCsv', { args: ['日付,摘要,出金,入金\n2026/05/01,ﾃｽﾄ,100,', 'カード'] }));
    assert.equal(csv.ok, false);
    assert.ok(!model.sheets.some((s) => s.name === '台帳'), 'no run but 初期設定 creates the 台帳');
    const setup = summary(w.run('setup'));
    assert.match(setup.messages.join('\n'), /台帳を復元/);
    const restored = summary(w.run('restoreLedgerFromMf'));
    assert.equal(restored.ok, true);
    assert.equal(restored.count, Number(posted.posted));
    assert.equal(
      w.ledger().filter((r) => r.状態 === '完了').length,
      posted.posted,
      'the count is what the sheet holds',
    );
    summary(w.run('importTransactions'));
    summary(w.run('classifyPending'));
    summary(w.run('postApproved'));
    everyLineOnce(w);
  });
});

describe('system columns typed over', () => {
  test('状態 cleared, or 完了 typed on a 送信待ち row: listed on 要確認 at once, looked up by reconcile, then 要確認 (nothing found) or 完了 (found)', () => {
    const w = classified();
    const [donePosted] = keysIn(w, '送信待ち');
    summary(w.run('postApproved')); // posts everything waiting…
    // …then two lines a person approves: 送信待ち, not sent yet.
    const fresh = keysIn(w, '要確認').slice(0, 2);
    for (const k of fresh) {
      w.edit(k, '勘定科目', '消耗品費');
      w.edit(k, '操作', '承認');
    }
    summary(w.run('classifyPending'));
    assert.deepEqual(
      fresh.map((k) => w.ledger().find((r) => r.キー === k)?.状態),
      ['送信待ち', '送信待ち'],
    );
    w.edit(fresh[0], '状態', '');
    w.edit(fresh[1], '状態', '完了');
    w.edit(donePosted, '状態', ''); // a posted row's 状態 cleared too
    summary(w.run('openReview'));
    const review = new Set(records(w.emu, '要確認').map((r) => String(r.キー)));
    for (const k of [...fresh, donePosted]) assert.ok(review.has(k), `${k} on 要確認`);
    summary(w.run('postApproved'));
    for (const k of fresh) assert.equal(journalsFor(w, k).length, 0, 'not sent');
    summary(w.run('reconcile'));
    const byKey = () => new Map(w.ledger().map((r) => [String(r.キー), r]));
    assert.equal(byKey().get(donePosted)?.状態, '完了', 'its journal was found');
    assert.ok(String(byKey().get(donePosted)?.MF仕訳ID) !== '');
    w.emu.advance(16 * MINUTE);
    summary(w.run('reconcile'));
    for (const k of fresh) {
      const r = byKey().get(k);
      assert.equal(r?.状態, '要確認', k);
      assert.match(String(r?.メモ), /MFにこの明細の仕訳は見つかりません/);
    }
    for (const k of fresh) w.edit(k, '操作', '承認');
    summary(w.run('postApproved'));
    for (const k of fresh) assert.equal(journalsFor(w, k).length, 1);
    everyLineOnce(w);
  });

  test('金額 or 取引日 edited on a 送信待ち MF row: stopped before sending, 要確認 with MF’s value in メモ; put back and approved, it is posted once', () => {
    const w = classified();
    const [a, b] = keysIn(w, '送信待ち');
    const rowOf = (k: string) => w.ledger().find((r) => r.キー === k);
    const amount = Number(rowOf(a)?.金額);
    const date = String(rowOf(b)?.取引日);
    w.edit(a, '金額', amount * 10);
    w.edit(b, '取引日', '2026-05-31');
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, a).length, 0);
    assert.equal(journalsFor(w, b).length, 0);
    assert.equal(rowOf(a)?.状態, '要確認');
    assert.match(
      String(rowOf(a)?.メモ),
      new RegExp(
        `金額: MF ${amount.toLocaleString('ja-JP')} 円 / 台帳 ${(amount * 10).toLocaleString('ja-JP')} 円`,
      ),
    );
    assert.equal(rowOf(b)?.状態, '要確認');
    assert.match(String(rowOf(b)?.メモ), new RegExp(`取引日: MF 「${date}」 / 台帳 「2026-05-31」`));
    w.edit(a, '金額', amount);
    w.edit(b, '取引日', date);
    for (const k of [a, b]) w.edit(k, '操作', '承認');
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, a).length, 1);
    assert.equal(journalsFor(w, b).length, 1);
  });

  test('an mf: キー edited by one character is never sent; the next import gives it back its key (no second row)', () => {
    const w = classified();
    const [k] = keysIn(w, '送信待ち');
    const broken = `${k.slice(0, -1)}${k.endsWith('A') ? 'B' : 'A'}`;
    w.edit(k, 'キー', broken);
    const rows = w.ledger().length;
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, broken).length, 0);
    const id = k.slice(3);
    assert.equal(
      w.mf.journals().filter((j) => j.transaction_id === id).length,
      0,
      'its line not journalized',
    );
    const row = w.ledger().find((r) => r.キー === broken);
    assert.equal(row?.状態, '要確認');
    assert.match(String(row?.メモ), /明細ID「.*」と合いません/);
    const imported = summary(w.run('importTransactions'));
    assert.match(imported.messages.join('\n'), /キーを元に戻しました/);
    assert.equal(w.ledger().length, rows, 'no second row for the line');
    w.edit(k, '操作', '承認');
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, k).length, 1);
    everyLineOnce(w);
  });
});

const CARD_CSV = [
  '日付,摘要,出金,入金',
  '2026/05/01,ｱﾏｿﾞﾝ ﾏｰｹｯﾄﾌﾟﾚｲｽ,1200,',
  '2026/05/02,ﾀｸｼｰ ﾆﾎﾝｺｳﾂｳ,3400,',
  '2026/05/03,ﾃｽｳﾘﾖｳ,220,',
].join('\n');

function csvWorld() {
  const w = kichoWorld();
  w.addRules(EXAMPLE_RULES);
  summary(w.run('importCsv', { args: [CARD_CSV, '○○カード'] }));
  summary(w.run('classifyPending'));
  return w;
}

const csvKeys = (w: KichoWorld) =>
  w
    .ledger()
    .filter((r) => String(r.キー).startsWith('csv:'))
    .map((r) => String(r.キー));

describe('CSV rows typed over', () => {
  test('a CSV キー edited by one character, then the same CSV imported again: one journal for the line, and the key comes back', () => {
    const w = csvWorld();
    const waiting = csvKeys(w).filter((k) => w.ledger().find((r) => r.キー === k)?.状態 === '送信待ち');
    assert.ok(waiting.length >= 2);
    const [k] = waiting;
    const broken = `${k.slice(0, -1)}${k.endsWith('0') ? '1' : '0'}`;
    w.edit(k, 'キー', broken);
    const again = summary(w.run('importCsv', { args: [CARD_CSV, '○○カード'] }));
    assert.equal(again.added, 0, 'no second row');
    summary(w.run('classifyPending'));
    summary(w.run('postApproved'));
    summary(w.run('importCsv', { args: [CARD_CSV, '○○カード'] }));
    summary(w.run('classifyPending'));
    summary(w.run('postApproved'));
    assert.equal(
      journalsFor(w, k).length + journalsFor(w, broken).length,
      1,
      'one journal for the bank line',
    );
    const keys = csvKeys(w);
    assert.equal(keys.length, 3);
    assert.equal(new Set(keys).size, 3);
  });

  test('a malformed CSV key is never sent; a CSV 金額 edit shows in the dry run and needs the value put back and a fresh 承認', () => {
    const w = csvWorld();
    const waiting = csvKeys(w).filter((k) => w.ledger().find((r) => r.キー === k)?.状態 === '送信待ち');
    const [bad, edited] = waiting;
    w.edit(bad, 'キー', 'csv:これは違う');
    const amount = Number(w.ledger().find((r) => r.キー === edited)?.金額);
    w.edit(edited, '金額', amount + 1);
    const dry = summary(w.run('dryRun'));
    assert.ok(!(dry.toSend as string[]).includes(edited));
    const plan = records(w.emu, 'ドライラン');
    const line = plan.find((r) => r.キー === edited);
    assert.equal(line?.区分, '要確認');
    assert.match(String(line?.内容), /取り込んだときの内容（キー）と合いません/);
    summary(w.run('postApproved'));
    assert.equal(w.mf.journals().filter((j) => j.tags.includes(remoteTagOf('csv:これは違う'))).length, 0);
    assert.equal(journalsFor(w, edited).length, 0);
    assert.equal(w.ledger().find((r) => r.キー === edited)?.状態, '要確認');
    w.edit(edited, '金額', amount);
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, edited).length, 0, 'not without a fresh 承認');
    w.edit(edited, '操作', '承認');
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, edited).length, 1);
  });
});

describe('a person typing while a run works', () => {
  test('勘定科目 typed into rows while classify is writing: the person’s input stays (on a row the rules decide, and on one they do not)', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    summary(w.run('importTransactions'));
    const rows = w.ledger();
    const ruled = rows.find((r) => /ｱﾏｿﾞﾝ|AMAZON/i.test(String(r.摘要)));
    const ruledIndex = rows.indexOf(ruled as never);
    const unruled = rows.find(
      (r, i) => i > ruledIndex && !/ｱﾏｿﾞﾝ|AMAZON|ﾀｸｼｰ|JR|ﾃｽｳﾘﾖｳ|ｽﾀｰﾊﾞｯｸｽ|ﾖﾄﾞﾊﾞｼ|NTT|ﾌﾘｺﾐ/i.test(String(r.摘要)),
    );
    assert.ok(ruled && unruled);
    const typed = [String(ruled.キー), String(unruled.キー)];
    let typedAt = -1;
    w.emu.world.beforeCall = (exec, call) => {
      // Inside the run's locked read–write, just before its first write lands.
      if (
        typedAt < 0 &&
        call.s === 'sheets' &&
        call.m.startsWith('setValue') &&
        w.emu.world.locks.holder('script') === exec.id
      ) {
        typedAt = exec.id;
        for (const k of typed) {
          w.edit(k, '勘定科目', '通信費');
          w.edit(k, '税区分', '課税仕入 10%');
          w.edit(k, '操作', '承認');
        }
      }
      return undefined;
    };
    const r = summary(w.run('classifyPending'));
    w.emu.world.beforeCall = undefined;
    assert.ok(typedAt >= 0);
    for (const k of typed) {
      const row = w.ledger().find((x) => x.キー === k);
      assert.equal(row?.勘定科目, '通信費', `${k} 勘定科目`);
      assert.equal(row?.税区分, '課税仕入 10%', `${k} 税区分`);
    }
    assert.match(r.messages.join('\n'), /入力を残して判定を書き込みませんでした/);
    summary(w.run('postApproved'));
    for (const k of typed) {
      const row = w.ledger().find((x) => x.キー === k);
      assert.equal(row?.状態, '完了', k);
      const [journal] = journalsFor(w, k);
      const account = w.mf.accounts().find((a) => a.name === '通信費');
      assert.equal(journal.branches[0].debitor?.account_id, account?.id, 'posted with what the person chose');
    }
  });
});

describe('honest summaries', () => {
  test('7 of 33 完了 rows deleted: the dry run and ログ say so with the way back; 台帳を復元 brings them back', () => {
    const w = classified();
    for (const k of keysIn(w, '要確認')) {
      w.edit(k, '勘定科目', '雑費');
      w.edit(k, '操作', '承認');
    }
    summary(w.run('postApproved'));
    const done = keysIn(w, '完了');
    assert.ok(done.length >= 20, `${done.length} posted`);
    const ledger = sheet(w, '台帳');
    const keyCol = col(w, 'キー');
    const gone = done.slice(3, 10);
    ledger.rows = ledger.rows.filter((row, i) => i === 0 || !gone.includes(String(row?.v[keyCol - 1])));
    const dry = summary(w.run('dryRun'));
    const warning = (dry.warnings as string[]).join('\n');
    assert.match(warning, /MFに送った行（完了・不明・送信中）が 7 行なくなっています/);
    assert.match(warning, /台帳を復元/);
    const scheduled = summary(
      w.run('runScheduled', { kind: 'trigger', args: [{ triggerUid: 't', authMode: 'FULL' }] }),
    );
    void scheduled;
    summary(w.run('postApproved'));
    assert.match(String(lastLog(w).メッセージ), /MFに送った行（完了・不明・送信中）が 7 行なくなっています/);
    summary(w.run('restoreLedgerFromMf'));
    const back = new Set(keysIn(w, '完了'));
    for (const k of gone) assert.ok(back.has(k), `${k} back as 完了`);
    const after = summary(w.run('dryRun'));
    assert.doesNotMatch((after.warnings as string[]).join('\n'), /なくなっています/);
    everyLineOnce(w);
  });

  test('MF authentication failing mid-post (a revoked token): 失敗, says MF authentication failed and to reconnect; rows stay 送信待ち', () => {
    const w = classified();
    const waiting = keysIn(w, '送信待ち');
    w.mf.injectFault({
      kind: '401-once',
      match: { method: 'POST', path: '/api/v3/transactions/journalize' },
      times: Number.POSITIVE_INFINITY,
    });
    const mark = w.emu.world.ui.events.length;
    const r = summary(w.run('postApproved'));
    assert.equal(r.ok, false);
    const text = r.messages.join('\n');
    assert.match(text, /MFの認証に失敗したため、登録を途中で止めました/);
    assert.match(text, /MFに接続/);
    assert.equal(lastLog(w).結果, '失敗');
    const alert = w.emu.world.ui.events.slice(mark).find((e) => e.type === 'alert');
    assert.match(String(alert?.title), /失敗/);
    assert.deepEqual(keysIn(w, '送信待ち').sort(), waiting.sort());
  });

  test('MF unreachable for a whole post: not 成功 — says nothing could be sent and why; rows stay 送信待ち', () => {
    const w = classified();
    const waiting = keysIn(w, '送信待ち');
    w.mf.injectFault({ kind: 'unreachable', times: Number.POSITIVE_INFINITY });
    const r = summary(w.run('postApproved'));
    assert.equal(r.ok, false);
    assert.match(r.messages.join('\n'), /MFに1件も送れませんでした/);
    assert.equal(lastLog(w).結果, '失敗');
    assert.deepEqual(keysIn(w, '送信待ち').sort(), waiting.sort());
  });

  test('an MF error body echoing a piece of the token (a prefix, a base64 copy) never reaches メモ', () => {
    const w = classified();
    const [k] = keysIn(w, '送信待ち');
    let token = '';
    const hosts = ['api-accounting.moneyforward.com', 'api.biz.moneyforward.com'];
    for (const host of hosts) {
      w.emu.world.fetch.route(host, (req) => {
        if (req.method === 'POST' && req.url.includes('/transactions/journalize')) {
          token = String(req.headers.Authorization ?? req.headers.authorization ?? '').replace(
            /^Bearer /,
            '',
          );
          const b64 = Buffer.from(`user:${token}`).toString('base64');
          return {
            status: 400,
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({
              errors: [
                { code: 'bad_request', message: `token ${token.slice(0, 12)}… was rejected (${b64})` },
              ],
            }),
          };
        }
        return w.mf.handle(req);
      });
    }
    summary(w.run('postApproved'));
    assert.ok(token.length >= 16, 'the token was seen');
    const memo = String(w.ledger().find((r) => r.キー === k)?.メモ);
    assert.match(memo, /MFが登録を受け付けませんでした/);
    assert.ok(!memo.includes(token.slice(0, 12)), memo);
    const b64 = Buffer.from(`user:${token}`).toString('base64');
    for (let i = 0; i + 8 <= b64.length - 8; i += 4)
      assert.ok(!memo.includes(b64.slice(8 + i, 16 + i)), memo);
  });
});

describe('設定 as people leave it', () => {
  function settingsRow(w: KichoWorld, item: string): number {
    const s = sheet(w, '設定');
    for (let r = 2; r <= s.lastRow(); r++) if (s.value(r, 1) === item) return r;
    throw new Error(item);
  }

  test('取込開始日 2026/13/45: the import names the cell and does not run (失敗), nothing imported', () => {
    const w = kichoWorld();
    w.setSetting('取込開始日', '2026/13/45');
    const r = summary(w.run('importTransactions'));
    assert.equal(r.ok, false);
    assert.match(
      r.messages.join('\n'),
      new RegExp(`設定 B${settingsRow(w, '取込開始日')} 取込開始日: 「2026/13/45」は日付として読めません`),
    );
    assert.equal(w.ledger().length, 0);
    assert.equal(lastLog(w).結果, '失敗');
  });

  test('取込開始日 row deleted: no silent default — the import stops and says 初期設定 puts the row back', () => {
    const w = kichoWorld();
    const s = sheet(w, '設定');
    s.rows.splice(settingsRow(w, '取込開始日') - 1, 1);
    const r = summary(w.run('importTransactions'));
    assert.equal(r.ok, false);
    assert.match(r.messages.join('\n'), /取込開始日: 行がありません/);
    assert.equal(w.ledger().length, 0);
    summary(w.run('setup'));
    w.setSetting('取込開始日', '2026-01-01');
    assert.equal(summary(w.run('importTransactions')).ok, true);
  });

  test('an empty 取込開始日 with an early 取込終了日 (an inverted window): the import says so instead of asking MF', () => {
    const w = kichoWorld();
    w.setSetting('取込開始日', '');
    w.setSetting('取込終了日', '2026-01-31');
    const r = summary(w.run('importTransactions'));
    assert.equal(r.ok, false);
    assert.match(r.messages.join('\n'), /取込期間の始まり.*が終わり（2026-01-31）より後/);
  });

  test('the same 項目 on two rows: an error naming both rows, and the import does not pick one', () => {
    const w = kichoWorld();
    const s = sheet(w, '設定');
    const extra = s.lastRow() + 1;
    s.setValue(extra, 1, '取込開始日');
    s.setValue(extra, 2, '2026-05-01');
    const r = summary(w.run('importTransactions'));
    assert.equal(r.ok, false);
    assert.match(
      r.messages.join('\n'),
      new RegExp(`取込開始日: 2 行（${settingsRow(w, '取込開始日')}・${extra} 行目）にあります`),
    );
    assert.equal(w.ledger().length, 0);
  });

  test('a typo in a 項目 name: a warning naming the closest known item', () => {
    const w = kichoWorld();
    const s = sheet(w, '設定');
    s.setValue(s.lastRow() + 1, 1, '最大試行回');
    const r = summary(w.run('importTransactions'));
    assert.equal(r.ok, true);
    assert.match(r.messages.join('\n'), /項目「最大試行回」はありません。「最大試行回数」のことなら/);
  });
});

describe('CSV files as banks and people make them', () => {
  test('one 摘要 of 60,000 characters: that line is refused by number, the rest imported', () => {
    const w = kichoWorld();
    const long = 'ｱ'.repeat(60_000);
    const text = [
      '日付,摘要,出金,入金',
      '2026/05/01,ﾃｽｳﾘﾖｳ,220,',
      `2026/05/02,${long},1000,`,
      '2026/05/03,ﾀｸｼｰ,3400,',
    ].join('\n');
    const r = summary(w.run('importCsv', { args: [text, '○○銀行'] }));
    assert.equal(r.added, 2);
    assert.match(r.messages.join('\n'), /3 行目: 摘要が長すぎます（60,000 文字/);
    assert.equal(w.ledger().length, 2);
  });

  test('a tab-separated file is read as such (not blamed on the encoding)', () => {
    const w = kichoWorld();
    const text = [
      '日付\t摘要\t出金\t入金',
      '2026/05/01\tﾃｽｳﾘﾖｳ, ｼﾃﾝ\t220\t',
      '2026/05/02\tﾌﾘｺﾐ ｶ)ﾐﾅﾐ\t\t55,000',
    ].join('\n');
    const r = summary(w.run('importCsv', { args: [text, '○○銀行'] }));
    assert.equal(r.ok, true, r.messages.join('\n'));
    assert.equal(r.added, 2);
    const rows = w.ledger();
    assert.deepEqual(
      rows.map((x) => [x.取引日, x.摘要, x.金額, x.入出金]),
      [
        ['2026-05-01', 'ﾃｽｳﾘﾖｳ, ｼﾃﾝ', 220, '出金'],
        ['2026-05-02', 'ﾌﾘｺﾐ ｶ)ﾐﾅﾐ', 55000, '入金'],
      ],
    );
  });

  test('dates far outside the books (2099, 1899): imported with a notice naming the lines and why', () => {
    const w = kichoWorld();
    const text = [
      '日付,摘要,出金,入金',
      '2026/11/01,ﾃｽｳﾘﾖｳ,220,',
      '2099/01/05,ﾀｸｼｰ,3400,',
      '1899/12/30,ｱﾏｿﾞﾝ,1200,',
    ].join('\n');
    const r = summary(w.run('importCsv', { args: [text, '○○銀行'] }));
    const out = r.messages.join('\n');
    assert.match(out, /3 行目: 取引日 2099-01-05 は今日（2026-11-30）より先の日付です/);
    assert.match(out, /4 行目: 取引日 1899-12-30 は 7 年以上前の日付です/);
    assert.doesNotMatch(out, /2 行目: 取引日/);
  });
  test('勘定科目 typed and the 台帳 sorted at the same moment inside classify’s write: the typed row keeps its input and its state, every row its own cells', () => {
    const w = kichoWorld();
    w.addRules(EXAMPLE_RULES);
    summary(w.run('importTransactions'));
    const before = new Map(w.ledger().map((r) => [String(r.キー), r]));
    const ruled = w.ledger().find((r) => /ｱﾏｿﾞﾝ|AMAZON/i.test(String(r.摘要)));
    assert.ok(ruled);
    const typed = String(ruled.キー);
    let acted = false;
    w.emu.world.beforeCall = (exec, call) => {
      if (
        !acted &&
        call.s === 'sheets' &&
        call.m.startsWith('setValue') &&
        w.emu.world.locks.holder('script') === exec.id
      ) {
        acted = true;
        w.edit(typed, '勘定科目', '通信費');
        // …and someone sorts by 摘要 (descending) in the same moment.
        const s = sheet(w, '台帳');
        const c = col(w, '摘要');
        const data = s.rows.slice(1, s.lastRow());
        data.sort((x, y) => String(y?.v[c - 1] ?? '').localeCompare(String(x?.v[c - 1] ?? ''), 'ja'));
        s.rows.splice(1, data.length, ...data);
      }
      return undefined;
    };
    summary(w.run('classifyPending'));
    w.emu.world.beforeCall = undefined;
    assert.ok(acted);
    const after = w.ledger();
    const row = after.find((r) => r.キー === typed);
    assert.equal(row?.勘定科目, '通信費', 'the person’s input stays');
    assert.equal(row?.状態, '未判定', 'its change held back: decided again on what the person typed');
    for (const r of after) {
      const was = before.get(String(r.キー));
      assert.ok(was, String(r.キー));
      for (const h of ['明細ID', '取引日', '金額', '摘要', '口座', '初回検知'] as const)
        assert.equal(String(r[h]), String(was[h]), `${r.キー} ${h}`);
    }
  });
});

describe('rows deleted while runs work', () => {
  test('rows deleted inside a locked claim write: no cells of ours are left on empty rows, every line posted once', () => {
    const w = classified();
    w.emu.world.spreadsheet.writeThrough = true;
    let deleted = false;
    w.emu.world.beforeCall = (exec, call) => {
      if (
        !deleted &&
        call.s === 'sheets' &&
        call.m.startsWith('setValue') &&
        w.emu.world.locks.holder('script') === exec.id
      ) {
        deleted = true;
        sheet(w, '台帳').rows.splice(3, 3);
      }
      return undefined;
    };
    summary(w.run('postApproved'));
    w.emu.world.beforeCall = undefined;
    assert.ok(deleted);
    const ledger = sheet(w, '台帳');
    for (let r = 2; r <= ledger.lastRow(); r++) {
      const key = ledger.value(r, col(w, 'キー'));
      if (key !== '') continue;
      const filled = (ledger.rows[r - 1]?.v ?? []).filter((v) => v !== '');
      assert.deepEqual(filled, [], `row ${r} holds cells of ours without a line`);
    }
    const tags = new Map<string, number>();
    for (const j of w.mf.journals()) for (const t of j.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
    for (const [t, n] of tags) assert.equal(n, 1, `${n} journals with ${t}`);
  });

  test('a row deleted just after its line was posted, while MF still lists the line as 未仕訳: it comes back 不明 and is never sent twice', () => {
    // MF's listings lag ten minutes behind a journalize (the fake's listingLagMs switch).
    const w = kichoWorld({ permissiveJournalize: true, listingLagMs: 10 * MINUTE });
    w.addRules(EXAMPLE_RULES);
    summary(w.run('importTransactions'));
    summary(w.run('classifyPending'));
    summary(w.run('postApproved'));
    const [k] = keysIn(w, '完了');
    assert.ok(k);
    // A person tidies the 台帳: the completed row goes.
    const ledger = sheet(w, '台帳');
    const keyCol = col(w, 'キー');
    ledger.rows = ledger.rows.filter((row, i) => i === 0 || String(row?.v[keyCol - 1]) !== k);
    const back = summary(w.run('importTransactions'));
    assert.match(back.messages.join('\n'), /少し前に送信した明細のため「不明」として追加しました/);
    assert.equal(w.ledger().find((r) => r.キー === k)?.状態, '不明');
    summary(w.run('classifyPending'));
    summary(w.run('postApproved'));
    assert.equal(journalsFor(w, k).length, 1, 'not sent again');
    w.emu.advance(30 * MINUTE);
    summary(w.run('reconcile'));
    const row = w.ledger().find((r) => r.キー === k);
    assert.equal(row?.状態, '完了');
    assert.equal(row?.MF仕訳ID, journalsFor(w, k)[0].id);
    assert.equal(journalsFor(w, k).length, 1);
  });
});

describe('a sort while a run writes', () => {
  /**
   * Simulation seed 91833 (--people-anytime): while a post was sending (the lock free), the web app
   * appended two events; then a person sorted the 台帳 by 勘定科目 just as the post's settle wrote. The
   * settle had read only its span (issue 18), not the two new rows, and the sort put them inside it: its
   * blocks gave them two MF lines' 状態 完了, MF仕訳ID and 明細ID. The repair put the MF rows right by key
   * but left the event rows as they were (it had never read them): the archive then took them for the MF
   * lines' rows, and the MF rows went; the two events were lost.
   */
  test('rows the write never read that a sort puts under it keep no cells of another line: 明細ID from their own key, 状態 for reconcile to settle', () => {
    const w = classified();
    const shop = w.emu.world.spreadsheet.sheets.find((x) => x.name === '取込元');
    assert.ok(shop);
    shop.setValue(shop.lastRow() + 1, 1, 'ショップ');
    shop.setValue(shop.lastRow(), 2, '売掛金');
    const made = w.run('rotateWebhookSecret');
    const secret = new URL(String((made.value as { fullUrl: string }).fullUrl)).searchParams.get('key');
    const mfRows = w.ledger().filter((r) => String(r.キー).startsWith('mf:'));
    assert.ok(mfRows.filter((r) => r.状態 === '送信待ち').length >= 2);
    const events = ['ord-1', 'ord-2'].map((id, i) => ({
      id,
      date: '2026-05-01',
      amount: 3300 + i,
      direction: '入金',
      description: `注文 ${id}`,
    }));
    let appended = false;
    let sorted = false;
    const post = { id: -1 };
    w.emu.world.beforeCall = (exec, call) => {
      const locked = w.emu.world.locks.holder('script') === exec.id;
      // The post sends (outside the lock): another automation's events arrive.
      if (!appended && exec.id === post.id && call.s === 'fetch' && !locked) {
        appended = true;
        const r = postToWebApp(w.emu, {
          query: { key: String(secret) },
          body: JSON.stringify({ source: 'ショップ', events }),
        });
        assert.equal(r.execution, 'ok', r.body);
      }
      // The settle's first write, inside the lock: a person sorts by 勘定科目 (the new rows have none).
      if (
        appended &&
        !sorted &&
        exec.id === post.id &&
        locked &&
        call.s === 'sheets' &&
        call.m.startsWith('setValue')
      ) {
        sorted = true;
        const s = sheet(w, '台帳');
        const c = col(w, '勘定科目');
        const data = s.rows.slice(1, s.lastRow());
        data.sort((x, y) => String(x?.v[c - 1] ?? '').localeCompare(String(y?.v[c - 1] ?? ''), 'ja'));
        s.rows.splice(1, data.length, ...data);
      }
      return undefined;
    };
    const exec = w.emu.open({ kind: 'menu', user: 'owner@example.com' });
    post.id = exec.state.id;
    exec.call('postApproved');
    exec.end();
    w.emu.world.beforeCall = undefined;
    assert.ok(appended && sorted, `appended ${appended}, sorted ${sorted}`);

    const evt = () => w.ledger().filter((r) => String(r.キー).startsWith('evt:'));
    assert.equal(evt().length, 2);
    for (const r of evt()) {
      assert.equal(r.明細ID, '', `${r.キー} carries no MF line's 明細ID`);
      assert.equal(r.MF仕訳ID, '', `${r.キー} carries no other line's journal`);
      assert.notEqual(r.状態, '完了', `${r.キー} is not 完了: it was never posted`);
    }
    for (const r of w.ledger().filter((x) => String(x.キー).startsWith('mf:')))
      assert.equal(`mf:${r.明細ID}`, r.キー, 'every MF row keeps its own 明細ID');
    const ids = w
      .ledger()
      .map((r) => String(r.明細ID))
      .filter((id) => id !== '');
    assert.equal(new Set(ids).size, ids.length, 'no 明細ID on two rows');

    // Reconcile settles the event rows (no journal: a person decides, told why); the archive moves only
    // the 完了 rows and every line stays in one place.
    w.emu.advance(20 * MINUTE);
    summary(w.run('reconcile'));
    w.emu.advance(20 * MINUTE);
    summary(w.run('reconcile'));
    for (const r of evt()) {
      assert.equal(r.状態, '要確認', String(r.キー));
      assert.match(String(r.メモ), /並べ替え/);
    }
    w.setSetting('アーカイブまでの月数', '0');
    summary(w.run('archiveLedger'));
    const archive = w.emu.world.spreadsheet.sheets.find((x) => x.name === '台帳アーカイブ');
    const archivedKeys: string[] = [];
    for (let r = 2; archive && r <= archive.lastRow(); r++) archivedKeys.push(String(archive.value(r, 1)));
    for (const m of mfRows) {
      const places =
        w.ledger().filter((r) => r.キー === m.キー).length + archivedKeys.filter((k) => k === m.キー).length;
      assert.equal(places, 1, `${m.キー} in exactly one place`);
    }
    assert.equal(evt().length, 2, 'the events stay on the 台帳');
    const tags = new Map<string, number>();
    for (const j of w.mf.journals()) for (const t of j.tags) tags.set(t, (tags.get(t) ?? 0) + 1);
    for (const [t, n] of tags) assert.equal(n, 1, `${n} journals with ${t}`);
  });
});
