/**
 * The ledger archive (issue 18) end to end: the built bundle in the emulator against the fake MF, entry
 * points by name. 古い行をアーカイブ moves old 完了・除外 rows to 台帳アーカイブ in one pass; imports, CSV
 * re-imports, events, 台帳を復元 and the lost-ledger guard treat archived keys as present; a kill at any
 * Sheets call of the archive run loses no row and posts nothing twice; a row comes back with 戻す.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clockEvent } from '../../sim/gas/index';
import { answerOf as answerOfRaw, postToWebApp } from '../../sim/gas/web-app';
import { records as recordsOf } from '../../sim/person';
import { parseIndex } from '../../src/core/archive';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

const ARCHIVE = '台帳アーカイブ';

type Answer = { results: { status: string; state?: string }[] } | null;
const answerOf = (r: Parameters<typeof answerOfRaw>[0]) => answerOfRaw(r) as Answer;
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
  return w.emu.world.spreadsheet.sheets.some((s) => s.name === ARCHIVE)
    ? recordsOf(w.emu.world, ARCHIVE)
    : [];
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
  return w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key))).length;
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
    for (const k of done) assert.equal(entries.get(remoteTagOf(k).slice(3)), 'm');
    for (const k of excluded) assert.equal(entries.get(remoteTagOf(k).slice(3)), 'x');
    for (const [k, at] of places(w)) assert.equal(at.length, 1, `${k} in ${at}`);
    // The index sheet is hidden and the archive is not mistaken for a renamed 台帳.
    assert.equal(w.emu.world.spreadsheet.sheets.find((s) => s.name === INDEX)?.props.hidden, true);
  });

  test('the nightly trigger backs up, then archives when the setting is on; a menu backup only backs up', () => {
    const { w, done, excluded } = postedWorld();
    const backups = () =>
      w.emu.world.spreadsheet.sheets.filter((s) => s.name.startsWith('台帳バックアップ ')).length;
    // Off: the nightly run is the backup alone.
    const off = w.run('backupLedger', {
      kind: 'trigger',
      args: [clockEvent('nightly', w.emu.world.clock.now())],
    });
    assert.equal(off.status, 'ok');
    assert.equal(archived(w).length, 0);
    assert.ok(backups() >= 1, 'backed up');
    w.setSetting('アーカイブまでの月数', '0');
    const menu = ok(w, 'backupLedger');
    assert.equal(archived(w).length, 0, 'a menu backup moves nothing');
    assert.doesNotMatch(menu.messages.join(' '), /アーカイブ:/);
    const night = w.run('backupLedger', {
      kind: 'trigger',
      args: [clockEvent('nightly', w.emu.world.clock.now())],
    });
    assert.equal(night.status, 'ok', JSON.stringify(night.error));
    const value = night.value as { ok?: boolean; messages: string[] };
    assert.notEqual(value.ok, false, value.messages.join(' '));
    assert.match(value.messages.join(' '), /アーカイブ: .*行を、シート「台帳アーカイブ」に移しました/);
    assert.equal(archived(w).length, done.length + excluded.length);
    for (const [k, at] of places(w)) assert.equal(at.length, 1, `${k} in ${at}`);
  });

  test('a second run moves nothing; a re-import brings no archived line back (除外 lines stay 未仕訳 in MF)', () => {
    const { w, excluded } = postedWorld();
    w.setSetting('アーカイブまでの月数', '0');
    ok(w, 'archiveLedger');
    const rows = w.ledger().length;
    assert.equal(ok(w, 'archiveLedger').count, 0);
    // MF still lists the excluded lines as 未仕訳: without the index they would come back as 未判定.
    const none = new Set(
      w.mf
        .transactions()
        .filter((t) => t.journalizing_status === 'none')
        .map((t) => `mf:${t.id}`),
    );
    for (const k of excluded) assert.ok(none.has(k), k);
    const r = ok(w, 'importTransactions');
    assert.equal(r.added, 0);
    assert.match(r.messages.join(' '), /アーカイブ済み/);
    assert.equal(w.ledger().length, rows);
    for (const [k, at] of places(w)) assert.equal(at.length, 1, `${k} in ${at}`);
  });

  test('CSV re-imports and resent events do not bring archived rows back', () => {
    const w = kichoWorld();
    const src = w.emu.world.spreadsheet.sheets.find((x) => x.name === '取込元');
    assert.ok(src);
    src.setValue(src.lastRow() + 1, 1, '○○銀行');
    src.setValue(src.lastRow(), 2, '普通預金');
    src.setValue(src.lastRow() + 1, 1, 'shop');
    src.setValue(src.lastRow(), 2, '売掛金');
    const csv = [
      '日付,摘要,出金,入金,残高',
      '2026/05/01,ﾃｽｳﾘﾖｳ,220,,98680',
      '2026/05/02,ﾌﾘｺﾐ ｶ)ﾐﾅﾐ,,"55,000",153680',
    ].join('\r\n');
    assert.equal(ok(w, 'importCsv', [csv, '○○銀行']).added, 2);
    const made = w.run('rotateWebhookSecret').value as { fullUrl: string };
    const secret = new URL(made.fullUrl).searchParams.get('key') as string;
    const body = JSON.stringify({
      source: 'shop',
      events: [{ id: 'o1', date: '2026-05-01', amount: 3300, direction: '入金', description: '注文 o1' }],
    });
    assert.equal(
      answerOf(postToWebApp(w.emu, { query: { key: secret }, body }))?.results[0].status,
      'accepted',
    );
    const keys = w.ledger().map((r) => String(r.キー));
    approve(w, keys.filter((k) => k.startsWith('csv:')).slice(0, 1), '支払手数料');
    for (const k of keys.filter((k) => !k.startsWith('csv:') || k !== keys[0])) w.edit(k, '操作', '除外');
    approve(w, [keys[0]], '支払手数料');
    ok(w, 'postApproved');
    w.setSetting('アーカイブまでの月数', '0');
    assert.equal(ok(w, 'archiveLedger').count, 3);
    assert.equal(w.ledger().length, 0);
    const again = ok(w, 'importCsv', [csv, '○○銀行']);
    assert.equal(again.added, 0);
    assert.equal(again.already, 2);
    const answer = answerOf(postToWebApp(w.emu, { query: { key: secret }, body }));
    assert.equal(answer?.results[0].status, 'duplicate');
    assert.equal(answer?.results[0].state, '除外');
    assert.equal(w.ledger().length, 0);
  });

  test('台帳を復元 does not rebuild archived rows, and the lost-ledger guard knows an archive from a loss', () => {
    const { w, done, open } = postedWorld();
    // Most rows become 除外 and move: the 台帳 keeps a handful (far under half of what the last run saw).
    for (const k of open.slice(4)) w.edit(k, '操作', '除外');
    ok(w, 'postApproved');
    w.setSetting('アーカイブまでの月数', '0');
    ok(w, 'archiveLedger');
    assert.ok(w.ledger().length < archived(w).length / 10, `${w.ledger().length} rows left`);
    approve(w, open.slice(0, 2));
    // Most of the 台帳 moved: far fewer rows than the last run saw, yet posting is not refused.
    const posted = ok(w, 'postApproved');
    assert.equal(posted.ok, true, posted.messages.join(' '));
    assert.doesNotMatch(posted.messages.join(' '), /大きく減って|なくなっています/);
    assert.equal(posted.count, 2);
    const dry = ok(w, 'dryRun');
    assert.doesNotMatch(JSON.stringify(dry), /大きく減って/);
    const restored = ok(w, 'restoreLedgerFromMf');
    assert.equal(restored.restored, 0, restored.messages.join(' '));
    assert.match(restored.messages.join(' '), /アーカイブ済み/);
    for (const k of done) assert.equal(journalCount(w, k), 1);
    for (const [k, at] of places(w)) assert.equal(at.length, 1, `${k} in ${at}`);
    // Beside a big archive, a 台帳 a person empties still stops posting (the count it should hold is
    // what the last run saw minus what is archived), and MF's journals of archived rows raise no alarm.
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    ledger.rows.splice(1, ledger.lastRow() - 1);
    const refused = ok(w, 'postApproved');
    assert.equal(refused.ok, false);
    assert.match(refused.messages.join(' '), /大きく減って/);
  });

  test('everything archived: an empty 台帳 beside the archive posts on, with no alarm', () => {
    const { w, open } = postedWorld();
    for (const k of open) w.edit(k, '操作', '除外');
    ok(w, 'postApproved');
    w.setSetting('アーカイブまでの月数', '0');
    ok(w, 'archiveLedger');
    assert.equal(w.ledger().length, 0);
    const post = ok(w, 'postApproved');
    assert.equal(post.ok, true, post.messages.join(' '));
    assert.doesNotMatch(JSON.stringify(ok(w, 'dryRun')), /大きく減って|台帳が空ですが/);
    assert.equal(ok(w, 'importTransactions').added, 0);
  });

  test('with an archive, rows a person deletes from the 台帳 still stop posting', () => {
    const { w, open } = postedWorld();
    w.setSetting('アーカイブまでの月数', '0');
    ok(w, 'archiveLedger');
    approve(w, open.slice(0, 2));
    // Everything but the two approved rows deleted by a person.
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    const keep = new Set(open.slice(0, 2));
    const col = (ledger.rows[0]?.v ?? []).indexOf('キー');
    const last = ledger.lastRow();
    const kept = ledger.rows.slice(1, last).filter((r) => keep.has(String(r?.v[col])));
    ledger.rows.splice(1, last - 1, ...kept);
    const refused = ok(w, 'postApproved');
    assert.equal(refused.ok, false);
    assert.match(refused.messages.join(' '), /大きく減って/);
    // And the archive run refuses too: moving more would muddle what 台帳を復元 relies on.
    const archive = ok(w, 'archiveLedger');
    assert.equal(archive.ok, false);
    assert.match(archive.messages.join(' '), /アーカイブも止めます/);
  });
});

/** A small posted world (ten days of lines) for the kill matrix: quick to build once per step. */
function smallWorld(writePolicy: 'buffer' | 'write-through') {
  const w = kichoWorld({ window: ['2026-05-01', '2026-05-12'] }, { writePolicy });
  ok(w, 'importTransactions');
  const keys = w.ledger().map((r) => String(r.キー));
  const done = keys.filter((_, i) => i % 3 === 0);
  const excluded = keys.filter((_, i) => i % 3 === 1);
  approve(w, done);
  for (const k of excluded) w.edit(k, '操作', '除外');
  ok(w, 'postApproved');
  w.setSetting('アーカイブまでの月数', '0');
  // Sorted by a person before: the moved rows are not one block.
  return { w, keys, done, excluded };
}

