/**
 * 重複を削除 under rough handling, as people do it (issue 25): a copy of the 残す row pasted and chosen, a row
 * moved into another group, the hidden record edited or deleted, the journal to keep deleted in MF's own
 * screen between the audit and the delete. The groups come from the audit's record, never from the sheet.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deleteLedgerRow, editRow, records } from '../../sim/person';
import { ok, plantedWorld } from '../helpers/duplicate-book';
import type { KichoWorld } from '../helpers/kicho';

const SHEET = '重複点検';

type Row = Record<string, unknown>;

function sheetRows(w: KichoWorld): Row[] {
  return records(w.emu.world, SHEET);
}

function sheetOf(w: KichoWorld, name: string) {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === name);
  assert.ok(s, `sheet ${name}`);
  return s;
}

/** The sheet row number (2-based) of a journal's first row. */
function rowOf(w: KichoWorld, journalId: string): number {
  const i = sheetRows(w).findIndex((r) => r.仕訳ID === journalId);
  assert.ok(i >= 0, `journal ${journalId} is on the sheet`);
  return i + 2;
}

function column(w: KichoWorld, header: string): number {
  const s = sheetOf(w, SHEET);
  for (let c = 1; c <= s.lastColumn(); c++) if (s.value(1, c) === header) return c;
  throw new Error(`no ${header}`);
}

function choose(w: KichoWorld, journalId: string, operation: '残す' | '削除'): void {
  editRow(w.emu.world, SHEET, '仕訳ID', journalId, '操作', operation);
}

/** A person copies a whole row and pastes it below the last one; returns the new row's number. */
function pasteCopyOfRow(w: KichoWorld, journalId: string): number {
  const s = sheetOf(w, SHEET);
  const from = rowOf(w, journalId);
  const to = s.lastRow() + 1;
  for (let c = 1; c <= s.lastColumn(); c++) s.setValue(to, c, s.value(from, c) as never);
  return to;
}

function setCell(w: KichoWorld, row: number, header: string, value: unknown): void {
  sheetOf(w, SHEET).setValue(row, column(w, header), value as never);
}

/** The plan the confirmation dialog shows (its token is what its 削除する button sends). */
function dialog(w: KichoWorld): { token: string; rows: { id: string }[]; refused: string[] } {
  const before = w.emu.world.ui.events.length;
  ok(w, 'openDuplicateDeletion');
  const shown = w.emu.world.ui.events.slice(before).find((e) => e.type === 'modal');
  assert.ok(shown?.html, 'the confirmation dialog is shown');
  const m = /const PLAN = (\{.*\});/.exec(shown.html);
  assert.ok(m);
  return JSON.parse(m[1]);
}

function kichoDeletes(w: KichoWorld): number {
  return w.mf.requestLog.filter((e) => e.method === 'DELETE').length;
}

function exists(w: KichoWorld, id: string): boolean {
  return w.mf.journals().some((j) => j.id === id);
}

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

function ledgerRow(w: KichoWorld, key: string): Row {
  const row = w.ledger().find((r) => r.キー === key);
  assert.ok(row, `row ${key}`);
  return row;
}

