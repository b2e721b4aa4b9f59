/**
 * Issue 25, item 1: the archive survives losing its key index. The built bundle in the emulator against the
 * fake MF, as a person would do it: the hidden sheet アーカイブ索引 is deleted (or cut short, typed in, or
 * 台帳アーカイブ renamed or deleted) through the emulator's spreadsheet, then the scheduled trigger, the
 * nightly trigger, the web app and the menu items run. Nothing archived comes back, nothing is posted twice
 * or for an 除外 line, the runs say why in Japanese (summary, ログ, 要確認), and 初期設定 makes it whole.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { clockEvent } from '../../sim/gas/index';
import { answerOf, postToWebApp } from '../../sim/gas/web-app';
import { records as recordsOf } from '../../sim/person';
import { parseIndex } from '../../src/core/archive';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld } from '../helpers/kicho';

const ARCHIVE = '台帳アーカイブ';
const INDEX = 'アーカイブ索引';
/** Words every stop names: the sheet, and what to run. */
const NAMES_INDEX = /アーカイブ索引.*初期設定/;

type Value = { ok: boolean; count: number; messages: string[] } & Record<string, unknown>;
type Answer = { results: { id: string; status: string; state?: string; message: string; retry?: boolean }[] };

function ok(w: KichoWorld, name: string, args?: unknown[]): Value {
  const r = w.run(name, args ? { args } : {});
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r.value as Value;
}

function trigger(w: KichoWorld, name: string): Value {
  const r = w.run(name, { kind: 'trigger', args: [clockEvent(name, w.emu.world.clock.now())] });
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  assert.deepEqual(r.internalErrors, []);
  return r.value as Value;
}

function sheetOf(w: KichoWorld, name: string) {
  return w.emu.world.spreadsheet.sheets.find((s) => s.name === name);
}

/** What a person does when they unhide a sheet and choose 「シートを削除」. */
function deleteSheet(w: KichoWorld, name: string): void {
  const book = w.emu.world.spreadsheet;
  assert.ok(
    book.sheets.some((s) => s.name === name),
    `no sheet ${name}`,
  );
  book.sheets = book.sheets.filter((s) => s.name !== name);
}

function archived(w: KichoWorld): Record<string, unknown>[] {
  return sheetOf(w, ARCHIVE) ? recordsOf(w.emu.world, ARCHIVE) : [];
}

function indexEntries(w: KichoWorld): Map<string, string> {
  const sheet = sheetOf(w, INDEX);
  if (!sheet) return new Map();
  const cells: unknown[][] = [];
  for (let r = 1; r <= sheet.lastRow(); r++) cells.push([sheet.rows[r - 1]?.v[0] ?? '']);
  return parseIndex(cells).index.entries;
}

function journalCount(w: KichoWorld, key: string): number {
  return w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key))).length;
}

/** Journals in MF for a line (by its tag, or for an MF line by its transaction id). */
function journalsFor(w: KichoWorld, key: string): number {
  if (key.startsWith('mf:')) return w.mf.journalsForTransaction(key.slice(3)).length;
  return journalCount(w, key);
}

function logLines(w: KichoWorld): string[] {
  return recordsOf(w.emu.world, 'ログ').map((r) => Object.values(r).map(String).join(' '));
}

function review(w: KichoWorld): Record<string, unknown>[] {
  return recordsOf(w.emu.world, '要確認');
}

function approve(w: KichoWorld, keys: readonly string[], account = '消耗品費'): void {
  for (const key of keys) {
    w.edit(key, '勘定科目', account);
    w.edit(key, '操作', '承認');
  }
}

function setArchiveCell(w: KichoWorld, key: string, header: string, value: string): void {
  const sheet = sheetOf(w, ARCHIVE);
  assert.ok(sheet);
  const head = sheet.rows[0]?.v.map(String) ?? [];
  const row = sheet.rows.findIndex((r, i) => i > 0 && r?.v[head.indexOf('キー')] === key);
  assert.ok(row > 0, `${key} not archived`);
  sheet.setValue(row + 1, head.indexOf(header) + 1, value);
}