/** Kills the next execution at its n-th service call; returns the calls it saw. */
function killAt(w: KichoWorld, n: number): string[] {
  const seen: string[] = [];
  w.emu.world.beforeCall = (_exec, call) => {
    seen.push(`${call.s}.${call.m}`);
    return seen.length === n ? 'kill' : undefined;
  };
  return seen;
}

/**
 * Runs archiveLedger killed at the first call after the index's counts were first mirrored (the
 * intent write): keys indexed, nothing copied yet.
 */
function killAfterIndexWrite(w: KichoWorld): void {
  let armed = false;
  w.emu.world.beforeCall = (_exec, call) => {
    if (armed) return 'kill';
    armed = call.m === 'set' && JSON.stringify(call.a).includes('KICHO_ARCHIVE');
    return undefined;
  };
  assert.equal(w.run('archiveLedger').status, 'killed');
  w.emu.world.beforeCall = undefined;
}

/** Invariants after any number of archive runs: each key in one place, index = archive, one journal a key. */
function settledCheck(w: KichoWorld, keys: readonly string[], label: string): void {
  const at = places(w);
  for (const k of keys) assert.deepEqual(at.get(k)?.length, 1, `${label}: ${k} in ${at.get(k)}`);
  const entries = indexEntries(w);
  const archivedKeys = archived(w).map((r) => String(r.キー));
  assert.equal(
    entries.size,
    archivedKeys.length,
    `${label}: index ${entries.size} vs archive ${archivedKeys.length}`,
  );
  for (const k of archivedKeys) assert.ok(entries.has(remoteTagOf(k).slice(3)), `${label}: ${k} not indexed`);
  for (const k of keys) assert.ok(journalCount(w, k) <= 1, `${label}: ${k} posted twice`);
}