describe('重複を削除 takes the groups from the audit, not from the sheet', () => {
  test('a pasted copy of the 残す row chosen with the other journal: refused, both journals stay, both rows named', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameLine.copy, '削除');
    const original = rowOf(w, p.sameLine.kept);
    const pasted = pasteCopyOfRow(w, p.sameLine.kept);
    setCell(w, pasted, '操作', '削除');
    const plan = dialog(w);
    assert.equal(plan.rows.length, 0, 'nothing of the group is offered for deletion');
    const why = plan.refused.join('\n');
    assert.match(why, new RegExp(`${original}・${pasted} 行目に同じ仕訳`));
    assert.match(why, /余分な行を消してから/);
    const r = ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 0);
    assert.ok(exists(w, p.sameLine.kept) && exists(w, p.sameLine.copy));
    assert.match(r.messages.join(' '), /行目に同じ仕訳/);
    // The reason is on the chosen rows too.
    assert.match(String(sheetRows(w).find((x) => x.仕訳ID === p.sameLine.copy)?.結果), /余分な行を消して/);
    assert.equal(ledgerRow(w, p.sameLine.key).状態, '完了');
    assert.equal(ledgerRow(w, p.sameLine.key).MF仕訳ID, p.sameLine.kept);
  });

  test('a row moved into another group does not keep that group: refused, nothing deleted, no メモ naming it', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    const label = String(sheetRows(w).find((x) => x.仕訳ID === p.sameLine.kept)?.グループ);
    const moved = rowOf(w, p.hand.hand);
    // The hand-typed journal's row is moved into the same-line group, which now seems to keep it.
    setCell(w, moved, 'グループ', label);
    choose(w, p.sameLine.kept, '削除');
    choose(w, p.sameLine.copy, '削除');
    const plan = dialog(w);
    assert.equal(plan.rows.length, 0);
    assert.match(plan.refused.join('\n'), new RegExp(`${moved} 行目の仕訳 .* は、重複点検ではグループ G-`));
    ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 0);
    assert.ok(exists(w, p.sameLine.kept) && exists(w, p.sameLine.copy));
    const row = ledgerRow(w, p.sameLine.key);
    assert.equal(row.状態, '完了');
    assert.doesNotMatch(String(row.メモ), new RegExp(p.hand.hand.replace(/[%+]/g, '.')));
  });

  test('a 削除 on a row moved out of its group is refused there too; the other groups go ahead', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    const label = String(sheetRows(w).find((x) => x.仕訳ID === p.hand.line)?.グループ);
    // The same-line copy is relabelled into the hand group and chosen; the csv group is chosen normally.
    setCell(w, rowOf(w, p.sameLine.copy), 'グループ', label);
    choose(w, p.sameLine.copy, '削除');
    choose(w, p.csvAndLine.csv, '削除');
    const plan = dialog(w);
    assert.deepEqual(
      plan.rows.map((r) => r.id),
      [p.csvAndLine.csv],
    );
    ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 1);
    assert.ok(exists(w, p.sameLine.copy));
    assert.ok(!exists(w, p.csvAndLine.csv));
  });

  test('the hidden record edited or deleted: nothing is deleted until 重複点検 runs again', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    const label = String(sheetRows(w).find((x) => x.仕訳ID === p.sameLine.kept)?.グループ);
    const book = w.emu.world.spreadsheet;
    const hidden = sheetOf(w, '重複点検記録');
    // A person unhides it and moves the hand-typed journal into the same-line group there (and on the
    // visible sheet), then chooses both journals of the line: the group would seem to keep the hand one.
    const text = String(hidden.value(1, 1));
    const record = JSON.parse(text);
    for (const m of record.members) if (m.id === p.hand.hand) m.group = label;
    hidden.setValue(1, 1, JSON.stringify(record) as never);
    setCell(w, rowOf(w, p.hand.hand), 'グループ', label);
    choose(w, p.sameLine.kept, '削除');
    choose(w, p.sameLine.copy, '削除');
    let plan = dialog(w);
    assert.equal(plan.rows.length, 0);
    assert.match(plan.refused.join(' '), /重複点検の記録.*書き換えられている.*もう一度「重複点検」/);
    ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 0);
    assert.ok(exists(w, p.sameLine.kept) && exists(w, p.sameLine.copy));
    // … or deletes it.
    book.sheets.splice(book.sheets.indexOf(hidden), 1);
    choose(w, p.sameLine.kept, '残す');
    plan = dialog(w);
    assert.equal(plan.rows.length, 0);
    ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 0);
    // A new audit records again (the moved row is put back where it belongs); the person's 操作 is kept.
    ok(w, 'auditDuplicates');
    plan = dialog(w);
    assert.deepEqual(
      plan.rows.map((r) => r.id),
      [p.sameLine.copy],
    );
    ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 1);
    assert.ok(exists(w, p.sameLine.kept));
  });

  test('the journal to keep deleted in MF after the audit: its copy is not deleted; why is on the row and in the summary', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.hand.hand, '削除');
    const plan = dialog(w);
    assert.equal(plan.rows.length, 1);
    // Someone deletes the journal kicho posted for the line, in MF's own screen.
    deleteInMf(w, p.hand.line);
    const r = ok(w, 'deleteDuplicates', [plan.token]);
    assert.equal(kichoDeletes(w), 0);
    assert.ok(exists(w, p.hand.hand), 'the line keeps the one journal it still has');
    assert.equal(r.ok, false);
    const said = r.messages.join(' ');
    assert.match(said, /残す仕訳がありません/);
    assert.match(said, /MF にありません（点検のあとで MF の画面などで削除されたか/);
    const row = sheetRows(w).find((x) => x.仕訳ID === p.hand.hand);
    assert.equal(row?.状態, '');
    assert.equal(row?.操作, '削除');
    assert.match(String(row?.結果), /このグループは削除していません.*もう一度「重複点検」/);
  });

  test('a genuine twin chosen for 削除: refused, its line keeps its only journal; said on the row and in the summary', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    const [kept, twin] = p.twins.ids;
    choose(w, twin, '削除');
    const r = ok(w, 'deleteDuplicates', [dialog(w).token]);
    assert.equal(kichoDeletes(w), 0);
    assert.ok(exists(w, twin) && exists(w, kept));
    assert.equal(r.ok, false);
    assert.match(r.messages.join(' '), /削除するとその明細の仕訳がなくなるため削除していません/);
    const row = sheetRows(w).find((x) => x.仕訳ID === twin);
    assert.equal(row?.状態, '');
    assert.match(String(row?.結果), /別々の本当の取引の可能性/);
    // The line behind it still has its journal on the 台帳.
    assert.ok(w.ledger().some((x) => x.MF仕訳ID === twin && x.状態 === '完了'));
  });

  test('a journal kicho posted whose 台帳 row a person deleted: not deleted (no row to settle), the row named as missing', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.sameTag.copy, '削除');
    const token = dialog(w).token;
    deleteLedgerRow(w.emu.world, p.sameTag.key);
    const r = ok(w, 'deleteDuplicates', [token]);
    assert.equal(kichoDeletes(w), 0);
    assert.ok(exists(w, p.sameTag.copy) && exists(w, p.sameTag.kept));
    assert.equal(r.ok, false);
    assert.match(r.messages.join(' '), /台帳に行がないため削除していません/);
    const row = sheetRows(w).find((x) => x.仕訳ID === p.sameTag.copy);
    assert.match(String(row?.結果), /台帳にその行がありません.*台帳を復元/);
  });

  test('the MF check before deleting is one listing for the groups, not a call per row', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    for (const id of [p.sameLine.copy, p.sameTag.copy, p.csvAndLine.csv, p.hand.hand, p.transfer.ids[1]])
      choose(w, id, '削除');
    const token = dialog(w).token;
    w.mf.requestLog.length = 0;
    const r = ok(w, 'deleteDuplicates', [token]);
    assert.equal(r.count, 5, r.messages.join('\n'));
    const gets = w.mf.requestLog.filter((e) => e.method === 'GET' && e.path.startsWith('/api/v3/journals'));
    assert.equal(gets.filter((e) => e.path !== '/api/v3/journals').length, 0, 'no journal asked for by id');
    // The planted groups lie within one month: one listing (one page).
    assert.equal(gets.length, 1);
  });

  test('after 重複を削除 the sent-rows watch does not report the excluded row as a row gone', () => {
    const { w, planted: p } = plantedWorld();
    ok(w, 'auditDuplicates');
    choose(w, p.csvAndLine.csv, '削除');
    ok(w, 'deleteDuplicates', [dialog(w).token]);
    assert.equal(ledgerRow(w, p.csvAndLine.csvKey).状態, '除外');
    const posted = ok(w, 'postApproved');
    assert.doesNotMatch(posted.messages.join(' '), /なくなっています/);
  });
});