function addSource(w: KichoWorld, name: string, account: string): void {
  const src = sheetOf(w, '取込元');
  assert.ok(src);
  src.setValue(src.lastRow() + 1, 1, name);
  src.setValue(src.lastRow(), 2, account);
}

const CSV = [
  '日付,摘要,出金,入金,残高',
  '2026/05/01,ﾃｽｳﾘﾖｳ,220,,98680',
  '2026/05/02,ﾌﾘｺﾐ ｶ)ﾐﾅﾐ,,"55,000",153680',
  '2026/05/03,ｺﾋﾟｰﾘﾖｳ,440,,153240',
].join('\r\n');

/**
 * The world: 自動実行 on, a rule that auto-approves what one excluded line says, MF lines posted
 * (完了) and excluded (除外), CSV lines and events posted and excluded, everything archived by the nightly
 * run. Returns the keys by what happened to them.
 */
function archivedWorld() {
  const w = kichoWorld();
  addSource(w, '○○銀行', '普通預金');
  addSource(w, 'shop', '売掛金');
  ok(w, 'importTransactions');
  const mfKeys = w.ledger().map((r) => String(r.キー));
  const done = mfKeys.slice(0, 6);
  const excluded = mfKeys.slice(6, 9);
  assert.equal(ok(w, 'importCsv', [CSV, '○○銀行']).added, 3);
  const made = w.run('rotateWebhookSecret').value as { fullUrl: string };
  const secret = new URL(made.fullUrl).searchParams.get('key') as string;
  const events = JSON.stringify({
    source: 'shop',
    events: [
      { id: 'o1', date: '2026-05-01', amount: 3300, direction: '入金', description: '注文 o1' },
      { id: 'o2', date: '2026-05-02', amount: 5500, direction: '入金', description: '注文 o2' },
    ],
  });
  const send = () => answerOf(postToWebApp(w.emu, { query: { key: secret }, body: events })) as Answer;
  assert.deepEqual(
    send().results.map((r) => r.status),
    ['accepted', 'accepted'],
  );
  const keys = w.ledger().map((r) => String(r.キー));
  const csv = keys.filter((k) => k.startsWith('csv:'));
  const evt = keys.filter((k) => k.startsWith('evt:'));
  approve(w, [...done, csv[0], csv[1], evt[0]]);
  for (const k of [...excluded, csv[2], evt[1]]) w.edit(k, '操作', '除外');
  ok(w, 'postApproved');
  // The rule a person wrote later: it would approve the first excluded line if it came back.
  const first = w.ledger().find((r) => r.キー === excluded[0]);
  w.addRules([
    {
      優先度: 1,
      一致方法: '完全一致',
      キーワード: String(first?.摘要),
      勘定科目: '消耗品費',
      税区分: '課税仕入 10%',
      自動承認: 'はい',
      有効: true,
    },
  ]);
  w.setSetting('自動実行', 'オン');
  w.setSetting('アーカイブまでの月数', '0');
  const night = trigger(w, 'backupLedger');
  assert.match(night.messages.join(' '), /シート「台帳アーカイブ」に移しました/);
  const open = w.ledger().map((r) => String(r.キー));
  const archivedKeys = archived(w).map((r) => String(r.キー));
  for (const k of [...done, ...excluded, ...csv, ...evt])
    assert.ok(archivedKeys.includes(k), `${k} archived`);
  return {
    w,
    done,
    excluded: [...excluded, csv[2], evt[1]],
    excludedMf: excluded,
    posted: [...done, csv[0], csv[1], evt[0]],
    csv,
    evt,
    open,
    send,
    secret,
  };
}