describe('archive: a kill at every call of the run', () => {
  for (const policy of ['buffer', 'write-through'] as const) {
    test(`no row lost, no key live twice, nothing posted twice (${policy})`, () => {
      const probe = smallWorld(policy);
      const calls = killAt(probe.w, Number.POSITIVE_INFINITY);
      ok(probe.w, 'archiveLedger');
      probe.w.emu.world.beforeCall = undefined;
      assert.ok(calls.length > 30, `${calls.length} calls`);
      const matrix: string[] = [];
      for (let n = 1; n <= calls.length; n++) {
        const { w, keys, done } = smallWorld(policy);
        const journals = w.mf.journals().length;
        killAt(w, n);
        const r = w.run('archiveLedger');
        w.emu.world.beforeCall = undefined;
        assert.equal(r.status, 'killed', `${n}`);
        const at = places(w);
        const both = keys.filter((k) => (at.get(k) ?? []).length > 1).length;
        const missing = keys.filter((k) => !at.has(k)).length;
        assert.equal(missing, 0, `kill at ${n} (${calls[n - 1]}): ${missing} keys in neither place`);
        // An archived row is never outside the index, even for a moment: a 台帳 a person deletes now
        // must not make an archived row look new.
        const entries = indexEntries(w);
        const outside = archived(w).filter((r) => !entries.has(remoteTagOf(String(r.キー)).slice(3)));
        assert.equal(
          outside.length,
          0,
          `kill at ${n} (${calls[n - 1]}): ${outside.length} archived, unindexed`,
        );
        // Before any further archive run: an import adds nothing, a post sends nothing twice.
        const imp = ok(w, 'importTransactions');
        assert.equal(imp.added, 0, `kill at ${n}: import added ${imp.added}`);
        const post = ok(w, 'postApproved');
        assert.equal(post.count, 0, `kill at ${n}: posted ${post.count}`);
        assert.equal(w.mf.journals().length, journals, `kill at ${n}: journals`);
        assert.doesNotMatch(
          post.messages.join(' '),
          /大きく減って/,
          `kill at ${n}: a false lost-ledger alarm`,
        );
        const again = ok(w, 'archiveLedger');
        assert.equal(again.ok, true, `kill at ${n}: ${again.messages.join(' ')}`);
        settledCheck(w, keys, `kill at ${n}`);
        assert.equal(
          archived(w).length,
          done.length + keys.filter((_, i) => i % 3 === 1).length,
          `kill at ${n}`,
        );
        const third = ok(w, 'postApproved');
        assert.doesNotMatch(
          third.messages.join(' '),
          /大きく減って|なくなっています/,
          `kill at ${n}: ${third.messages}`,
        );
        matrix.push(`${n} ${calls[n - 1]}: both ${both}`);
      }
      console.log(`kill matrix (${policy}):\n${matrix.join('\n')}`);
    });
  }
});

