/**
 * The ledger archive (issue 18) end to end: the built bundle in the emulator against the fake MF, entry
 * points by name. 古い行をアーカイブ moves old 完了・除外 rows to 台帳アーカイブ in one pass; imports, CSV
 * re-imports, events, 台帳を復元 and the lost-ledger guard treat archived keys as present; a kill at any
 * Sheets call of the archive run loses no row and posts nothing twice; a row comes back with 戻す.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseIndex } from '../../src/core/archive';
import { remoteTag } from '../../src/core/keys';
import { records as recordsOf } from '../../sim/person';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

const ARCHIVE = '台帳アーカイブ';
const INDEX = 'アーカイブ索引';

function approve(w: KichoWorld, keys: readonly string[], account = '消耗品費'): void {
  for (const key of keys) {
    w.edit(key, '勘定科目', account);
    w.edit(key, '操作', '承認');
  }
}

function ok(w: KichoWorld, name: string, args?: unknown[]) {
  const r = w.run(name, args ? { args } : {});
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r.value as { ok: boolean; count: number; messages: string[] } & Record<string, unknown>;
}

function archived(w: KichoWorld): Record<string, unknown>[] {
  return w.emu.world.spreadsheet.sheets.some((s) => s.name === ARCHIVE) ? recordsOf(w.emu.world, ARCHIVE) : [];
}

function indexEntries(w: KichoWorld): Map<string, string> {
  const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === INDEX);
  if (!sheet) return new Map();
  const cells: unknown[][] = [];
  for (let r = 1; r <= sheet.lastRow(); r++) cells.push([sheet.rows[r - 1]?.v[0] ?? '']);
  return parseIndex(cells).index.entries;
}

/** A world with some rows posted (完了), some excluded (除外) and the rest left open. */
function postedWorld(): { w: KichoWorld; done: string[]; excluded: string[]; open: string[] } {
  const w = kichoWorld();
  ok(w, 'importTransactions');
  const keys = w.ledger().map((r) => String(r.キー));
  const done = keys.slice(0, 6);
  const excluded = keys.slice(6, 9);
  approve(w, done);
  for (const k of excluded) w.edit(k, '操作', '除外');
  ok(w, 'postApproved');
  return { w, done, excluded, open: keys.slice(9) };
}

/** Every key of the 台帳 and the archive with where it is; throws on a key live twice. */
function places(w: KichoWorld): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const r of w.ledger()) out.set(String(r.キー), [...(out.get(String(r.キー)) ?? []), '台帳']);
  for (const r of archived(w)) out.set(String(r.キー), [...(out.get(String(r.キー)) ?? []), 'archive']);
  return out;
}

function journalCount(w: KichoWorld, key: string): number {
  return w.mf.journals().filter((j) => j.tags.includes(remoteTag(key))).length;
}

describe('archive', () => {
  test('with the setting empty nothing moves, and the run says what to set', () => {
    const { w } = postedWorld();
    const before = w.ledger().length;
    const r = ok(w, 'archiveLedger');
    assert.equal(r.ok, false);
    assert.match(r.messages.join(' '), /アーカイブまでの月数/);
    assert.equal(w.ledger().length, before);
    assert.equal(archived(w).length, 0);
  });

  test('an invalid setting names its cell and moves nothing', () => {
    const { w } = postedWorld();
    w.setSetting('アーカイブまでの月数', '三か月');
    const r = ok(w, 'archiveLedger');
    assert.equal(r.ok, false);
    assert.match(r.messages.join(' '), /設定 B\d+ アーカイブまでの月数: 「三か月」は使えません/);
    assert.equal(archived(w).length, 0);
  });

  test('old 完了 and 除外 rows move in one pass; open rows stay; every key is in one place', () => {
    const { w, done, excluded, open } = postedWorld();
    w.setSetting('アーカイブまでの月数', '0');
    const beforeRows = new Map(w.ledger().map((r) => [String(r.キー), r]));
    const r = ok(w, 'archiveLedger');
    assert.equal(r.ok, true, r.messages.join(' '));
    assert.equal(r.count, done.length + excluded.length);
    const live = new Set(w.ledger().map((x) => String(x.キー)));
    for (const k of [...done, ...excluded]) assert.ok(!live.has(k), k);
    for (const k of open) assert.ok(live.has(k), k);
    const arch = new Map(archived(w).map((x) => [String(x.キー), x]));
    for (const k of [...done, ...excluded]) {
      const row = arch.get(k);
      assert.ok(row, k);
      const was = beforeRows.get(k) as Record<string, unknown>;
      for (const h of ['状態', '取引日', '金額', '摘要', 'MF仕訳ID', '指紋', '明細ID', '勘定科目'])
        assert.equal(row?.[h], was[h], `${k} ${h}`);
      assert.notEqual(String(row?.アーカイブ日時), '');
    }
    const entries = indexEntries(w);
    assert.equal(entries.size, done.length + excluded.length);
    for (const k of done) assert.equal(entries.get(remoteTag(k).slice(3)), 'm');
    for (const k of excluded) assert.equal(entries.get(remoteTag(k).slice(3)), 'x');
    for (const [k, at] of places(w)) assert.equal(at.length, 1, `${k} in ${at}`);
    // The index sheet is hidden and the archive is not mistaken for a renamed 台帳.
    assert.equal(w.emu.world.spreadsheet.sheets.find((s) => s.name === INDEX)?.props.hidden, true);
  });
});