describe('the archive index deleted, with 自動実行 on and nobody touching anything', () => {
  test('nothing archived comes back or is posted; every run stops and says so; 初期設定 rebuilds it', () => {
    const { w, excluded, excludedMf, posted, open } = archivedWorld();
    const indexBefore = indexEntries(w);
    const archiveBefore = archived(w);
    const journals = w.mf.journals().length;
    deleteSheet(w, INDEX);

    // The scheduled trigger: no import, no posting, a 失敗 ログ line naming the sheet, and 要確認's notice.
    const run = trigger(w, 'runScheduled');
    assert.equal(w.ledger().length, open.length, 'the import brought archived lines back');
    for (const k of excludedMf) assert.equal(journalsFor(w, k), 0, `${k} (除外) was posted`);
    assert.equal(w.mf.journals().length, journals);
    assert.equal(run.ok, false);
    assert.match(run.messages.join(' '), NAMES_INDEX);
    assert.match(logLines(w)[0], /アーカイブ索引/);
    const notice = review(w)[0];
    assert.equal(notice?.キー, '');
    assert.match(String(notice?.理由), /アーカイブ索引/);
    assert.match(String(notice?.対応), /初期設定/);

    // The nightly run: the archive run stops; not one archived row is deleted or re-indexed.
    const night = trigger(w, 'backupLedger');
    assert.match(night.messages.join(' '), NAMES_INDEX);
    assert.deepEqual(archived(w), archiveBefore);
    assert.equal(sheetOf(w, INDEX), undefined, 'the archive run wrote an index of its own');

    // Each door, from the menu: the same reason.
    for (const name of ['importTransactions', 'postApproved', 'archiveLedger', 'restoreLedgerFromMf']) {
      const r = ok(w, name);
      assert.equal(r.ok, false, name);
      assert.match(r.messages.join(' '), NAMES_INDEX, name);
    }
    const csvAgain = ok(w, 'importCsv', [CSV, '○○銀行']);
    assert.equal(csvAgain.ok, false);
    assert.match(csvAgain.messages.join(' '), NAMES_INDEX);
    const audit = ok(w, 'auditDuplicates');
    assert.equal(audit.ok, false);
    assert.match(audit.messages.join(' '), NAMES_INDEX);
    // 重複を削除 knows a journal an archived row holds only through the index.
    const deletion = ok(w, 'deleteDuplicates', ['a-token']);
    assert.equal(deletion.ok, false);
    assert.match(deletion.messages.join(' '), NAMES_INDEX);
    assert.equal(w.ledger().length, open.length);
    assert.equal(w.mf.journals().length, journals);

    // 初期設定 rebuilds the index from 台帳アーカイブ, says so, and everything runs again.
    const setup = ok(w, 'setup');
    assert.match(
      setup.messages.join(' '),
      /アーカイブ索引」を、シート「台帳アーカイブ」の \d+ 行から作り直しました/,
    );
    assert.deepEqual(indexEntries(w), indexBefore);
    assert.equal(sheetOf(w, INDEX)?.props.hidden, true);
    const again = trigger(w, 'runScheduled');
    assert.notEqual(again.ok, false, again.messages.join(' '));
    assert.equal(w.ledger().length, open.length);
    assert.equal(review(w).filter((r) => r.キー === '').length, 0, 'the notice stays after the rebuild');
    const nightAgain = trigger(w, 'backupLedger');
    assert.doesNotMatch(nightAgain.messages.join(' '), /アーカイブ索引/);
    for (const k of excluded) assert.equal(journalsFor(w, k), 0, `${k} (除外) was posted`);
    for (const k of posted) assert.equal(journalsFor(w, k), 1, `${k} posted ${journalsFor(w, k)} times`);
    assert.equal(ok(w, 'importCsv', [CSV, '○○銀行']).added, 0);
  });

  test('events are answered one by one with the reason, and resending after 初期設定 is safe', () => {
    const { w, evt, send } = archivedWorld();
    deleteSheet(w, INDEX);
    const answer = send();
    assert.equal(answer.results.length, 2);
    for (const r of answer.results) {
      assert.equal(r.status, 'rejected');
      assert.equal(r.retry, true);
      assert.match(r.message, NAMES_INDEX);
    }
    assert.ok(!w.ledger().some((r) => evt.includes(String(r.キー))), 'an archived event came back');
    assert.match(logLines(w)[0], /アーカイブ索引/);
    ok(w, 'setup');
    const after = send();
    assert.deepEqual(
      after.results.map((r) => [r.status, r.state]),
      [
        ['duplicate', '完了'],
        ['duplicate', '除外'],
      ],
    );
    for (const k of evt) assert.ok(journalCount(w, k) <= 1);
  });

  test('an index cut short or typed in stops the import too; 初期設定 keeps the entries it can still read', () => {
    const { w, open, excludedMf } = archivedWorld();
    const before = indexEntries(w);
    const sheet = sheetOf(w, INDEX);
    assert.ok(sheet);
    // The facts cell stays; the cell of entries below it goes (a person deleted the row).
    sheet.rows.splice(1, 1);
    const cut = ok(w, 'importTransactions');
    assert.equal(cut.ok, false);
    assert.match(cut.messages.join(' '), /一部が消されています/);
    assert.equal(w.ledger().length, open.length);
    ok(w, 'setup');
    assert.deepEqual(indexEntries(w), before);
    // A person deletes an archived 除外 row: its key stays indexed, so the line does not come back.
    const gone = excludedMf[0];
    const sheet2 = sheetOf(w, ARCHIVE);
    const head = sheet2?.rows[0]?.v.map(String) ?? [];
    const at = (sheet2?.rows ?? []).findIndex((r, i) => i > 0 && r?.v[head.indexOf('キー')] === gone);
    assert.ok(at > 0);
    sheet2?.rows.splice(at, 1);
    assert.equal(ok(w, 'importTransactions').added, 0);
    // A note typed into the hidden sheet.
    sheetOf(w, INDEX)?.setValue(3, 1, 'メモ');
    const typed = ok(w, 'importTransactions');
    assert.equal(typed.ok, false);
    assert.match(typed.messages.join(' '), /読めないセル/);
    const setup = ok(w, 'setup');
    assert.match(setup.messages.join(' '), /作り直しました.*前の索引から読めた 1 件も残しました/);
    assert.deepEqual(indexEntries(w), before);
    assert.equal(ok(w, 'importTransactions').added, 0);
    assert.ok(!w.ledger().some((r) => r.キー === gone), 'the deleted archived row came back');
  });
});

