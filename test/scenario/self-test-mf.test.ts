/**
 * 本番前チェック's MF items on the bundle, under each value of each MF switch no public source settles
 * (sim/gas/README.md, table of unknowns): the check reports the world as it is, and the product posts,
 * adapts (照合猶予 raised, restore and the lost-ledger guard by transaction id, CSV refused) or refuses.
 * The posting check posts exactly one line through the normal protocol, only after the tick, and the
 * same posting run again sends nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { FakeMfOptions } from '../../sim/mf/fake-mf';
import { remoteTagOf } from '../../src/core/keys';
import { EXAMPLE_RULES, type KichoWorld, kichoWorld, records } from '../helpers/kicho';

const MINUTE = 60_000;
const JOURNALIZE = '/api/v3/transactions/journalize';
const JOURNALS = '/api/v3/journals';

interface Report {
  id: string;
  result: string;
  detail: string;
  blocksPosting: boolean;
  question: string | null;
  confirmId: string;
  optional: boolean;
}

interface Checked {
  passed: boolean;
  reports: Report[];
  byId: Map<string, Report>;
}

/** selfTest's summary and selfTestConfirm's dialog result, read alike. */
function checked(value: unknown): Checked {
  const v = value as { passed: boolean; reports: Partial<Report>[] };
  const reports = v.reports.map(
    (r) =>
      ({
        ...r,
        question: r.question ?? null,
        confirmId: r.confirmId ?? r.id,
        optional: r.optional === true,
        blocksPosting: r.blocksPosting === true,
      }) as Report,
  );
  return { passed: v.passed, reports, byId: new Map(reports.map((r) => [r.id, r])) };
}

/** 本番前チェック from the menu (nothing ticked): what the dialog first shows. */
function selfTest(w: KichoWorld): Checked {
  const r = w.run('selfTest');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return checked(r.value);
}

/** The dialog's button with these questions ticked (as it sends them: confirmId). */
function confirm(w: KichoWorld, ids: readonly string[]): Checked {
  const r = w.run('selfTestConfirm', { args: [ids] });
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
  return checked(r.value);
}

/** Asks, then ticks the posting question: the person's two clicks. */
function postingCheck(w: KichoWorld): { asked: Checked; done: Checked; posting: Report } {
  const asked = selfTest(w);
  const q = asked.byId.get('mf-posting');
  assert.ok(q?.question, `the posting check asks first: ${JSON.stringify(q)}`);
  const done = confirm(w, [q.confirmId]);
  const posting = done.byId.get('mf-posting');
  assert.ok(posting);
  return { asked, done, posting };
}

function creates(w: KichoWorld): number {
  return w.mf.requestLog.filter((e) => e.method === 'POST' && (e.path === JOURNALIZE || e.path === JOURNALS))
    .length;
}

function ready(options: FakeMfOptions = {}): KichoWorld {
  const w = kichoWorld(options);
  w.addRules(EXAMPLE_RULES);
  assert.equal(w.run('importTransactions').status, 'ok');
  assert.equal(w.run('classifyPending').status, 'ok');
  assert.ok(waiting(w).length > 1);
  return w;
}

const waiting = (w: KichoWorld) => w.ledger().filter((r) => r.状態 === '送信待ち');
const behaviour = (w: KichoWorld) =>
  JSON.parse(String(w.emu.world.properties.script.get('KICHO_MF_BEHAVIOUR') ?? 'null'));
const post = (w: KichoWorld) =>
  w.run('postApproved').value as { ok: boolean; posted: number; messages: string[] };
const grace = (w: KichoWorld) =>
  String(records(w.emu, '設定').find((r) => r.項目 === '照合猶予（分）')?.値 ?? '');

/** Every line kicho posted has exactly one journal in MF (by transaction id: tags may be dropped). */
function onceEach(w: KichoWorld): void {
  for (const r of w.ledger().filter((x) => x.状態 === '完了')) {
    const n = w.mf.journalsForTransaction(String(r.明細ID)).length;
    assert.equal(n, 1, `${r.キー} has ${n} journals`);
  }
}