describe('archive: a kill mid-run, then the 台帳 deleted', () => {
  for (const when of ['after the copy', 'before the copy'] as const) {
    test(`an archived event row stays findable (killed ${when}): a resent event is a duplicate, no second journal`, () => {
      const w = kichoWorld();
      const src = w.emu.world.spreadsheet.sheets.find((x) => x.name === '取込元');
      assert.ok(src);
      src.setValue(src.lastRow() + 1, 1, 'shop');
      src.setValue(src.lastRow(), 2, '売掛金');
      const made = w.run('rotateWebhookSecret').value as { fullUrl: string };
      const secret = new URL(made.fullUrl).searchParams.get('key') as string;
      const body = JSON.stringify({
        source: 'shop',
        events: [{ id: 'o1', date: '2026-05-01', amount: 3300, direction: '入金', description: '注文 o1' }],
      });
      const send = () => answerOf(postToWebApp(w.emu, { query: { key: secret }, body }))?.results[0].status;
      assert.equal(send(), 'accepted');
      const key = String(w.ledger().find((r) => String(r.キー).startsWith('evt:'))?.キー);
      approve(w, [key], '売上高');
      ok(w, 'postApproved');
      assert.equal(journalCount(w, key), 1);
      w.setSetting('アーカイブまでの月数', '0');
      // After the copy: killed at the first call after the archive's rows were written and flushed (the
      // copy exists, the 台帳 row too). Before it: at the first call after the index's counts were
      // mirrored (the key indexed, nothing copied).
      let armed = 0;
      w.emu.world.beforeCall = (_exec, call) => {
        if (armed === 2) return 'kill';
        const sheet = w.emu.world.spreadsheet.sheets.find((x) => x.name === ARCHIVE);
        const at = call.a[0] as { sh?: number; r?: number } | undefined;
        if (when === 'before the copy') {
          if (call.m === 'set' && JSON.stringify(call.a).includes('KICHO_ARCHIVE')) armed = 2;
        } else if (call.m === 'setValues' && sheet && at?.sh === sheet.id && (at.r ?? 0) >= 2) armed = 1;
        else if (armed === 1 && call.m === 'flush') armed = 2;
        return undefined;
      };
      assert.equal(w.run('archiveLedger').status, 'killed');
      w.emu.world.beforeCall = undefined;
      assert.equal(
        archived(w).some((r) => r.キー === key),
        when === 'after the copy',
      );
      // A person deletes the 台帳, sets up again and restores from MF (an event row cannot be rebuilt).
      const book = w.emu.world.spreadsheet;
      book.sheets = book.sheets.filter((x) => x.name !== '台帳');
      ok(w, 'setup');
      ok(w, 'restoreLedgerFromMf');
      assert.equal(send(), 'duplicate');
      ok(w, 'postApproved');
      const next = ok(w, 'archiveLedger');
      if (when === 'before the copy') assert.match(next.messages.join(' '), /キーは索引に残しました/);
      assert.equal(send(), 'duplicate');
      ok(w, 'postApproved');
      assert.equal(journalCount(w, key), 1);
      assert.ok(indexEntries(w).has(remoteTagOf(key).slice(3)));
    });
  }
  for (const order of ['import first', 'archive run first'] as const) {
    test(`killed between its index write and its copy, then the 台帳 deleted: every line comes back (${order})`, () => {
      const { w, keys, done, excluded } = smallWorld('buffer');
      killAfterIndexWrite(w);
      assert.equal(archived(w).length, 0);
      assert.equal(indexEntries(w).size, done.length + excluded.length);
      const mark = () => String(w.emu.world.properties.script.get('KICHO_ARCHIVE'));
      assert.match(mark(), /"pending":true/);
      const book = w.emu.world.spreadsheet;
      book.sheets = book.sheets.filter((x) => x.name !== '台帳');
      ok(w, 'setup');
      const restored = ok(w, 'restoreLedgerFromMf');
      assert.doesNotMatch(restored.messages.join(' '), /アーカイブ済み/);
      for (const k of done) assert.ok(places(w).has(k), `${k} not restored`);
      if (order === 'archive run first') {
        // The unfinished run's entries for 除外 rows now gone leave the index (nothing was copied).
        const settled = ok(w, 'archiveLedger');
        assert.match(settled.messages.join(' '), /索引から外しました/);
      }
      // 除外 lines are 未仕訳 in MF: the import brings them back.
      ok(w, 'importTransactions');
      for (const k of keys) assert.ok(places(w).has(k), `${k} lost`);
      // The next archive run keeps the 台帳 rows and drops the index entries nothing backs.
      ok(w, 'archiveLedger');
      settledCheck(w, keys, `after the restore (${order})`);
      assert.doesNotMatch(mark(), /pending/);
    });
  }
  test('killed between its index write and its copy: rows a person then deletes still raise the alarm', () => {
    const { w, done } = smallWorld('buffer');
    killAfterIndexWrite(w);
    // The keys are indexed but the rows are only on the 台帳: counted once, not twice.
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    for (const key of done.slice(0, 2)) {
      const at = ledger.rows.findIndex((r) => r?.v[0] === key);
      assert.ok(at > 0, key);
      ledger.rows.splice(at, 1);
    }
    const post = ok(w, 'postApproved');
    assert.match(post.messages.join(' '), /MFに送った行（完了・不明・送信中）が 2 行なくなっています/);
  });
});

