/**
 * 重複点検 and 重複を削除 on the built bundle against a fake MF book with planted duplicates of every kind
 * (issue 16) — the same line journalized twice, one 台帳 row's tag on two journals, a CSV line and a bank
 * line of the same money, a transfer journalized from both accounts, a journal typed by hand next to the
 * line's — and genuine twins that must never be proposed; then deletes that time out, are killed, or are
 * refused, each checked against MF and the 台帳.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { editRow, records } from '../../sim/person';
import { remoteTagOf } from '../../src/core/keys';
import { ok, plantedWorld } from '../helpers/duplicate-book';
import type { KichoWorld } from '../helpers/kicho';

const SHEET = '重複点検';

type Row = Record<string, unknown>;

function sheetRows(w: KichoWorld): Row[] {
  return records(w.emu.world, SHEET);
}

/** The sheet's groups: label → rows. */
function groups(w: KichoWorld): Map<string, Row[]> {
  const out = new Map<string, Row[]>();
  for (const r of sheetRows(w)) out.set(String(r.グループ), [...(out.get(String(r.グループ)) ?? []), r]);
  return out;
}

function groupOf(w: KichoWorld, journalId: string): Row[] {
  const row = sheetRows(w).find((r) => r.仕訳ID === journalId);
  assert.ok(row, `journal ${journalId} is on the sheet`);
  return groups(w).get(String(row.グループ)) ?? [];
}

function proposals(rows: Row[]): Record<string, string> {
  return Object.fromEntries(rows.map((r) => [String(r.仕訳ID), String(r.提案)]));
}

function choose(w: KichoWorld, journalId: string, operation: '残す' | '削除'): void {
  editRow(w.emu.world, SHEET, '仕訳ID', journalId, '操作', operation);
}

/** The token of the plan the confirmation dialog shows (as its 削除する button sends it). */
function dialogToken(w: KichoWorld): { token: string; rows: { id: string }[] } {
  const before = w.emu.world.ui.events.length;
  ok(w, 'openDuplicateDeletion');
  const shown = w.emu.world.ui.events.slice(before).find((e) => e.type === 'modal');
  assert.ok(shown?.html, 'the confirmation dialog is shown');
  const m = /const PLAN = (\{.*\});/.exec(shown.html);
  assert.ok(m);
  return JSON.parse(m[1]);
}

function deletes(w: KichoWorld): number {
  return w.mf.requestLog.filter((e) => e.method === 'DELETE').length;
}

function exists(w: KichoWorld, id: string): boolean {
  return w.mf.journals().some((j) => j.id === id);
}