describe('the MF items in the default world', () => {
  test('office, periods and permissions read; the posting check asks naming the line, posts it once after the tick, finds it, and the second run sends nothing', () => {
    const w = ready();
    const first = waiting(w)[0];
    const before = creates(w);
    const { asked, done, posting } = postingCheck(w);
    // Asked, nothing sent: the question names the row, its date, amount and description.
    assert.equal(asked.byId.get('mf-office')?.result, 'OK');
    assert.match(
      asked.byId.get('mf-office')?.detail ?? '',
      /「株式会社サンプル」（事業者番号 1234-5678、API キー）/,
    );
    assert.equal(asked.byId.get('mf-periods')?.result, 'OK');
    assert.equal(asked.byId.get('mf-permissions')?.result, 'OK');
    const q = asked.byId.get('mf-posting');
    assert.equal(q?.result, '注意');
    assert.equal(q?.optional, false);
    assert.match(
      q?.question ?? '',
      new RegExp(`台帳 \\d+ 行目（${first.取引日}、${first.入出金} [\\d,]+ 円、「`),
    );
    assert.match(q?.question ?? '', /2 回目は何も送られないことを確かめます/);
    assert.equal(asked.passed, true);

    // Ticked: exactly one create, for that line; found by transaction id with its tag; second run silent.
    assert.equal(creates(w) - before, 1);
    assert.equal(posting.result, 'OK', posting.detail);
    assert.match(posting.detail, /を登録しました（MF仕訳ID /);
    assert.match(posting.detail, /明細ID（transaction_ids）で出てきました（登録から約 \d+ 秒）/);
    assert.match(posting.detail, /明細は「仕訳済み」になりました/);
    assert.match(
      posting.detail,
      new RegExp(`kicho のタグ（${remoteTagOf(String(first.キー))}）が仕訳に残っていました`),
    );
    assert.match(posting.detail, /2 回目は何も送られないことを確かめました/);
    assert.equal(done.passed, true);
    const row = w.ledger().find((r) => r.キー === first.キー);
    assert.equal(row?.状態, '完了');
    assert.equal(w.mf.journalsForTransaction(String(first.明細ID)).length, 1);
    assert.equal(waiting(w).length > 0, true, 'only that one line was posted');
    const seen = behaviour(w);
    assert.equal(seen.journalizeTags, 'kept');
    assert.equal(seen.transactionIdForm, 'identical');
    assert.ok(seen.lagMs < MINUTE);
    assert.equal(grace(w), '15');
    assert.ok(records(w.emu, 'ログ').some((l) => l.処理 === '登録の実行（本番前チェック）' && l.件数 === 1));
    const sheet = records(w.emu, '自己診断').find((r) => String(r.項目).startsWith('MF: 1 件だけ'));
    assert.equal(sheet?.結果, 'OK');

    // A later check: the last outcome stands (no 確認待ち); the dialog offers to do it again, nothing is sent.
    const n = creates(w);
    const later = selfTest(w);
    const again = later.byId.get('mf-posting');
    assert.equal(again?.optional, true);
    assert.equal(again?.result, 'OK', again?.detail);
    assert.match(again?.detail ?? '', /前回（.*）の確認では、明細からの仕訳に kicho のタグが残り/);
    assert.equal(creates(w), n);
    assert.doesNotMatch(
      (w.run('dryRun').value as { warnings: string[] }).warnings.join(' '),
      /まだ行っていない/,
    );
    const rest = post(w);
    assert.ok(rest.posted > 0);
    onceEach(w);
  });

  test('the second run is a real check: a 台帳 that lost the 完了 in between is sent again, and that is an NG that stops posting', () => {
    const w = ready({ permissiveJournalize: true });
    const first = waiting(w)[0];
    const key = String(first.キー);
    let undone = false;
    // While the check looks for the journal in MF (after the first posting settled and was read back), the
    // row goes back to 送信待ち, as if the write was lost.
    w.emu.world.beforeCall = () => {
      const log = w.mf.requestLog;
      const at = log.findIndex((e) => e.path === JOURNALIZE);
      const looking = at >= 0 && log.slice(at).some((e) => e.path.startsWith(`${JOURNALS}/`));
      if (!undone && looking) {
        undone = true;
        w.edit(key, '状態', '送信待ち');
      }
      return undefined;
    };
    const { done, posting } = postingCheck(w);
    w.emu.world.beforeCall = undefined;
    assert.ok(undone);
    assert.equal(posting.result, 'NG', posting.detail);
    assert.equal(posting.blocksPosting, true);
    assert.match(posting.detail, /同じ登録をもう一度実行したところ、MF に 1 件送りました/);
    assert.equal(done.passed, false);
    const n = creates(w);
    assert.equal(post(w).ok, false);
    assert.equal(creates(w), n);
  });

  test('a tick for a line that changed since the question asks again and sends nothing', () => {
    const w = ready();
    const asked = selfTest(w);
    const q = asked.byId.get('mf-posting');
    assert.ok(q?.question);
    const first = waiting(w)[0];
    w.edit(String(first.キー), '勘定科目', '雑費');
    const n = creates(w);
    const after = confirm(w, [q.confirmId]);
    assert.equal(creates(w), n);
    assert.ok(after.byId.get('mf-posting')?.question);
    assert.notEqual(after.byId.get('mf-posting')?.confirmId, q.confirmId);
  });

  test('nothing to post: 注意, and nothing is asked', () => {
    const w = kichoWorld();
    const r = selfTest(w);
    const p = r.byId.get('mf-posting');
    assert.equal(p?.question, null);
    assert.equal(p?.result, '注意');
    assert.match(p?.detail ?? '', /「送信待ち」の行がないため/);
  });
});