describe('archive: people at work meanwhile', () => {
  test('a row a person edits between the copy and the removal stays; the next run moves what they typed', () => {
    const { w, keys, excluded } = smallWorld('buffer');
    // An 除外 row (a 完了 row edited after posting stays on the 台帳 anyway: it is on 要確認).
    const target = excluded[1];
    let edited = false;
    let marks = 0;
    w.emu.world.beforeCall = (_exec, call) => {
      // The index's counts mirrored a second time (the first is the intent, before the copy): the copy
      // read back, the removal not yet.
      if (call.s === 'properties' && call.m === 'set' && JSON.stringify(call.a).includes('KICHO_ARCHIVE'))
        marks += 1;
      if (!edited && marks === 2) {
        edited = true;
        w.edit(target, '勘定科目', '会議費');
      }
      return undefined;
    };
    const r = ok(w, 'archiveLedger');
    w.emu.world.beforeCall = undefined;
    assert.ok(edited);
    assert.match(r.messages.join(' '), /書き換えられたため、台帳の内容を残しました/);
    assert.equal(w.ledger().find((x) => x.キー === target)?.勘定科目, '会議費');
    const second = ok(w, 'archiveLedger');
    assert.match(second.messages.join(' '), /両方にありました/);
    settledCheck(w, keys, 'after the edit');
    const copies = archived(w).filter((x) => x.キー === target);
    assert.equal(copies.length, 1);
    assert.equal(copies[0].勘定科目, '会議費');
  });

  test('a sort between two block deletions loses no row: what went by mistake is put back', () => {
    const { w, keys, done, excluded } = smallWorld('buffer');
    let deletes = 0;
    w.emu.world.beforeCall = (_exec, call) => {
      if (call.s === 'sheets' && call.m === 'deleteRows' && ++deletes === 2) {
        // A person sorts the data rows (the rows below the last one stay empty).
        const ledger = w.emu.world.spreadsheet.sheets.find((x) => x.name === '台帳');
        if (ledger) {
          const last = ledger.lastRow();
          ledger.rows.splice(1, last - 1, ...ledger.rows.slice(1, last).reverse());
        }
      }
      return undefined;
    };
    const r = ok(w, 'archiveLedger');
    w.emu.world.beforeCall = undefined;
    assert.ok(deletes >= 2);
    assert.match(r.messages.join(' '), /並べ替えられたため、消えた \d+ 行を台帳の末尾に戻しました/);
    const at = places(w);
    for (const k of keys) assert.ok(at.has(k), `${k} lost`);
    ok(w, 'archiveLedger');
    settledCheck(w, keys, 'after the sort');
    assert.equal(archived(w).length, done.length + excluded.length);
    assert.equal(ok(w, 'importTransactions').added, 0);
  });
});