describe('the index deleted while a run is at work', () => {
  for (const door of ['importTransactions', 'importCsv'] as const) {
    test(`deleted between ${door}'s first check and its write: the write under the lock checks again`, () => {
      const { w, open } = archivedWorld();
      // A person deletes the sheet while the run asks MF (after the check before MF, before the lock).
      let done = false;
      w.emu.world.beforeCall = (_exec, call) => {
        if (!done && call.s === 'fetch') {
          done = true;
          deleteSheet(w, INDEX);
        }
        return undefined;
      };
      const r = door === 'importCsv' ? ok(w, door, [CSV, '○○銀行']) : ok(w, door);
      w.emu.world.beforeCall = undefined;
      assert.ok(done);
      assert.equal(r.ok, false);
      assert.match(r.messages.join(' '), NAMES_INDEX);
      assert.equal(w.ledger().length, open.length);
    });
  }
});

describe('rebuilding the index', () => {
  test('every kind (m / c / d / x) comes back as it was, and a row whose key was edited is still found', () => {
    const { w, done, csv, evt } = archivedWorld();
    // A 完了 row without MF仕訳ID a person put into the archive: the next archive run indexes it as d.
    const sheet = sheetOf(w, ARCHIVE);
    assert.ok(sheet);
    const head = sheet.rows[0]?.v.map(String) ?? [];
    const last = sheet.lastRow() + 1;
    const pasted: Record<string, string> = {
      キー: 'mf:PASTED1',
      明細ID: 'PASTED1',
      状態: '完了',
      取引日: '2026-05-03',
      入出金: '出金',
      金額: '100',
      摘要: '手で貼った行',
      口座: '○○銀行',
    };
    for (const [h, v] of Object.entries(pasted)) sheet.setValue(last, head.indexOf(h) + 1, v);
    assert.match(ok(w, 'archiveLedger').messages.join(' '), /索引に加えました/);
    const before = indexEntries(w);
    assert.deepEqual(
      new Set(before.values()),
      new Set(['m', 'c', 'd', 'x']),
      `kinds ${[...before.values()]}`,
    );
    // A person edits archived rows: an MF line's key, a CSV line's 摘要 (its key no longer fits).
    setArchiveCell(w, done[0], 'キー', 'mf:edited-by-hand');
    setArchiveCell(w, csv[0], '摘要', '書き換えた摘要');
    deleteSheet(w, INDEX);
    const setup = ok(w, 'setup');
    assert.match(setup.messages.join(' '), /作り直しました/);
    const after = indexEntries(w);
    for (const [hex, kind] of before) assert.equal(after.get(hex), kind, `entry ${hex} (${kind})`);
    // Lines whose archived rows were edited still count as present: nothing comes back, nothing twice.
    assert.equal(ok(w, 'importTransactions').added, 0);
    assert.equal(ok(w, 'importCsv', [CSV, '○○銀行']).added, 0);
    for (const k of [...done, ...csv, ...evt]) assert.ok(journalsFor(w, k) <= 1, `${k} twice`);
  });

  test('a row whose key was cleared (no 明細ID) is named by its row, for a person to put its key back', () => {
    const { w, csv } = archivedWorld();
    setArchiveCell(w, csv[2], 'キー', '');
    const sheet = sheetOf(w, ARCHIVE);
    const head = sheet?.rows[0]?.v.map(String) ?? [];
    const row = (sheet?.rows ?? []).findIndex((r, i) => i > 0 && r?.v[head.indexOf('キー')] === '') + 1;
    deleteSheet(w, INDEX);
    const setup = ok(w, 'setup');
    assert.match(setup.messages.join(' '), new RegExp(`${row} 行目.*索引に入れられませんでした`));
  });
});