describe('connection, office and permissions', () => {
  test('not connected: the MF items say so and ask nothing', () => {
    const w = ready();
    w.emu.world.properties.script.delete('MF_API_KEY');
    const r = selfTest(w);
    assert.equal(r.byId.get('mf-office')?.result, '注意');
    assert.match(r.byId.get('mf-office')?.detail ?? '', /MF に接続していません/);
    assert.equal(r.byId.get('mf-posting')?.question, null);
    assert.match(r.byId.get('mf-posting')?.detail ?? '', /MF に接続できていないため/);
    assert.equal(w.mf.requestLog.filter((e) => e.path.startsWith('/api/v3/')).length > 0, true);
  });

  test('another office connected: NG, and no MF call reaches it', () => {
    const w = ready({ otherOffice: true });
    w.emu.world.properties.script.set(
      'KICHO_OFFICE',
      JSON.stringify({ code: '8765-4321', name: '別の事業者' }),
    );
    const n = w.mf.requestLog.length;
    const r = selfTest(w);
    assert.equal(r.byId.get('mf-office')?.result, 'NG');
    assert.match(r.byId.get('mf-office')?.detail ?? '', /8765-4321/);
    assert.equal(r.byId.get('mf-posting')?.question, null);
    assert.ok(w.mf.requestLog.slice(n).every((e) => !e.path.startsWith('/api/v3/journals')));
  });

  test('a permission refused (403 on one read): NG naming it and where it is granted', () => {
    const w = ready();
    w.mf.injectFault({ kind: '403', match: { method: 'GET', path: '/api/v3/taxes' } });
    const r = selfTest(w);
    const p = r.byId.get('mf-permissions');
    assert.equal(p?.result, 'NG');
    assert.match(p?.detail ?? '', /「税の参照」の権限（mfc\/accounting\/taxes.read）がありません/);
    assert.match(p?.detail ?? '', /APIキー管理/);
    assert.equal(r.passed, false);
  });

  test('an earlier NG that blocks posting: the posting check sends nothing and says why', () => {
    const w = ready();
    w.emu.world.spreadsheet.automaticApostrophe = 'kept';
    const r = selfTest(w);
    const p = r.byId.get('mf-posting');
    assert.equal(p?.question, null);
    assert.match(p?.detail ?? '', /NG（Sheets: 文字の読み書き.*）があるため、MF には登録していません/);
    const n = creates(w);
    confirm(w, ['mf-posting']);
    assert.equal(creates(w), n);
  });
});

describe('a check after an NG', () => {
  test('the NG fixed: the next check passes it and posts its one line in the same run (the old record does not block it)', () => {
    const w = ready();
    w.emu.world.spreadsheet.automaticApostrophe = 'kept';
    assert.equal(selfTest(w).passed, false);
    assert.equal(post(w).ok, false, 'posting stopped by the NG');
    w.emu.world.spreadsheet.automaticApostrophe = 'stripped';
    const { done, posting } = postingCheck(w);
    assert.equal(posting.result, 'OK', posting.detail);
    assert.equal(done.passed, true);
    assert.ok(post(w).posted > 0);
    onceEach(w);
  });
});