describe('archive: months, and bringing a row back', () => {
  test('a row moves only when its 取引日 and its last update are older than the setting', () => {
    const { w, keys } = smallWorld('buffer');
    w.setSetting('アーカイブまでの月数', '3');
    // Lines of May, posted today (2026-11-30): old by 取引日, new by 更新日時.
    assert.equal(ok(w, 'archiveLedger').count, 0);
    w.emu.world.clock.advance(100 * 86_400_000);
    const moved = ok(w, 'archiveLedger');
    assert.ok(moved.count > 0);
    settledCheck(w, keys, 'after months');
  });

  test('戻す brings an archived row back once, as it was; it is not archived again at once', () => {
    const { w, keys, excluded } = smallWorld('buffer');
    w.setSetting('アーカイブまでの月数', '3');
    w.emu.world.clock.advance(100 * 86_400_000);
    ok(w, 'archiveLedger');
    const target = excluded[0];
    const sheet = w.emu.world.spreadsheet.sheets.find((x) => x.name === ARCHIVE);
    assert.ok(sheet);
    const header = sheet.rows[0]?.v.map(String) ?? [];
    const rowOf = (key: string) =>
      sheet.rows.findIndex((r, i) => i > 0 && r?.v[header.indexOf('キー')] === key) + 1;
    // Nothing marked: a clear message.
    const none = ok(w, 'bringBackFromArchive');
    assert.equal(none.ok, false);
    assert.match(none.messages.join(' '), /「戻す」と入れた行がありません/);
    // A state a person changed in the archive is not taken over.
    const other = excluded[1];
    sheet.setValue(rowOf(other), header.indexOf('状態') + 1, '送信待ち');
    sheet.setValue(rowOf(other), header.indexOf('操作') + 1, '戻す');
    sheet.setValue(rowOf(target), header.indexOf('操作') + 1, '戻す');
    const r = ok(w, 'bringBackFromArchive');
    assert.equal(r.count, 1, r.messages.join(' '));
    assert.match(r.messages.join(' '), /状態 が「送信待ち」です/);
    const back = w.ledger().filter((x) => x.キー === target);
    assert.equal(back.length, 1);
    assert.equal(back[0].状態, '除外');
    assert.equal(back[0].操作, '');
    assert.ok(!indexEntries(w).has(remoteTagOf(target).slice(3)));
    assert.equal(archived(w).filter((x) => x.キー === target).length, 0);
    // The other row stays archived, with what the person typed.
    assert.equal(archived(w).filter((x) => x.キー === other).length, 1);
    // Not archived again while its last update is recent; never posted (除外 is final); not imported twice.
    assert.equal(ok(w, 'archiveLedger').count, 0);
    ok(w, 'postApproved');
    assert.equal(journalCount(w, target), 0);
    assert.equal(ok(w, 'importTransactions').added, 0);
    const at = places(w);
    for (const k of keys) assert.equal(at.get(k)?.length, 1, `${k} in ${at.get(k)}`);
  });

  test('a bring-back killed at any call leaves the row in one place after the next archive run', () => {
    const probe = smallWorld('buffer');
    probe.w.setSetting('アーカイブまでの月数', '0');
    ok(probe.w, 'archiveLedger');
    const mark = (w: KichoWorld, key: string) => {
      const sheet = w.emu.world.spreadsheet.sheets.find((x) => x.name === ARCHIVE);
      const header = sheet?.rows[0]?.v.map(String) ?? [];
      const row = sheet?.rows.findIndex((r, i) => i > 0 && r?.v[header.indexOf('キー')] === key) ?? -1;
      sheet?.setValue(row + 1, header.indexOf('操作') + 1, '戻す');
    };
    mark(probe.w, probe.excluded[0]);
    const calls = killAt(probe.w, Number.POSITIVE_INFINITY);
    ok(probe.w, 'bringBackFromArchive');
    probe.w.emu.world.beforeCall = undefined;
    for (let n = 1; n <= calls.length; n++) {
      const { w, keys, excluded } = smallWorld('buffer');
      ok(w, 'archiveLedger');
      mark(w, excluded[0]);
      killAt(w, n);
      assert.equal(w.run('bringBackFromArchive').status, 'killed');
      w.emu.world.beforeCall = undefined;
      const at = places(w);
      for (const k of keys) assert.ok(at.has(k), `kill at ${n} (${calls[n - 1]}): ${k} lost`);
      assert.equal(ok(w, 'importTransactions').added, 0, `kill at ${n}`);
      // Months 0: the next run archives the row again if the bring-back did not complete or did.
      ok(w, 'archiveLedger');
      settledCheck(w, keys, `bring-back kill at ${n}`);
    }
  });
});

describe('archive: finding it', () => {
  test('ヘルプ says where the archive is and how many rows it holds; its button opens the sheet', () => {
    const { w } = smallWorld('buffer');
    ok(w, 'archiveLedger');
    const n = archived(w).length;
    const mark = w.emu.world.ui.events.length;
    w.run('openHelp');
    const dialog = w.emu.world.ui.events.slice(mark).find((e) => e.type === 'modal');
    assert.ok(dialog?.html?.includes(`シート「${ARCHIVE}」に移ります（今 ${n} 行）`), dialog?.html);
    assert.ok(dialog?.html?.includes('アーカイブから戻す'));
    const r = w.run('showArchive');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    assert.equal(r.value, `シート「${ARCHIVE}」を開きました（${n} 行）。`);
  });
});