describe('台帳アーカイブ renamed or deleted while the index stands', () => {
  test('renamed: lookups go on (the keys are indexed); archiving stops and names the sheet; 初期設定 makes no new one', () => {
    const { w, open } = archivedWorld();
    const sheet = sheetOf(w, ARCHIVE);
    assert.ok(sheet);
    sheet.name = '古いアーカイブ';
    assert.equal(ok(w, 'importTransactions').added, 0);
    assert.equal(w.ledger().length, open.length);
    const night = trigger(w, 'backupLedger');
    assert.match(night.messages.join(' '), /シート「台帳アーカイブ」がありません.*「古いアーカイブ」/);
    assert.equal(sheetOf(w, ARCHIVE), undefined, 'a new empty archive beside the renamed one');
    const setup = ok(w, 'setup');
    assert.equal(setup.ok, false);
    assert.match(setup.messages.join(' '), /「古いアーカイブ」がアーカイブのようです/);
    assert.equal(sheetOf(w, ARCHIVE), undefined);
    w.run('openReview');
    assert.match(String(review(w)[0]?.対応 ?? ''), /古いアーカイブ/);
    sheet.name = ARCHIVE;
    assert.notEqual(trigger(w, 'backupLedger').ok, false);
  });

  test('deleted: 初期設定 makes an empty one and says the keys stay indexed', () => {
    const { w } = archivedWorld();
    const entries = indexEntries(w).size;
    deleteSheet(w, ARCHIVE);
    assert.equal(ok(w, 'importTransactions').added, 0);
    const stopped = ok(w, 'archiveLedger');
    assert.equal(stopped.ok, false);
    assert.match(stopped.messages.join(' '), /シート「台帳アーカイブ」がありません/);
    const setup = ok(w, 'setup');
    assert.match(setup.messages.join(' '), /空のシートを作りました/);
    assert.equal(indexEntries(w).size, entries);
    assert.equal(ok(w, 'importTransactions').added, 0);
    const next = ok(w, 'archiveLedger');
    assert.notEqual(next.ok, false, next.messages.join(' '));
  });

  test('both gone: everything stops until 初期設定, and only a person who types the words goes on without them', () => {
    const { w, open, excludedMf } = archivedWorld();
    deleteSheet(w, INDEX);
    deleteSheet(w, ARCHIVE);
    const run = trigger(w, 'runScheduled');
    assert.equal(run.ok, false);
    assert.match(run.messages.join(' '), /どちらも見つかりません/);
    assert.equal(w.ledger().length, open.length);
    // The default button of the question: nothing changes.
    const refused = ok(w, 'setup');
    assert.equal(refused.ok, false);
    assert.match(refused.messages.join(' '), /空にしていません/);
    assert.equal(ok(w, 'importTransactions').ok, false);
    w.emu.world.ui.answers.push({ button: 'OK', text: 'アーカイブなしで続ける' });
    const agreed = ok(w, 'setup');
    assert.match(agreed.messages.join(' '), /失ったものとして続けることを確認しました/);
    // The 除外 lines come back as the person was told (and must be excluded again).
    const back = ok(w, 'importTransactions');
    assert.ok(Number(back.added) >= excludedMf.length, `${back.added} added`);
  });
});