describe('the posting check goes through the posting guards', () => {
  test('a 台帳 far smaller than last time: nothing is sent, no prompt, and it says why', () => {
    const w = ready();
    // The last run saw ten times the rows there are now (rows were deleted by mistake).
    w.emu.world.properties.script.set('KICHO_LEDGER_ROWS', String(w.ledger().length * 10));
    const prompts = () => w.emu.world.ui.events.filter((e) => e.type === 'prompt').length;
    const before = { prompts: prompts(), creates: creates(w) };
    const { posting } = postingCheck(w);
    assert.equal(posting.result, '注意', posting.detail);
    assert.match(posting.detail, /台帳の行が前回（\d+ 行）より大きく減っています/);
    assert.equal(prompts(), before.prompts);
    assert.equal(creates(w), before.creates);
  });
});

describe('MF switches: second journalize, per_page cap, transaction_id spelling', () => {
  for (const fake of [
    { permissiveJournalize: true },
    { secondJournalize: 'invented' as const },
    { journalsPerPageMax: 100 as const },
  ]) {
    test(`${JSON.stringify(fake)}: the check passes; one journal per line`, () => {
      const w = ready(fake);
      const { done, posting } = postingCheck(w);
      assert.equal(posting.result, 'OK', posting.detail);
      assert.equal(done.passed, true);
      post(w);
      onceEach(w);
    });
  }

  test('transaction_id in lower-case hex: said, compared by canonical form, the check passes', () => {
    const w = ready({ transactionIdForm: 'lowercase-hex' });
    // Rows before the first line whose id has a %XX escape are excluded already.
    const rows = waiting(w);
    const i = rows.findIndex((r) => /%[0-9A-F]{2}/.test(String(r.明細ID)));
    assert.ok(i >= 0);
    for (const r of rows.slice(0, i)) w.edit(String(r.キー), '状態', '除外');
    const { posting } = postingCheck(w);
    assert.equal(posting.result, 'OK', posting.detail);
    assert.match(posting.detail, /「%」のあとの英字の大小だけが違いました/);
    assert.equal(behaviour(w).transactionIdForm, 'case');
  });
});

describe('MF switch: whether journalize keeps tags', () => {
  test('dropped: 注意; restore and the lost-ledger guard then go by transaction id', () => {
    const w = ready({ tagsOnJournalize: 'dropped' });
    const { done, posting } = postingCheck(w);
    assert.equal(posting.result, '注意', posting.detail);
    assert.match(posting.detail, /MF は明細からの仕訳に kicho のタグを残しませんでした/);
    assert.equal(done.passed, true);
    assert.equal(behaviour(w).journalizeTags, 'dropped');
    const posted = post(w);
    assert.ok(posted.posted > 0);
    onceEach(w);
    const done1 = w.ledger().filter((r) => r.状態 === '完了');
    assert.ok(
      w.mf.journals().every((j) => j.tags.length === 0),
      'MF kept no tag',
    );

    // The 台帳 is lost, and so is the row count (a new sheet): MF's statement-line journals still stop posting.
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    ledger.rows.splice(1);
    w.emu.world.properties.script.delete('KICHO_LEDGER_ROWS');
    const refused = post(w);
    assert.equal(refused.ok, false);
    assert.match(
      refused.messages.join(' '),
      /MFには kicho が登録した仕訳か明細から作られた仕訳が \d+ 件あります/,
    );
    const restored = w.run('restoreLedgerFromMf').value as { restored: number; messages: string[] };
    assert.ok(restored.restored >= done1.length, JSON.stringify(restored));
    const back = new Map(w.ledger().map((r) => [String(r.キー), r]));
    for (const r of done1) {
      assert.equal(back.get(String(r.キー))?.状態, '完了');
      assert.equal(back.get(String(r.キー))?.MF仕訳ID, r.MF仕訳ID);
    }
    assert.match(String(back.get(String(done1[0].キー))?.メモ), /明細ID で復元しました/);
    // Nothing is posted again, and a re-import adds none of them.
    w.run('importTransactions');
    w.run('classifyPending');
    post(w);
    onceEach(w);
  });

  test('kept (the default): restore keys by tag and leaves other statement-line journals alone', () => {
    const w = ready();
    postingCheck(w);
    post(w);
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    const done1 = w.ledger().filter((r) => r.状態 === '完了').length;
    ledger.rows.splice(1);
    const restored = w.run('restoreLedgerFromMf').value as { restored: number };
    assert.equal(restored.restored, done1);
  });
});