describe('auditDuplicates', () => {
  test('finds every planted kind with its cause and proposal; genuine twins and the rest are never proposed', () => {
    const { w, planted: p } = plantedWorld();
    w.mf.requestLog.length = 0;
    const summary = ok(w, 'auditDuplicates');
    assert.equal(summary.ok, true, summary.messages.join('\n'));
    // One journal listing for the window (one accounting period, one page of up to 10,000).
    const listings = w.mf.requestLog.filter((e) => e.path === '/api/v3/journals');
    assert.equal(listings.length, 1);
    assert.match(listings[0].query, /per_page=10000/);

    const sameLine = groupOf(w, p.sameLine.copy);
    assert.deepEqual(proposals(sameLine), { [p.sameLine.kept]: '残す', [p.sameLine.copy]: '削除候補' });
    assert.match(String(sameLine[0].推定原因), /同じ明細から仕訳が 2 件.*ほぼ同時/);
    assert.equal(sameLine.find((r) => r.仕訳ID === p.sameLine.copy)?.作成元, 'MFで明細から仕訳');
    assert.equal(sameLine.find((r) => r.仕訳ID === p.sameLine.kept)?.作成元, 'kicho（MFの明細から）');

    const sameTag = groupOf(w, p.sameTag.copy);
    assert.deepEqual(proposals(sameTag), { [p.sameTag.kept]: '残す', [p.sameTag.copy]: '削除候補' });
    assert.match(String(sameTag[0].推定原因), /同じ行（同じタグ）.*時間をおいて/);
    assert.equal(sameTag.find((r) => r.仕訳ID === p.sameTag.copy)?.台帳のキー, p.sameTag.key);

    const csv = groupOf(w, p.csvAndLine.csv);
    assert.deepEqual(proposals(csv), { [p.csvAndLine.line]: '残す', [p.csvAndLine.csv]: '削除候補' });
    assert.match(String(csv[0].推定原因), /CSV（取込元「ネットバンク（CSV）」）/);
    assert.equal(csv.find((r) => r.仕訳ID === p.csvAndLine.csv)?.作成元, 'kicho（CSVから）');

    const hand = groupOf(w, p.hand.hand);
    assert.deepEqual(proposals(hand), { [p.hand.line]: '残す', [p.hand.hand]: '削除候補' });
    assert.match(String(hand[0].推定原因), /手入力/);
    assert.equal(hand.find((r) => r.仕訳ID === p.hand.hand)?.作成元, 'その他（手入力）');

    const transfer = groupOf(w, p.transfer.ids[0]);
    assert.deepEqual(transfer.map((r) => r.仕訳ID).sort(), [...p.transfer.ids].sort());
    assert.deepEqual(
      transfer.map((r) => r.提案),
      ['残す', '削除候補'],
    );
    assert.match(String(transfer[0].推定原因), /振替/);

    const twins = groupOf(w, p.twins.ids[0]);
    assert.deepEqual(twins.map((r) => r.仕訳ID).sort(), [...p.twins.ids].sort());
    assert.ok(twins.every((r) => r.提案 === '残す（本当の取引の可能性）'));

    // Everything else the book happens to hold is two statement lines alike: shown, never proposed.
    const plantedIds = new Set([
      p.sameLine.copy,
      p.sameTag.copy,
      p.csvAndLine.csv,
      p.hand.hand,
      ...p.transfer.ids,
    ]);
    for (const [label, rows] of groups(w)) {
      if (rows.some((r) => plantedIds.has(String(r.仕訳ID)))) continue;
      assert.ok(
        rows.every((r) => r.提案 !== '削除候補'),
        `group ${label} proposes nothing for deletion: ${JSON.stringify(rows.map((r) => [r.摘要, r.作成元]))}`,
      );
    }
    assert.equal(summary.toDelete, 5);
    assert.match(summary.messages.join(' '), /重複を削除/);
    // The audit changed nothing in MF.
    assert.equal(deletes(w), 0);
  });

  test('a re-run keeps people’s 操作 and メモ on groups that still exist; a vanished group goes', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameLine.copy, '削除');
    editRow(w.emu.world, SHEET, '仕訳ID', p.sameLine.copy, 'メモ', '経理の田中さんに確認済み');
    choose(w, p.hand.hand, '残す');
    // Someone deletes the hand-typed journal in MF's own screen: that group is gone at the next audit.
    w.mf.handle({
      method: 'DELETE',
      url: `https://api-accounting.moneyforward.com/api/v3/journals/${encodeURIComponent(p.hand.hand)}?office_code=1234-5678`,
      headers: { Authorization: `Bearer ${w.mf.issueAccessToken()}` },
    });
    ok(w, 'auditDuplicates');
    const row = sheetRows(w).find((r) => r.仕訳ID === p.sameLine.copy);
    assert.equal(row?.操作, '削除');
    assert.equal(row?.メモ, '経理の田中さんに確認済み');
    assert.ok(!sheetRows(w).some((r) => r.仕訳ID === p.hand.hand || r.仕訳ID === p.hand.line));
  });
});