describe('the settle: a line imported again beside its archived row', () => {
  /**
   * The state an earlier version left after its index was lost (or a person who lost the archive, went on
   * without it, and then found it again): the archive's 除外 and 完了 rows, and beside them the same lines
   * imported again — one already posted again, one approved by the rule, the others waiting.
   */
  function reimportedWorld() {
    const base = archivedWorld();
    const { w } = base;
    const sheet = sheetOf(w, ARCHIVE);
    assert.ok(sheet);
    deleteSheet(w, INDEX);
    deleteSheet(w, ARCHIVE);
    w.emu.world.ui.answers.push({ button: 'OK', text: 'アーカイブなしで続ける' });
    ok(w, 'setup');
    // The scheduled run imports the 除外 lines again and the rule approves the first; the person goes on
    // past the lost-ledger question (the archived rows are gone from the count) and it is posted.
    trigger(w, 'runScheduled');
    const [ruled, ...others] = base.excludedMf;
    if (journalsFor(w, ruled) === 0) {
      w.emu.world.ui.answers.push({ button: 'OK', text: '続行' });
      ok(w, 'postApproved');
    }
    assert.equal(journalsFor(w, ruled), 1, 'the rule posted the line again (the person went on without)');
    // Another comes back and is approved by a person, not yet posted.
    approve(w, [others[0]]);
    // The archive is found again (「版の履歴」 gives the sheet back as it was).
    w.emu.world.spreadsheet.sheets.push(sheet);
    const setup = ok(w, 'setup');
    assert.match(setup.messages.join(' '), /作り直しました/);
    return { ...base, ruled, approved: others[0], waiting: others.slice(1) };
  }

  test('archived rows a person pastes back into a newer archive are kept and indexed, never deleted as leftovers', () => {
    const base = archivedWorld();
    const { w, excludedMf } = base;
    const old = sheetOf(w, ARCHIVE);
    assert.ok(old);
    const oldRows = old.rows.slice(1, old.lastRow()).map((r) => [...(r?.v ?? [])]);
    deleteSheet(w, INDEX);
    deleteSheet(w, ARCHIVE);
    w.emu.world.ui.answers.push({ button: 'OK', text: 'アーカイブなしで続ける' });
    ok(w, 'setup');
    // As told: 台帳を復元 brings the MF lines' 完了 rows back; the import brings the 除外 lines back.
    ok(w, 'restoreLedgerFromMf');
    w.setSetting('自動実行', 'オフ');
    ok(w, 'importTransactions');
    for (const k of excludedMf)
      assert.ok(
        w.ledger().some((r) => r.キー === k),
        `${k} not re-imported`,
      );
    // The nightly run makes a new archive and index; then the person pastes the old rows back below.
    trigger(w, 'backupLedger');
    const fresh = sheetOf(w, ARCHIVE);
    assert.ok(fresh);
    const head = fresh.rows[0]?.v.map(String) ?? [];
    const oldHead = old.rows[0]?.v.map(String) ?? [];
    for (const row of oldRows) {
      const at = fresh.lastRow() + 1;
      oldHead.forEach((h, c) => {
        if (h !== '' && head.includes(h)) fresh.setValue(at, head.indexOf(h) + 1, row[c] as never);
      });
    }
    trigger(w, 'backupLedger');
    trigger(w, 'backupLedger');
    for (const k of excludedMf) {
      const rows = archived(w).filter((x) => x.キー === k);
      assert.equal(rows.length, 1, `${k} archived ${rows.length} times`);
      assert.equal(rows[0].状態, '除外');
      assert.ok(indexEntries(w).has(remoteTagOf(k).slice(3)), `${k} not indexed`);
      assert.ok(!w.ledger().some((x) => x.キー === k), `${k} re-import still on the 台帳`);
      assert.equal(journalsFor(w, k), 0);
    }
  });

  test('posting never sends a row whose key is archived: it goes to 要確認 with the reason', () => {
    const { w, approved } = reimportedWorld();
    // With the index gone again, posting cannot tell such a row: it stops.
    const index = sheetOf(w, INDEX);
    assert.ok(index);
    deleteSheet(w, INDEX);
    const stopped = ok(w, 'postApproved');
    assert.equal(stopped.ok, false);
    assert.match(stopped.messages.join(' '), NAMES_INDEX);
    assert.equal(journalsFor(w, approved), 0, 'posted while the index was missing');
    w.emu.world.spreadsheet.sheets.push(index);
    const r = ok(w, 'postApproved');
    assert.equal(journalsFor(w, approved), 0, 'an archived 除外 line was posted');
    const row = w.ledger().find((x) => x.キー === approved);
    assert.equal(row?.状態, '要確認');
    assert.match(String(row?.メモ), /アーカイブ済み/);
    assert.ok(review(w).some((x) => x.キー === approved));
    assert.doesNotMatch(r.messages.join(' '), /1 件を登録しました/);
  });

  test('the archive run keeps every archived row; re-imported rows never sent leave the 台帳; a sent one is listed', () => {
    const { w, excludedMf, ruled, approved, waiting } = reimportedWorld();
    const archiveBefore = archived(w);
    const onLedger = (k: string) => w.ledger().some((x) => x.キー === k);
    const r = trigger(w, 'backupLedger');
    const text = r.messages.join(' ');
    // Not one archived row deleted as a "leftover": the 除外 decisions stay, indexed.
    const keptAll = () => {
      for (const k of excludedMf) {
        const rows = archived(w).filter((x) => x.キー === k);
        assert.equal(rows.length, 1, `${k} archived ${rows.length} times`);
        assert.equal(rows[0].状態, '除外');
        assert.ok(indexEntries(w).has(remoteTagOf(k).slice(3)), `${k} not indexed`);
      }
    };
    keptAll();
    assert.ok(archived(w).length >= archiveBefore.length);
    // The re-imported rows nobody sent are gone from the 台帳; the archived row is their record.
    for (const k of waiting) assert.ok(!onLedger(k), `${k} still on the 台帳`);
    assert.match(text, /もう一度取り込まれた行で、まだ送信していなかったため、台帳から外しました/);
    // The one posted again (its journal is in MF) and the one with 操作 pending stay, named for a person.
    assert.ok(onLedger(ruled) && onLedger(approved));
    assert.match(text, /どちらの行も残しました.*重複点検/);
    // The approval is consumed by the next posting run: the guard stops it, and the next archive run
    // takes the row off. Nothing more is posted, imported or lost.
    const journals = w.mf.journals().length;
    trigger(w, 'runScheduled');
    assert.equal(w.ledger().find((x) => x.キー === approved)?.状態, '要確認');
    trigger(w, 'backupLedger');
    assert.ok(!onLedger(approved), 'the stopped re-import is still on the 台帳');
    keptAll();
    trigger(w, 'runScheduled');
    assert.equal(w.mf.journals().length, journals);
    for (const k of [approved, ...waiting]) assert.equal(journalsFor(w, k), 0);
    assert.equal(journalsFor(w, ruled), 1);
  });
});