describe('MF switch: whether POST /journals keeps tags (a CSV-only book)', () => {
  const CSV = [
    '日付,摘要,出金,入金',
    '2026/05/01,ﾃｽｳﾘﾖｳ,220,',
    '2026/05/02,ｱｽｸﾙ(ｶ,"1,100",',
    '2026/05/03,ﾃﾞﾝｷﾀﾞｲ,"3,300",',
  ].join('\r\n');

  function csvBook(options: FakeMfOptions): KichoWorld {
    const w = kichoWorld(options);
    const r = w.run('importCsv', { args: [CSV, '○○銀行'] });
    assert.equal((r.value as { added: number }).added, 3, JSON.stringify(r.value));
    for (const row of w.ledger()) {
      w.edit(String(row.キー), '勘定科目', '支払手数料');
      w.edit(String(row.キー), '操作', '承認');
    }
    w.run('classifyPending');
    assert.equal(waiting(w).length, 3, JSON.stringify(w.ledger().map((x) => [x.状態, x.操作])));
    return w;
  }

  test('kept: the first CSV line is posted, found by its tag; the rest posts once', () => {
    const w = csvBook({});
    const { posting } = postingCheck(w);
    assert.equal(posting.result, 'OK', posting.detail);
    assert.match(posting.detail, /MF の仕訳一覧に取引日で出てきました/);
    assert.equal(behaviour(w).createTags, 'kept');
    assert.equal(post(w).posted, 2);
    for (const r of w.ledger()) assert.equal(w.mf.journalsByTag(remoteTagOf(String(r.キー))).length, 1);
  });

  test('dropped: NG while CSV rows wait (posting stops); with none left, 注意 and CSV import is refused', () => {
    const w = csvBook({ tagsOnCreate: 'dropped' });
    const { done, posting } = postingCheck(w);
    assert.equal(posting.result, 'NG', posting.detail);
    assert.equal(posting.blocksPosting, true);
    assert.match(posting.detail, /CSV の行が 2 件あるため、登録を止めます/);
    assert.equal(done.passed, false);
    const n = creates(w);
    const refused = post(w);
    assert.equal(refused.ok, false);
    assert.match(refused.messages.join(' '), /登録を止めています: 「MF: 1 件だけ登録して確かめる」/);
    assert.equal(creates(w), n);

    // The person excludes the CSV rows: the next check no longer blocks, and CSV stays refused.
    for (const r of waiting(w)) w.edit(String(r.キー), '操作', '除外');
    w.run('classifyPending');
    const later = selfTest(w);
    assert.equal(later.byId.get('mf-posting')?.result, '注意', later.byId.get('mf-posting')?.detail);
    assert.equal(later.passed, true);
    const again = w.run('importCsv', { args: [`${CSV}\r\n2026/05/04,ｶﾞｽﾀﾞｲ,"2,200",`, '○○銀行'] });
    assert.match((again.value as { messages: string[] }).messages.join(' '), /CSV の取込と登録は行いません/);
    assert.match(
      (w.run('dryRun').value as { warnings: string[] }).warnings.join(' '),
      /CSV の取込と登録は行いません/,
    );
  });
});