describe('重複を削除', () => {
  test('the confirmed plan is deleted once each; the 台帳 rows become 除外 or keep their own journal', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    for (const id of [p.sameLine.copy, p.sameTag.copy, p.csvAndLine.csv, p.hand.hand, p.transfer.ids[1]])
      choose(w, id, '削除');
    const plan = dialogToken(w);
    assert.equal(plan.rows.length, 5);
    const r = ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(r.ok, true, r.messages.join('\n'));
    assert.equal(r.count, 5);
    assert.equal(deletes(w), 5);
    for (const id of [p.sameLine.copy, p.sameTag.copy, p.csvAndLine.csv, p.hand.hand, p.transfer.ids[1]])
      assert.ok(!exists(w, id), `${id} deleted`);
    for (const id of [p.sameLine.kept, p.sameTag.kept, p.csvAndLine.line, p.hand.line, p.transfer.ids[0]])
      assert.ok(exists(w, id), `${id} kept`);
    const byKey = new Map(w.ledger().map((x) => [String(x.キー), x]));
    // The CSV row's journal was deleted: 除外, never posted again.
    assert.equal(byKey.get(p.csvAndLine.csvKey)?.状態, '除外');
    assert.match(String(byKey.get(p.csvAndLine.csvKey)?.メモ), /重複点検で MF の仕訳 .* を削除したため除外/);
    // The transfer's second row too (MF made its line 対象外).
    assert.equal(byKey.get(p.transfer.keys[1])?.状態, '除外');
    assert.equal(byKey.get(p.transfer.keys[0])?.状態, '完了');
    // Rows whose own journal survived are untouched.
    assert.equal(byKey.get(p.sameLine.key)?.状態, '完了');
    assert.equal(byKey.get(p.sameLine.key)?.MF仕訳ID, p.sameLine.kept);
    assert.equal(byKey.get(p.sameTag.key)?.状態, '完了');
    const rows = sheetRows(w);
    for (const id of [p.sameLine.copy, p.csvAndLine.csv]) {
      const row = rows.find((x) => x.仕訳ID === id);
      assert.equal(row?.状態, '削除済み');
      assert.match(String(row?.結果), /owner@example\.com が .* に MF から削除しました/);
    }
    // Logged with who (ログ's own columns) and what.
    const log = records(w.emu.world, 'ログ')[0];
    assert.equal(log.処理, '重複の削除');
    assert.equal(log.実行者, 'owner@example.com');
    assert.match(String(log.メッセージ), new RegExp(p.csvAndLine.csv.replace(/[%+]/g, '.')));
    // Nothing is posted again, and the plan is spent: a second confirmation deletes nothing.
    ok(w, 'postApproved');
    ok(w, 'reconcile');
    assert.equal(w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(p.csvAndLine.csvKey))).length, 0);
    const again = dialogToken(w);
    assert.equal(again.rows.length, 0);
    ok(w, 'deleteDuplicates', [again.token]);
    assert.equal(deletes(w), 5);
    // A re-run of the audit keeps the history of what was deleted.
    ok(w, 'auditDuplicates');
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '削除済み');
  });

  test('a DELETE that commits and times out is looked up: 削除済み, never sent twice', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameLine.copy, '削除');
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { method: 'DELETE' } });
    const r = ok(w, 'deleteDuplicates', [dialogToken(w).token]);
    assert.equal(r.count, 1, r.messages.join('\n'));
    assert.equal(deletes(w), 1);
    assert.ok(!exists(w, p.sameLine.copy));
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.sameLine.copy)?.状態, '削除済み');
  });

  test('a DELETE that times out before MF acted is looked up: still there, nothing resent, a person confirms again', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameLine.copy, '削除');
    w.mf.injectFault({ kind: 'timeout-before-commit', match: { method: 'DELETE' } });
    const r = ok(w, 'deleteDuplicates', [dialogToken(w).token]);
    assert.equal(r.count, 0);
    assert.match(r.messages.join(' '), /MF に残っていました/);
    assert.equal(deletes(w), 1, 'sent once, never resent by itself');
    assert.ok(exists(w, p.sameLine.copy));
    const row = sheetRows(w).find((x) => x.仕訳ID === p.sameLine.copy);
    assert.equal(row?.状態, '');
    assert.equal(row?.操作, '削除');
    assert.match(String(row?.結果), /もう一度「重複を削除」から確認/);
    // The person confirms again: now it goes.
    ok(w, 'deleteDuplicates', [dialogToken(w).token]);
    assert.equal(deletes(w), 2);
    assert.ok(!exists(w, p.sameLine.copy));
  });

  test('an outcome MF cannot tell (timeout, then the lookup fails) is 不明 until the next audit looks it up', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.csvAndLine.csv, '削除');
    w.mf.injectFault({ kind: 'commit-then-timeout', match: { method: 'DELETE' } });
    const token = dialogToken(w).token;
    // The listing before the DELETE answers; the look-up by id after it does not.
    let gets = 0;
    w.emu.world.beforeCall = (_exec, call) => {
      if (
        call.s === 'fetch' &&
        /journals\/[^?]+\?/.test(JSON.stringify(call.a)) &&
        !/DELETE|delete/.test(JSON.stringify(call.a))
      ) {
        gets++;
        if (gets === 1) w.mf.injectFault({ kind: 'timeout-before-commit', match: { method: 'GET' } });
      }
      return undefined;
    };
    const r = ok(w, 'deleteDuplicates', [token]);
    w.emu.world.beforeCall = undefined;
    assert.match(r.messages.join(' '), /削除できたかわかりません/);
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '不明');
    // The 台帳 row is left as it was until MF can tell.
    assert.equal(w.ledger().find((x) => x.キー === p.csvAndLine.csvKey)?.状態, '完了');
    const audit = ok(w, 'auditDuplicates');
    assert.match(audit.messages.join(' '), /前回の削除の結果を MF で確かめ/);
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '削除済み');
    assert.equal(w.ledger().find((x) => x.キー === p.csvAndLine.csvKey)?.状態, '除外');
    assert.equal(deletes(w), 1);
  });

  test('killed after the claim, before the DELETE: 削除中 stays through its lease, then is found not sent', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameTag.copy, '削除');
    const token = dialogToken(w).token;
    w.emu.world.beforeCall = (_exec, call) =>
      call.s === 'fetch' && /"delete"|DELETE/i.test(JSON.stringify(call.a)) ? 'kill' : undefined;
    assert.equal(w.run('deleteDuplicates', { args: [token] }).status, 'killed');
    w.emu.world.beforeCall = undefined;
    assert.equal(deletes(w), 0);
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.sameTag.copy)?.状態, '削除中');
    // Within the lease another run leaves the claim alone.
    ok(w, 'auditDuplicates');
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.sameTag.copy)?.状態, '削除中');
    w.emu.world.clock.advance(11 * 60_000);
    const audit = ok(w, 'auditDuplicates');
    assert.match(audit.messages.join(' '), /前回の削除の結果を MF で確かめ/);
    const row = sheetRows(w).find((x) => x.仕訳ID === p.sameTag.copy);
    assert.equal(row?.状態, '');
    assert.match(String(row?.結果), /届いていませんでした/);
    assert.ok(exists(w, p.sameTag.copy));
    assert.equal(deletes(w), 0, 'a claim is never sent without a new confirmation');
  });

  test('killed after the DELETE, before the settle: found gone after the lease, the 台帳 settled', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.csvAndLine.csv, '削除');
    const token = dialogToken(w).token;
    let sent = false;
    w.emu.world.beforeCall = (_exec, call) => {
      if (sent) return 'kill';
      if (call.s === 'fetch' && /"delete"|DELETE/i.test(JSON.stringify(call.a))) sent = true;
      return undefined;
    };
    assert.equal(w.run('deleteDuplicates', { args: [token] }).status, 'killed');
    w.emu.world.beforeCall = undefined;
    assert.equal(deletes(w), 1);
    assert.ok(!exists(w, p.csvAndLine.csv));
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '削除中');
    assert.equal(w.ledger().find((x) => x.キー === p.csvAndLine.csvKey)?.状態, '完了');
    w.emu.world.clock.advance(11 * 60_000);
    ok(w, 'auditDuplicates');
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '削除済み');
    assert.equal(w.ledger().find((x) => x.キー === p.csvAndLine.csvKey)?.状態, '除外');
    assert.equal(deletes(w), 1);
  });

  test('MF refusing our authentication stops the deletes: the rest not sent, every claim settled back to no state', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    const chosen = [p.sameLine.copy, p.sameTag.copy, p.csvAndLine.csv];
    for (const id of chosen) choose(w, id, '削除');
    const token = dialogToken(w).token;
    w.mf.injectFault({ kind: '401-once', match: { method: 'DELETE' }, times: Number.POSITIVE_INFINITY });
    const r = ok(w, 'deleteDuplicates', [token]);
    assert.equal(r.count, 0);
    assert.equal(r.returned, 3, r.messages.join('\n'));
    // The client asks again once after a 401 (a token refresh); no other journal is sent.
    const targets = new Set(w.mf.requestLog.filter((e) => e.method === 'DELETE').map((e) => e.path));
    assert.equal(targets.size, 1, 'the first refusal stops the run');
    for (const id of chosen) {
      assert.ok(exists(w, id));
      const row = sheetRows(w).find((x) => x.仕訳ID === id);
      assert.equal(row?.状態, '', `${id}: its claim settled`);
      assert.equal(row?.操作, '削除');
      assert.match(String(row?.結果), /削除を送りませんでした/);
    }
    assert.match(String(sheetRows(w).find((x) => x.仕訳ID === chosen[1])?.結果), /MF への送信を止めた/);
  });

  test('重複を削除 itself looks up a claim a killed run left, once its lease is over, before its own plan', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.csvAndLine.csv, '削除');
    const first = dialogToken(w).token;
    let sent = false;
    w.emu.world.beforeCall = (_exec, call) => {
      if (sent) return 'kill';
      if (call.s === 'fetch' && /"delete"|DELETE/i.test(JSON.stringify(call.a))) sent = true;
      return undefined;
    };
    assert.equal(w.run('deleteDuplicates', { args: [first] }).status, 'killed');
    w.emu.world.beforeCall = undefined;
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '削除中');
    w.emu.world.clock.advance(11 * 60_000);
    choose(w, p.sameLine.copy, '削除');
    const r = ok(w, 'deleteDuplicates', [dialogToken(w).token]);
    assert.deepEqual([...(r.deletedIds as string[])].sort(), [p.csvAndLine.csv, p.sameLine.copy].sort());
    assert.equal(sheetRows(w).find((x) => x.仕訳ID === p.csvAndLine.csv)?.状態, '削除済み');
    assert.equal(w.ledger().find((x) => x.キー === p.csvAndLine.csvKey)?.状態, '除外');
    assert.equal(deletes(w), 2, 'the killed run’s journal is looked up, never sent again');
  });

  test('a journal a row in 台帳アーカイブ holds is not deleted: bring the row back first; other deletes go ahead', () => {
    const { w, planted: p } = plantedWorld();
    w.setSetting('アーカイブまでの月数', '0');
    ok(w, 'archiveLedger');
    assert.ok(
      !w.ledger().some((r) => r.キー === p.sameLine.key),
      'the row holding the kept journal is archived',
    );
    ok(w, 'auditDuplicates');
    // The person overrides the proposal and deletes the journal the archived row posted (and the hand one).
    choose(w, p.sameLine.kept, '削除');
    choose(w, p.hand.hand, '削除');
    const r = ok(w, 'deleteDuplicates', [dialogToken(w).token]);
    assert.match(r.messages.join(' '), /1 件は台帳アーカイブの行が登録した仕訳のため削除していません/);
    assert.ok(exists(w, p.sameLine.kept), 'the archived row’s journal stays in MF');
    assert.ok(!exists(w, p.hand.hand), 'the other delete went ahead');
    assert.equal(deletes(w), 1);
    const row = sheetRows(w).find((x) => x.仕訳ID === p.sameLine.kept);
    assert.match(
      String(row?.結果),
      /台帳アーカイブの行（キー .*）が登録した仕訳のため、削除していません。.*アーカイブから戻す/,
    );
    assert.notEqual(row?.状態, '削除済み');
  });

  test('a journal changed in MF after the audit is not deleted: the person is told to audit again', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.hand.hand, '削除');
    const token = dialogToken(w).token;
    // Someone corrects the hand-typed journal in MF (another amount) before the delete is confirmed.
    const j = w.mf.journals().find((x) => x.id === p.hand.hand);
    assert.ok(j);
    const body = {
      journal: {
        transaction_date: j.transaction_date,
        journal_type: 'journal_entry',
        branches: j.branches.map((b) => ({
          remark: b.remark,
          debitor: { account_id: b.debitor.account_id, value: b.debitor.value + b.debitor.tax_value + 100 },
          creditor: {
            account_id: b.creditor.account_id,
            sub_account_id: b.creditor.sub_account_id,
            value: b.creditor.value + b.creditor.tax_value + 100,
          },
        })),
      },
    };
    const put = w.mf.handle({
      method: 'PUT',
      url: `https://api-accounting.moneyforward.com/api/v3/journals/${encodeURIComponent(j.id)}?office_code=1234-5678`,
      headers: { Authorization: `Bearer ${w.mf.issueAccessToken()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    assert.equal(put.status, 200, put.body);
    const r = ok(w, 'deleteDuplicates', [token]);
    assert.match(r.messages.join(' '), /点検のあとで MF の仕訳が変わっていた/);
    assert.equal(deletes(w), 0);
    assert.ok(exists(w, p.hand.hand));
    assert.match(String(sheetRows(w).find((x) => x.仕訳ID === p.hand.hand)?.結果), /もう一度「重複点検」/);
  });

  test('refusals: a whole group, a sheet changed after the dialog, a trigger, another office', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameLine.copy, '削除');
    choose(w, p.sameLine.kept, '削除');
    const whole = dialogToken(w);
    assert.equal(whole.rows.length, 0, 'a group never loses every journal');
    ok(w, 'deleteDuplicates', [whole.token]);
    assert.equal(deletes(w), 0);

    choose(w, p.sameLine.kept, '残す');
    const plan = dialogToken(w);
    choose(w, p.hand.hand, '削除');
    const changed = ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(changed.ok, false);
    assert.match(changed.messages.join(' '), /変わったため、何も削除しませんでした/);
    assert.equal(deletes(w), 0);

    const fromTrigger = w.run('deleteDuplicates', {
      kind: 'trigger',
      args: [{ triggerUid: 't1', authMode: 'FULL' }],
    });
    assert.equal(fromTrigger.status, 'ok');
    assert.match(
      (fromTrigger.value as { messages: string[] }).messages.join(' '),
      /定期実行からは削除しません/,
    );
    assert.equal(deletes(w), 0);

    w.emu.world.properties.script.set(
      'KICHO_OFFICE',
      JSON.stringify({ code: '9999-0000', name: '別の会社', scriptId: w.emu.world.scriptId }),
    );
    const other = ok(w, 'deleteDuplicates', [dialogToken(w).token]);
    assert.equal(other.ok, false);
    assert.match(other.messages.join(' '), /別の会社/);
    assert.equal(deletes(w), 0);
  });
});
