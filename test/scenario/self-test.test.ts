/**
 * 本番前チェック (selfTest) on the bundle, in every Sheets world: it reports each world as it is, kicho's
 * writer uses what it saw, and an NG that makes exactly-once unsafe stops importing and posting —
 * postApproved and the scheduled run say why — until a later check passes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runInterleaved, seededPick, WorkerPool } from '../../sim/gas/interleave';
import { SHEETS_WORLDS, sheetsOptions } from '../../sim/gas/switches';
import type { WorldOptions } from '../../sim/gas/world';
import { remoteTagOf } from '../../src/core/keys';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld, OWNER, records } from '../helpers/kicho';

const MINUTE = 60_000;
const ITEMS = [
  'sheets-plain-text',
  'sheets-round-trip',
  'sheets-long-cell',
  'sheets-ledger-format',
  'script-lock',
  'flush',
  'trigger',
  'properties',
  'time-zone',
  'mf-office',
  'mf-periods',
  'mf-permissions',
  'mf-posting',
];

interface Report {
  id: string;
  result: string;
  detail: string;
  blocksPosting: boolean;
}

function selfTest(w: KichoWorld, options: { user?: string; kind?: 'menu' | 'trigger' } = {}) {
  const r = w.run('selfTest', options);
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  const v = r.value as { ok: boolean; passed: boolean; reports: Report[]; messages: string[] };
  return { ...v, byId: new Map(v.reports.map((x) => [x.id, x])) };
}

function ready(worldOptions: WorldOptions = {}): KichoWorld {
  const w = kichoWorld({}, worldOptions);
  w.addRules(EXAMPLE_RULES);
  assert.equal(w.run('importTransactions').status, 'ok');
  assert.equal(w.run('classifyPending').status, 'ok');
  return w;
}

const ours = (w: KichoWorld) => w.mf.journals().filter((j) => j.tags.some((t) => t.startsWith('kc-')));

function ledgerSheet(w: KichoWorld) {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === '台帳');
  assert.ok(s);
  return s;
}

describe('本番前チェック in each Sheets world', () => {
  for (const [i, world] of SHEETS_WORLDS.entries()) {
    // The cell-limit question alternates with the worlds, so both of its answers are run too.
    const prefixCounts = i % 2 === 0;
    test(`${world.name}, apostrophe ${prefixCounts ? 'counts' : 'does not count'} toward 50,000: reported as it is, used by the writer; the product posts`, () => {
      const w = ready({ ...sheetsOptions(world), cellLimitCountsApostrophe: prefixCounts });
      const r = selfTest(w);
      assert.deepEqual(
        r.reports.map((x) => x.id),
        ITEMS,
      );
      assert.equal(r.passed, true, JSON.stringify(r.reports));
      const plain = r.byId.get('sheets-plain-text')?.detail ?? '';
      assert.match(
        plain,
        world.plainTextApostrophe === 'kept' ? /「'」が文字として残ります/ : /「'」は残りません/,
      );
      assert.match(plain, world.plainTextStopsFormulas ? /文字のままです/ : /数式になります/);
      assert.equal(r.byId.get('sheets-round-trip')?.result, 'OK');
      assert.match(
        r.byId.get('sheets-long-cell')?.detail ?? '',
        prefixCounts ? /49,999 文字までは/ : /50,000 文字のセルを書いて/,
      );
      for (const id of [
        'sheets-ledger-format',
        'script-lock',
        'flush',
        'trigger',
        'properties',
        'time-zone',
      ]) {
        assert.equal(r.byId.get(id)?.result, 'OK', `${id}: ${r.byId.get(id)?.detail}`);
      }

      // 自己診断: one row per item; KICHO_SELF_TEST and the writer's observation kept; no scratch sheet left.
      const sheet = records(w.emu, '自己診断');
      assert.equal(sheet.length, ITEMS.length);
      assert.ok(
        sheet.every(
          (row) =>
            ['OK', '注意', 'NG'].includes(String(row.結果)) &&
            /^\d{4}-\d\d-\d\d \d\d:\d\d$/.test(String(row.確認日時)),
        ),
      );
      assert.match(String(sheet[0].項目), /^Sheets: /);
      const props = w.emu.world.properties.script;
      assert.equal(JSON.parse(String(props.get('KICHO_SELF_TEST'))).passed, true);
      const seen = JSON.parse(String(props.get('KICHO_SHEETS_TEXT')));
      assert.equal(seen.apostrophe, world.plainTextApostrophe);
      assert.equal(seen.formulas, world.plainTextStopsFormulas ? 'text' : 'formula');
      assert.equal(seen.longestText, prefixCounts ? 49_999 : 50_000);
      assert.ok(w.emu.world.spreadsheet.sheets.every((s) => !s.name.startsWith('kicho一時')));
      assert.ok(records(w.emu, 'ログ').some((l) => l.処理 === '本番前チェック'));
      assert.ok(w.emu.world.ui.events.some((e) => e.type === 'modal' && e.title === '本番前チェック'));

      // The writer uses what it saw: '@' cells a person made are trusted where apostrophes are stripped
      // there, turned back to automatic where they are not; either way the text reads back exactly.
      const s = ledgerSheet(w);
      const first = s.lastRow() + 1;
      for (let row = first; row <= s.maxRows; row++)
        for (let c = 1; c <= s.lastColumn(); c++) s.updateMeta(row, c, { numberFormat: '@' });
      const long = 'ｱﾏｿﾞﾝ'.repeat(10_000);
      w.mf.addTransactions([
        {
          date: '2026-06-29',
          value: 1200,
          side: 'EXPENSE',
          content: '=HYPERLINK("https://example.com","x")',
        },
        { date: '2026-06-30', value: 3300, side: 'EXPENSE', content: long },
      ]);
      const imported = w.run('importTransactions');
      assert.equal(imported.status, 'ok');
      assert.equal((imported.value as { added: number }).added, 2);
      const keyCol =
        [...Array(s.lastColumn()).keys()].map((c) => c + 1).find((c) => s.value(1, c) === 'キー') ?? 0;
      assert.equal(
        s.meta(first, keyCol)?.numberFormat,
        world.plainTextApostrophe === 'stripped' ? '@' : undefined,
      );
      const byContent = new Map(w.ledger().map((row) => [String(row.摘要).slice(0, 20), row]));
      assert.equal(byContent.get('=HYPERLINK("https://')?.摘要, '=HYPERLINK("https://example.com","x")');
      const longRow = w.ledger().find((row) => String(row.摘要).startsWith('ｱﾏｿﾞﾝｱﾏｿﾞﾝ'));
      // 50,000 characters fit only where the apostrophe does not count; elsewhere cut with 「…」.
      assert.equal(longRow?.摘要, prefixCounts ? `${long.slice(0, 49_998)}…` : long);
      for (let row = 2; row <= s.lastRow(); row++)
        for (let c = 1; c <= s.lastColumn(); c++) assert.equal(s.meta(row, c)?.formula, undefined);

      // And it posts, once.
      const waiting = w.ledger().filter((row) => row.状態 === '送信待ち');
      assert.ok(waiting.length > 0);
      assert.equal((w.run('postApproved').value as { posted: number }).posted, waiting.length);
      for (const row of waiting) {
        assert.equal(w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(String(row.キー)))).length, 1);
      }
    });
  }
});

describe('an NG that makes exactly-once unsafe', () => {
  test('keys not reading back: import and posting refuse (menu and trigger say why) until a later check passes', () => {
    const w = ready();
    const waiting = w.ledger().filter((r) => r.状態 === '送信待ち');
    assert.ok(waiting.length > 0);
    // A world where Google's documented behaviour fails: the apostrophe stays even in automatic cells.
    w.emu.world.spreadsheet.automaticApostrophe = 'kept';
    const r = selfTest(w);
    assert.equal(r.passed, false);
    const trip = r.byId.get('sheets-round-trip');
    assert.equal(trip?.result, 'NG');
    assert.equal(trip?.blocksPosting, true);
    assert.match(trip?.detail ?? '', /MFの明細のキー「mf:.*」が「'mf:.*」と読めました/);
    assert.equal(JSON.parse(String(w.emu.world.properties.script.get('KICHO_SELF_TEST'))).blocking.length, 1);
    // (In this world every text on a sheet keeps its apostrophe, 自己診断 too.)
    const row = records(w.emu, '自己診断').find((x) => String(x.項目).includes('文字の読み書き'));
    assert.equal(String(row?.結果).replace(/^'/, ''), 'NG');

    const post = w.run('postApproved');
    const said = (post.value as { ok: boolean; messages: string[] }).messages.join(' ');
    assert.equal((post.value as { ok: boolean }).ok, false);
    assert.match(
      said,
      /本番前チェック（.*）で、二重登録を防ぐ仕組みが働かないおそれのある問題が見つかったため、登録を止めています: 「Sheets: 文字の読み書き/,
    );
    const before = w.ledger().length;
    assert.match(
      (w.run('importTransactions').value as { messages: string[] }).messages.join(' '),
      /取込を止めています/,
    );
    const csv = w.run('importCsv', { args: ['日付,摘要,出金,入金\r\n2026/05/01,ﾃｽｳﾘﾖｳ,220,', '○○銀行'] });
    assert.match((csv.value as { messages: string[] }).messages.join(' '), /取込を止めています/);
    assert.equal(w.ledger().length, before);
    w.setSetting('自動実行', 'オン');
    const runs = w.emu.advance(16 * MINUTE);
    assert.ok(runs.length > 0);
    const unquoted = (v: unknown) => String(v).replace(/^'/, '');
    const line = records(w.emu, 'ログ').find((l) => unquoted(l.処理) === '定期実行');
    assert.equal(unquoted(line?.結果), '失敗');
    assert.match(String(line?.メッセージ), /登録を止めています/);
    assert.equal(ours(w).length, 0, 'nothing was sent');
    const dry = w.run('dryRun');
    assert.match((dry.value as { warnings: string[] }).warnings.join(' '), /登録を止めています/);

    // Fixed (another account, or Google): the next check passes and posting goes on, once each.
    w.emu.world.spreadsheet.automaticApostrophe = 'stripped';
    assert.equal(selfTest(w).passed, true);
    const posted = w.run('postApproved').value as { posted: number };
    assert.ok(posted.posted >= waiting.length);
    for (const row of waiting) {
      assert.equal(w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(String(row.キー)))).length, 1);
    }
  });

  test('posting is not blocked by 注意 or by a check never run; the dry run says which', () => {
    const w = ready({ spreadsheetTimeZone: 'America/New_York' });
    const none = (w.run('dryRun').value as { warnings: string[] }).warnings.join(' ');
    assert.match(none, /本番前チェックをまだ行っていません/);
    const r = selfTest(w);
    assert.equal(r.passed, true);
    assert.equal(r.byId.get('time-zone')?.result, '注意');
    assert.match(
      r.byId.get('time-zone')?.detail ?? '',
      /スプレッドシートのタイムゾーンが America\/New_York です。メニュー「ファイル > 設定」/,
    );
    const after = (w.run('dryRun').value as { warnings: string[] }).warnings.join(' ');
    assert.doesNotMatch(after, /まだ行っていません/);
    assert.match(after, /本番前チェックの注意: Apps Script: タイムゾーン/);
    assert.ok((w.run('postApproved').value as { posted: number }).posted > 0);
  });
});

describe('Apps Script items', () => {
  test('the trigger: none, or another account’s (invisible here), is a 注意 that names what to do', () => {
    const CLERK = 'clerk@example.com';
    const w = kichoWorld({}, { editors: [CLERK] });
    const clerk = selfTest(w, { user: CLERK });
    assert.equal(clerk.byId.get('trigger')?.result, '注意');
    assert.match(clerk.byId.get('trigger')?.detail ?? '', new RegExp(`トリガーは ${OWNER} が設定しています`));
    for (const t of w.emu.world.triggers.visibleTo(OWNER)) w.emu.world.triggers.delete(t.id, OWNER);
    w.emu.world.properties.script.delete('KICHO_TRIGGER_OWNER');
    const none = selfTest(w);
    assert.match(
      none.byId.get('trigger')?.detail ?? '',
      /定期実行のトリガーがありません。.*「初期設定」を実行してください/,
    );
    assert.equal(none.passed, true);
  });

  test('the script lock held by another run: 注意, try again later (nothing blocked)', () => {
    const w = kichoWorld();
    const other = w.emu.open({ user: OWNER });
    assert.equal(other.eval('LockService.getScriptLock().tryLock(1000)'), true);
    const r = selfTest(w);
    other.end();
    assert.equal(r.byId.get('script-lock')?.result, '注意');
    assert.match(r.byId.get('script-lock')?.detail ?? '', /ほかの実行がロックを使っていた/);
    assert.equal(r.passed, true);
  });

  test('two 本番前チェック at once (a person clicks twice, or two people): neither reports a false NG (issue 25)', () => {
    const pool = new WorkerPool();
    try {
      // Seeds 5, 16 and 19 interleaved the two property probes before each check had its own key.
      for (let seed = 1; seed <= 20; seed++) {
        const w = kichoWorld();
        const both = runInterleaved(
          w.emu.world,
          [{ name: 'selfTest' }, { name: 'selfTest' }],
          seededPick(seed),
          {
            pool,
          },
        );
        for (const r of both) {
          assert.equal(r.status, 'ok', `seed ${seed}: ${r.error}`);
          const v = r.value as { passed: boolean; reports: Report[] };
          const ng = v.reports.filter((x) => x.result === 'NG');
          assert.deepEqual(
            ng.map((x) => `${x.id}: ${x.detail}`),
            [],
            `seed ${seed}`,
          );
          assert.equal(v.passed, true, `seed ${seed}`);
        }
        const kept = JSON.parse(String(w.emu.world.properties.script.get('KICHO_SELF_TEST'))) as {
          blocking: unknown[];
        };
        assert.deepEqual(kept.blocking, [], `seed ${seed}: posting is not stopped`);
        const probes = [...w.emu.world.properties.script.keys()].filter((k) =>
          k.startsWith('KICHO_SELF_TEST_PROBE'),
        );
        assert.deepEqual(probes, [], `seed ${seed}: no probe left behind`);
      }
    } finally {
      pool.close();
    }
  });

  test('a probe a killed check left behind is removed by the next check, a live one is not touched', () => {
    const w = kichoWorld();
    const now = w.emu.world.clock.now();
    const script = w.emu.world.properties.script;
    script.set(`KICHO_SELF_TEST_PROBE_${now - 60 * MINUTE}_deadbeef`, 'left by a killed check');
    script.set(`KICHO_SELF_TEST_PROBE_${now - MINUTE}_cafebabe`, 'another check, still running');
    const r = selfTest(w);
    assert.equal(r.byId.get('properties')?.result, 'OK');
    assert.deepEqual(
      [...script.keys()].filter((k) => k.startsWith('KICHO_SELF_TEST_PROBE')),
      [`KICHO_SELF_TEST_PROBE_${now - MINUTE}_cafebabe`],
    );
  });

  test('a trigger run (no UI) checks, writes 自己診断 and ログ, and shows nothing', () => {
    const w = kichoWorld();
    const r = selfTest(w, { kind: 'trigger' });
    assert.equal(r.passed, true);
    assert.ok(!w.emu.world.ui.events.some((e) => e.type === 'modal' && e.title === '本番前チェック'));
    assert.equal(records(w.emu, '自己診断').length, ITEMS.length);
  });
});