describe('MF switch: how long a new journal takes to show in listings', () => {
  test('30 seconds: measured, 照合猶予 covers it', () => {
    const w = ready({ listingLagMs: 30_000 });
    const { posting } = postingCheck(w);
    assert.equal(posting.result, 'OK', posting.detail);
    assert.match(posting.detail, /登録から約 (3\d|4\d) 秒/);
    assert.ok(behaviour(w).lagMs >= 30_000);
    assert.equal(grace(w), '15');
  });

  test('listing calls (the visibility-lag fault): found on a later poll', () => {
    const w = ready();
    w.mf.injectFault({ kind: 'visibility-lag', match: { path: JOURNALIZE }, lagReads: 3 });
    const { posting } = postingCheck(w);
    assert.equal(posting.result, 'OK', posting.detail);
  });

  test('10 minutes: NG and posting stops; a later check finds it, raises 照合猶予 and says so; posting goes on', () => {
    const w = ready({ listingLagMs: 10 * MINUTE });
    const { done, posting } = postingCheck(w);
    assert.equal(posting.result, 'NG', posting.detail);
    assert.equal(posting.blocksPosting, true);
    assert.match(posting.detail, /約 2 分待っても、MF の仕訳一覧に明細ID で出てきませんでした/);
    assert.match(
      posting.detail,
      /kicho のタグ（kc-[0-9a-f]{16}）が仕訳に残っていました/,
      'read by id meanwhile',
    );
    assert.match(posting.detail, /2 回目は何も送られないことを確かめました/);
    assert.equal(done.passed, false);
    assert.ok(behaviour(w).pending);
    const n = creates(w);
    assert.equal(post(w).ok, false);
    assert.equal(creates(w), n);

    w.emu.world.clock.advance(10 * MINUTE);
    const later = selfTest(w);
    const p = later.byId.get('mf-posting');
    assert.equal(p?.question, null, 'the pending line is verified without asking');
    assert.equal(p?.result, '注意', p?.detail);
    assert.match(p?.detail ?? '', /前回（.*）の本番前チェックで登録した台帳 \d+ 行目/);
    assert.match(p?.detail ?? '', /登録から約 1[0-3] 分以内/);
    assert.match(p?.detail ?? '', /照合猶予（分）を 15 分から (30|35) 分にしました/);
    assert.match(p?.detail ?? '', /2 回目は何も送られないことを確かめました/, 'the protocol ran again');
    assert.equal(later.passed, true);
    assert.equal(behaviour(w).pending, undefined);
    assert.match(grace(w), /^(30|35)$/);
    assert.equal(creates(w), n, 'verifying sends nothing');
    assert.ok(post(w).posted > 0);
    onceEach(w);

    // A person lowers it again: the dry run says it is too short.
    w.setSetting('照合猶予（分）', '15');
    assert.match(
      (w.run('dryRun').value as { warnings: string[] }).warnings.join(' '),
      /照合猶予（分）が 15 分ですが、本番前チェックで MF が新しい仕訳を一覧に出すまでに約 1\d 分かかりました/,
    );
  });
});

describe('MF switch: whether a 5xx on a create can commit', () => {
  for (const kind of ['5xx-after-commit', '5xx-before-commit'] as const) {
    test(`${kind} during the posting check: 注意 (outcome unknown), reconcile settles it, never twice`, () => {
      const w = ready();
      w.mf.injectFault({ kind, match: { path: JOURNALIZE } });
      const { posting } = postingCheck(w);
      assert.equal(posting.result, '注意', posting.detail);
      assert.match(posting.detail, /送信の結果が分かりませんでした/);
      w.setSetting('自動実行', 'オン');
      for (let i = 0; i < 4; i++) w.emu.advance(15 * MINUTE);
      onceEach(w);
      assert.equal(w.ledger().filter((r) => r.状態 === '不明').length, 0);
    });
  }
});

describe('MF switch: whether a 429 carries Retry-After', () => {
  for (const retryAfterSeconds of [undefined, 2]) {
    test(`429 on journalize ${retryAfterSeconds ? 'with' : 'without'} Retry-After: the row waits, backs off, and posts once later`, () => {
      const w = ready();
      const before = waiting(w).length;
      w.mf.injectFault({ kind: '429', match: { method: 'POST', path: JOURNALIZE }, retryAfterSeconds });
      const first = post(w);
      assert.equal(first.posted, before - 1);
      const back = waiting(w);
      assert.equal(back.length, 1);
      assert.match(String(back[0].メモ), /MFが混み合っていたため送信を見送りました/);
      assert.equal(post(w).posted, 1);
      onceEach(w);
    });
  }
});
