/**
 * doPost end to end (issue 17): the built bundle deployed as a web app in the emulator, requests as
 * senders make them (sim/gas/web-app.ts: the event object, the redirect to the JSON, up to 30 at once
 * interleaved call by call), posting through POST /journals against the fake MF, reconcile by tag.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededPick, WorkerPool } from '../../sim/gas/interleave';
import { answerOf, postConcurrently, postToWebApp, type WebRequest } from '../../sim/gas/web-app';
import { deleteLedgerRow } from '../../sim/person';
import { remoteTagOf } from '../../src/core/keys';
import { type KichoWorld, kichoWorld, records } from '../helpers/kicho';

interface Result {
  id: string;
  type?: string;
  status: 'accepted' | 'duplicate' | 'rejected';
  state?: string;
  message: string;
  retry?: boolean;
}
interface Answer {
  results: Result[];
  error?: string;
  retry?: boolean;
}

function addSource(w: KichoWorld, name: string, account: string): void {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === '取込元');
  assert.ok(s);
  const r = s.lastRow() + 1;
  s.setValue(r, 1, name);
  s.setValue(r, 2, account);
}

/** A 台帳 with the source 「shop」 (売掛金) and the web app's key made from the 設定 dialog. */
function shopWorld(): { w: KichoWorld; key: string } {
  const w = kichoWorld();
  addSource(w, 'shop', '売掛金');
  const made = w.run('rotateWebhookSecret');
  assert.equal(made.status, 'ok', JSON.stringify(made.error));
  const url = String((made.value as { fullUrl: string }).fullUrl);
  return { w, key: new URL(url).searchParams.get('key') as string };
}

function event(id: string, extra: Record<string, unknown> = {}) {
  return { id, date: '2026-05-01', amount: 3300, direction: '入金', description: `注文 ${id}`, ...extra };
}

function request(key: string, events: unknown[], source = 'shop'): WebRequest {
  return { query: { key }, body: JSON.stringify({ source, events }) };
}

function send(w: KichoWorld, req: WebRequest): Answer {
  const res = postToWebApp(w.emu, req);
  const a = answerOf(res);
  assert.ok(a, `a JSON answer, got ${res.status} ${res.body.slice(0, 200)}`);
  return a as Answer;
}

const evtRows = (w: KichoWorld) => w.ledger().filter((r) => String(r.キー).startsWith('evt:'));
const journalsFor = (w: KichoWorld, key: string) =>
  w.mf.journals().filter((j) => j.tags.includes(remoteTagOf(key)));

function approveAndPost(w: KichoWorld, keys: string[]): void {
  for (const k of keys) {
    w.edit(k, '勘定科目', '売上高');
    w.edit(k, '操作', '承認');
  }
  const r = w.run('postApproved');
  assert.equal(r.status, 'ok', JSON.stringify(r.error));
}

function logText(w: KichoWorld): string {
  const s = w.emu.world.spreadsheet.sheets.find((x) => x.name === 'ログ');
  const out: string[] = [];
  for (let r = 1; s && r <= s.lastRow(); r++)
    for (let c = 1; c <= s.lastColumn(); c++) out.push(String(s.value(r, c)));
  return out.join('\n');
}

/** Every cell of every sheet, as text. */
function allCells(w: KichoWorld): string {
  const out: string[] = [];
  for (const s of w.emu.world.spreadsheet.sheets)
    for (let r = 1; r <= s.lastRow(); r++)
      for (let c = 1; c <= s.lastColumn(); c++) out.push(String(s.value(r, c)));
  return out.join('\n');
}

describe('one event, once', () => {
  test('accepted as one 未判定 row; posted once with the 取込元 as the other side; a resend answers duplicate 完了', () => {
    const { w, key } = shopWorld();
    const first = send(
      w,
      request(key, [event('order_1042', { type: 'paid', partner: '', memo: 'ギフト包装' })]),
    );
    assert.equal(first.results.length, 1);
    assert.equal(first.results[0].status, 'accepted');
    assert.equal(first.results[0].state, '未判定');
    const rows = evtRows(w);
    assert.equal(rows.length, 1);
    assert.equal(rows[0].キー, 'evt:shop:order_1042:paid');
    assert.equal(rows[0].口座, 'shop');
    assert.equal(rows[0].金額, 3300);
    assert.equal(rows[0].入出金, '入金');
    assert.match(String(rows[0].メモ), /ギフト包装/);

    const again = send(w, request(key, [event('order_1042', { type: 'paid' })]));
    assert.equal(again.results[0].status, 'duplicate');
    assert.equal(again.results[0].state, '未判定');
    assert.equal(evtRows(w).length, 1);

    approveAndPost(w, ['evt:shop:order_1042:paid']);
    const journals = journalsFor(w, 'evt:shop:order_1042:paid');
    assert.equal(journals.length, 1);
    const j = journals[0];
    const names = new Set(j.branches.flatMap((b) => [b.debitor?.account_name, b.creditor?.account_name]));
    assert.ok(names.has('売掛金') && names.has('売上高'), JSON.stringify(j.branches));
    assert.equal(evtRows(w)[0].状態, '完了');

    const late = send(w, request(key, [event('order_1042', { type: 'paid' })]));
    assert.equal(late.results[0].status, 'duplicate');
    assert.equal(late.results[0].state, '完了');
    assert.equal(w.run('postApproved').status, 'ok');
    assert.equal(journalsFor(w, 'evt:shop:order_1042:paid').length, 1);
  });

  test('the same id with another type is another event; ids with ":" and spaces give keys that read one way', () => {
    const { w, key } = shopWorld();
    const a = send(
      w,
      request(key, [
        event('1042', { type: 'paid' }),
        event('1042', { type: 'refunded', direction: '出金' }),
        event('gid://shop/Order 7'),
      ]),
    );
    assert.deepEqual(
      a.results.map((r) => r.status),
      ['accepted', 'accepted', 'accepted'],
    );
    assert.deepEqual(
      evtRows(w)
        .map((r) => r.キー)
        .sort(),
      ['evt:shop:1042:paid', 'evt:shop:1042:refunded', 'evt:shop:gid%3A//shop/Order%207'],
    );
  });

  test('hostile text lands as text: a formula in a description is never evaluated', () => {
    const { w, key } = shopWorld();
    const hostile = ['=HYPERLINK("http://evil.example","x")', '+1+1', '@SUM(A1)', "'0123", '-2'];
    send(
      w,
      request(
        key,
        hostile.map((d, i) => event(`h${i}`, { description: d, partner: '=1+2' })),
      ),
    );
    const sheet = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    for (let r = 2; sheet && r <= sheet.lastRow(); r++)
      for (let c = 1; c <= sheet.lastColumn(); c++)
        assert.equal(sheet.meta(r, c)?.formula, undefined, `formula at ${r},${c}`);
    const byId = new Map(evtRows(w).map((r) => [String(r.キー), r]));
    hostile.forEach((d, i) => {
      assert.equal(byId.get(`evt:shop:h${i}`)?.摘要, d);
      assert.equal(byId.get(`evt:shop:h${i}`)?.取引先, '=1+2');
    });
  });
});

describe('bad requests lose nothing and say why', () => {
  test('a bad field rejects that event with the field and the reason; the good events of the request are recorded', () => {
    const { w, key } = shopWorld();
    const a = send(
      w,
      request(key, [
        event('ok1'),
        event('d1', { date: '2026-02-30' }),
        event('a1', { amount: -5 }),
        event('a2', { amount: '1,200' }),
        event('r1', { direction: 'income' }),
        event('t1', { id: '2026-05-01T10:00:00Z' }),
        { date: '2026-05-01' },
        event('x1', { description: '' }),
        'not an object',
        event('ok2'),
      ]),
    );
    const by = a.results.map((r) => [r.status, r.message.split(':')[0]]);
    assert.deepEqual(by, [
      ['accepted', '台帳に「未判定」で記録しました。判定と確認のあとでMFに登録します。'],
      ['rejected', 'date'],
      ['rejected', 'amount'],
      ['accepted', '台帳に「未判定」で記録しました。判定と確認のあとでMFに登録します。'],
      ['rejected', 'direction'],
      ['rejected', 'id'],
      ['rejected', 'id'],
      ['rejected', 'description'],
      ['rejected', 'イベント'],
      ['accepted', '台帳に「未判定」で記録しました。判定と確認のあとでMFに登録します。'],
    ]);
    assert.match(a.results[5].message, /受信時刻/);
    assert.deepEqual(
      evtRows(w)
        .map((r) => r.キー)
        .sort(),
      ['evt:shop:a2', 'evt:shop:ok1', 'evt:shop:ok2'],
    );
    assert.equal(evtRows(w).find((r) => r.キー === 'evt:shop:a2')?.金額, 1200);
  });

  test('malformed and oversize bodies, too many events, an unknown 取込元: one error, nothing recorded; every event that could be read has a result of its own', () => {
    const { w, key } = shopWorld();
    const cases: [WebRequest, RegExp, number][] = [
      [{ query: { key }, body: '' }, /本文が空/, 0],
      [{ query: { key }, body: '{"source": "shop", "events": [' }, /JSON として読めません/, 0],
      [{ query: { key }, body: '[1,2]' }, /オブジェクト/, 0],
      [{ query: { key }, body: JSON.stringify({ events: [event('e')] }) }, /source/, 1],
      [{ query: { key }, body: JSON.stringify({ source: 'shop' }) }, /events/, 0],
      [
        request(
          key,
          Array.from({ length: 101 }, (_, i) => event(`m${i}`)),
        ),
        /101 件/,
        101,
      ],
      [
        request(
          key,
          [event('big', { description: 'あ'.repeat(900) })].concat(
            Array.from({ length: 60 }, (_, i) => event(`b${i}`, { description: 'い'.repeat(300) })),
          ),
        ),
        /大きすぎます/,
        0,
      ],
      [
        request(key, [event('u1'), event('u2', { type: 'paid' })], 'unknown-shop'),
        /取込元「unknown-shop」がシート「取込元」にありません/,
        2,
      ],
      [request(key, [event('c1')], 'a:b'), /「:」/, 1],
      [
        { query: { key }, body: 'source=shop&id=1', contentType: 'application/x-www-form-urlencoded' },
        /JSON/,
        0,
      ],
    ];
    for (const [req, want, readable] of cases) {
      const a = send(w, req);
      assert.match(String(a.error), want);
      assert.equal(a.retry, false);
      // Issue 25: a request refused as a whole still answers each event it could read, with the reason.
      assert.equal(a.results.length, readable, String(want));
      for (const r of a.results) {
        assert.equal(r.status, 'rejected');
        assert.match(r.message, want);
        assert.equal(r.retry, false);
      }
    }
    const unknownShop = send(w, cases[7][0]);
    assert.deepEqual(
      unknownShop.results.map((r) => [r.id, r.type]),
      [
        ['u1', undefined],
        ['u2', 'paid'],
      ],
    );
    assert.equal(evtRows(w).length, 0);
  });

  test('a wrong or missing key: one generic answer naming no secret; logged without it; repeated failures go quiet, the right key still works', () => {
    const { w, key } = shopWorld();
    const wrong = [`${key.slice(0, -1)}0`, '', 'x'];
    const answers = [
      send(w, request(wrong[0], [event('s1')])),
      send(w, { body: JSON.stringify({ source: 'shop', events: [event('s2')] }) }),
      send(w, request(wrong[2], [event('s3')])),
    ];
    for (const a of answers) {
      assert.deepEqual(a.results, []);
      assert.equal(a.error, answers[0].error);
      assert.ok(!String(a.error).includes(key.slice(0, 8)));
      assert.ok(!JSON.stringify(a).includes(wrong[0].slice(0, 8)));
    }
    assert.equal(evtRows(w).length, 0);
    const logLines = () => logText(w).split('正しくない key').length - 1;
    assert.equal(logLines(), 3);
    for (let i = 0; i < 20; i++) send(w, request(`bad${i}`, [event(`q${i}`)]));
    // Ten logged in the window, then one line saying the rest go unlogged.
    assert.equal(logLines(), 11);
    assert.match(logText(w), /10 分間は、断った記録をログに 1 行ずつは残しません/);
    assert.equal(send(w, request(key, [event('good')])).results[0].status, 'accepted');
    assert.ok(!allCells(w).includes(key.slice(0, 8)), 'the secret is on no sheet');
    // The window passes: failures are logged again.
    w.emu.world.clock.advance(11 * 60_000);
    send(w, request('bad-again', [event('q')]));
    assert.equal(logLines(), 12);
  });

  test('no key made yet: every request gets the generic rejection', () => {
    const w = kichoWorld();
    addSource(w, 'shop', '売掛金');
    const a = send(w, request('', [event('n1')]));
    assert.match(String(a.error), /受け付けられませんでした/);
    const b = send(w, request('anything', [event('n1')]));
    assert.equal(b.error, a.error);
    assert.equal(evtRows(w).length, 0);
  });

  test('rotating the key stops the old URL at once; disabling stops every URL', () => {
    const { w, key } = shopWorld();
    const r = w.run('rotateWebhookSecret');
    const fresh = new URL(String((r.value as { fullUrl: string }).fullUrl)).searchParams.get('key') as string;
    assert.notEqual(fresh, key);
    assert.match(String((r.value as { message: string }).message), /前の URL はもう使えません/);
    assert.match(String(send(w, request(key, [event('o1')])).error), /受け付けられませんでした/);
    assert.equal(send(w, request(fresh, [event('o1')])).results[0].status, 'accepted');
    const info = w.run('webhookInfo').value as { enabled: boolean; url: string };
    assert.equal(info.enabled, true);
    assert.ok(!JSON.stringify(info).includes(fresh), 'the key is shown once only');
    w.run('disableWebhook');
    assert.match(String(send(w, request(fresh, [event('o2')])).error), /受け付けられませんでした/);
    assert.ok(!logText(w).includes(fresh.slice(0, 8)) && !logText(w).includes(key.slice(0, 8)));
  });

  test('not deployed as a web app yet: the dialog says how, and shows no URL', () => {
    const w = kichoWorld();
    w.emu.world.webAppDeployment = null;
    const r = w.run('rotateWebhookSecret').value as { fullUrl: string; message: string };
    assert.equal(r.fullUrl, '');
    assert.match(r.message, /デプロイ > 新しいデプロイ > ウェブアプリ/);
  });

  test('a sender that does not follow the redirect sees a 302 and no JSON (the recipes say to follow it)', () => {
    const { w, key } = shopWorld();
    const res = postToWebApp(w.emu, request(key, [event('r1')]), { followRedirects: false });
    assert.equal(res.status, 302);
    assert.match(String(res.location), /^https:\/\/script\.googleusercontent\.com\//);
    assert.equal(answerOf(res), null);
    // The event was recorded all the same; following the redirect next time answers duplicate.
    assert.equal(send(w, request(key, [event('r1')])).results[0].status, 'duplicate');
  });
});

describe('a posted event whose row a person deleted, sent again', () => {
  test('long after: recorded again, then found in MF by its tag before any send — one journal, 完了', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('del-1')]));
    approveAndPost(w, ['evt:shop:del-1']);
    assert.equal(journalsFor(w, 'evt:shop:del-1').length, 1);
    w.emu.world.clock.advance(60 * 60_000);
    deleteLedgerRow(w.emu.world, 'evt:shop:del-1');
    const again = send(w, request(key, [event('del-1')]));
    assert.equal(again.results[0].status, 'accepted');
    approveAndPost(w, ['evt:shop:del-1']);
    assert.equal(journalsFor(w, 'evt:shop:del-1').length, 1, 'never a second journal');
    const row = evtRows(w).find((r) => r.キー === 'evt:shop:del-1');
    assert.equal(row?.状態, '完了');
    assert.equal(row?.MF仕訳ID, journalsFor(w, 'evt:shop:del-1')[0].id);
    // Found, not sent: no 指紋 claims this row's content is what the journal carries (seed 978160).
    assert.equal(row?.指紋, '');
  });

  test('its 取引日 changed before posting, then 台帳を復元: found in the whole accounting period — one journal (seed 950018)', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('del-3')]));
    w.edit('evt:shop:del-3', '取引日', '2026-05-28');
    approveAndPost(w, ['evt:shop:del-3']);
    assert.equal(journalsFor(w, 'evt:shop:del-3')[0].transaction_date, '2026-05-28');
    w.emu.world.clock.advance(60 * 60_000);
    deleteLedgerRow(w.emu.world, 'evt:shop:del-3');
    // 台帳を復元 cannot key an event's journal again, and resets the count of sent rows.
    assert.equal(w.run('restoreLedgerFromMf').status, 'ok');
    // The sender resends it with its own date, 05-01.
    assert.equal(send(w, request(key, [event('del-3')])).results[0].status, 'accepted');
    approveAndPost(w, ['evt:shop:del-3']);
    assert.equal(journalsFor(w, 'evt:shop:del-3').length, 1, 'never a second journal');
    const row = evtRows(w).find((r) => r.キー === 'evt:shop:del-3');
    assert.equal(row?.状態, '完了');
    assert.equal(row?.MF仕訳ID, journalsFor(w, 'evt:shop:del-3')[0].id);
  });

  test('a moment after: recorded as 不明 (sent a moment ago), looked up by reconcile, never sent twice', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('del-2')]));
    approveAndPost(w, ['evt:shop:del-2']);
    deleteLedgerRow(w.emu.world, 'evt:shop:del-2');
    const again = send(w, request(key, [event('del-2')]));
    assert.equal(again.results[0].status, 'accepted');
    assert.equal(again.results[0].state, '不明');
    assert.equal(w.run('reconcile').status, 'ok');
    w.emu.world.clock.advance(30 * 60_000);
    assert.equal(w.run('reconcile').status, 'ok');
    assert.equal(w.run('postApproved').status, 'ok');
    assert.equal(journalsFor(w, 'evt:shop:del-2').length, 1);
    assert.equal(evtRows(w).find((r) => r.キー === 'evt:shop:del-2')?.状態, '完了');
  });
});

describe('loops', () => {
  test('an event made from kicho’s own output is refused and says so', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('loop-src')]));
    approveAndPost(w, ['evt:shop:loop-src']);
    const journalId = String(evtRows(w)[0].MF仕訳ID);
    assert.ok(journalId !== '');
    const a = send(
      w,
      request(key, [
        event(journalId),
        event('l2', { description: `仕訳 ${remoteTagOf('evt:shop:loop-src')}` }),
        event('l3', { memo: 'evt:shop:loop-src' }),
        event('fine', { description: '通常の注文' }),
      ]),
    );
    assert.deepEqual(
      a.results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected', 'accepted'],
    );
    for (const r of a.results.slice(0, 3)) assert.match(r.message, /ループを防ぐため記録していません/);
    assert.equal(evtRows(w).length, 2);
  });
});

describe('guards answer JSON too', () => {
  test('a 台帳 renamed away: nothing recorded, the answer says what to fix and that a retry is then safe', () => {
    const { w, key } = shopWorld();
    const ledger = w.emu.world.spreadsheet.sheets.find((s) => s.name === '台帳');
    assert.ok(ledger);
    ledger.name = '台帳（旧）';
    const a = send(w, request(key, [event('g1')]));
    assert.deepEqual(
      a.results.map((r) => [r.id, r.status, r.retry]),
      [['g1', 'rejected', true]],
    );
    assert.equal(a.results[0].message, a.error);
    assert.equal(a.retry, true);
    assert.match(String(a.error), /台帳/);
    assert.match(String(a.error), /送り直してください（二重にはなりません）/);
  });

  test('a missing permission: the answer says so, nothing recorded', () => {
    const { w, key } = shopWorld();
    w.emu.world.grants.set(w.emu.world.owner, [
      'https://www.googleapis.com/auth/spreadsheets.currentonly',
      'https://www.googleapis.com/auth/script.container.ui',
    ]);
    const a = send(w, request(key, [event('p1')]));
    assert.deepEqual(
      a.results.map((r) => [r.id, r.status, r.retry]),
      [['p1', 'rejected', true]],
    );
    assert.equal(a.retry, true);
    assert.match(String(a.error), /権限|許可/);
    assert.equal(evtRows(w).length, 0);
  });
});

describe('concurrency', () => {
  test('30 copies of one event at the same moment: one row, and after posting one journal', () => {
    const pool = new WorkerPool();
    try {
      for (const seed of [1, 2, 3]) {
        const { w, key } = shopWorld();
        const reqs = Array.from({ length: 30 }, () => request(key, [event('same-1')]));
        const wave = postConcurrently(w.emu.world, reqs, seededPick(seed), { pool });
        const answers = wave.responses.map((r) => answerOf(r) as Answer | null);
        assert.ok(
          answers.every((a) => a !== null),
          'every copy gets a JSON answer',
        );
        const statuses = answers.map((a) => (a as Answer).results[0]);
        assert.equal(statuses.filter((r) => r.status === 'accepted').length, 1, `seed ${seed}`);
        // The rest are duplicates, or told the lock was busy and a retry is safe.
        for (const r of statuses) assert.ok(r.status !== 'rejected' || r.retry === true, JSON.stringify(r));
        assert.equal(evtRows(w).length, 1, `seed ${seed}: one row`);
        approveAndPost(w, ['evt:shop:same-1']);
        assert.equal(journalsFor(w, 'evt:shop:same-1').length, 1);
      }
    } finally {
      pool.close();
    }
  });

  test('a burst of 1,000 distinct events across requests: each recorded once, within the quotas', () => {
    const pool = new WorkerPool();
    try {
      const { w, key } = shopWorld();
      const ids = Array.from({ length: 1000 }, (_, i) => `burst-${i}`);
      let pending: string[][] = [];
      for (let i = 0; i < ids.length; i += 20) pending.push(ids.slice(i, i + 20));
      let waves = 0;
      let requests = 0;
      let propertyOps = 0;
      while (pending.length > 0 && waves < 20) {
        const batch = pending.slice(0, 30);
        const wave = postConcurrently(
          w.emu.world,
          batch.map((b) =>
            request(
              key,
              b.map((id) => event(id)),
            ),
          ),
          seededPick(waves + 7),
          { pool },
        );
        waves += 1;
        requests += batch.length;
        for (const e of wave.executions) propertyOps += e?.counters.propertyOps ?? 0;
        // A sender resends what was not answered accepted/duplicate (busy lock, no answer).
        const retry: string[][] = [];
        wave.responses.forEach((res, i) => {
          const a = answerOf(res) as Answer | null;
          const again = a ? a.results.filter((r) => r.status === 'rejected').map((r) => r.id) : batch[i];
          if (again.length > 0) retry.push(again);
        });
        pending = [...retry, ...pending.slice(30)];
      }
      assert.deepEqual(pending, []);
      const keys = evtRows(w).map((r) => String(r.キー));
      assert.equal(keys.length, 1000);
      assert.equal(new Set(keys).size, 1000);
      // Apps Script's daily quotas: Properties 50,000 a day (consumer); executions ≤ 30 at once (by construction).
      assert.ok(propertyOps < 50_000 / 10, `property reads/writes ${propertyOps} for ${requests} requests`);
      for (const e of w.emu.world.executions.values()) assert.deepEqual(e.internalErrors, []);
    } finally {
      pool.close();
    }
  });

  test('killed at any call mid-request: the events are recorded or the sender is told nothing (and resends) — never half', () => {
    const pool = new WorkerPool();
    try {
      const probe = shopWorld();
      const calls =
        postConcurrently(
          probe.w.emu.world,
          [request(probe.key, [event('k1'), event('k2'), event('k3')])],
          seededPick(1),
          { pool },
        ).executions[0]?.calls ?? 0;
      assert.ok(calls > 10, `a request makes ${calls} calls`);
      for (let at = 1; at <= calls; at++) {
        const { w, key } = shopWorld();
        const req = { ...request(key, [event('k1'), event('k2'), event('k3')]), killAtCall: at };
        const wave = postConcurrently(w.emu.world, [req], seededPick(at), { pool });
        const answer = answerOf(wave.responses[0]);
        const rows = evtRows(w).length;
        assert.ok(rows === 0 || rows === 3, `kill at call ${at}: ${rows} rows`);
        if (rows === 0) assert.equal(answer, null, `kill at ${at}: no JSON when nothing was recorded`);
        // The sender resends (no JSON = retry): every event is there exactly once afterwards.
        const again = send(w, request(key, [event('k1'), event('k2'), event('k3')]));
        assert.deepEqual(
          again.results.map((r) => r.status),
          rows === 3 ? ['duplicate', 'duplicate', 'duplicate'] : ['accepted', 'accepted', 'accepted'],
          `kill at ${at}`,
        );
        assert.equal(evtRows(w).length, 3);
      }
    } finally {
      pool.close();
    }
  });
});

describe('要確認', () => {
  test('an event left 未判定 for a day is listed with a reason that says so', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('stale-1')]));
    w.emu.world.clock.advance(25 * 3_600_000);
    const r = w.run('openReview');
    assert.equal(r.status, 'ok', JSON.stringify(r.error));
    const review = w.emu.world.spreadsheet.sheets.find((s) => s.name === '要確認');
    assert.ok(review);
    const text: string[] = [];
    for (let row = 1; row <= review.lastRow(); row++)
      for (let c = 1; c <= review.lastColumn(); c++) text.push(String(review.value(row, c)));
    assert.match(text.join('\n'), /送信元から届いて 25 時間/);
  });
});

/** The 要確認 sheet as records. */
function reviewList(w: KichoWorld): Record<string, unknown>[] {
  return records(w.emu, '要確認');
}

describe('issue 25: what a sender gets wrong is answered, never silently dropped', () => {
  test('the same id with other content, not yet posted: answered apart (rejected, differs), the row held at 要確認 naming what differs', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('fix-1', { type: 'paid' })]));
    // The sender corrects the amount and the description and sends the same id again.
    const a = send(
      w,
      request(key, [event('fix-1', { type: 'paid', amount: 3500, description: '注文 fix-1（訂正）' })]),
    );
    const r = a.results[0] as Result & { differs?: string[] };
    assert.equal(r.status, 'rejected');
    assert.deepEqual(r.differs, ['amount', 'description']);
    assert.equal(r.state, '要確認');
    assert.equal(r.retry, false);
    assert.match(
      r.message,
      /内容が前と違います（金額: 台帳 3,300 円 → 今回 3,500 円、摘要: 台帳「注文 fix-1」 → 今回「注文 fix-1（訂正）」）/,
    );
    assert.match(r.message, /今回の内容は記録していません/);
    const row = evtRows(w).find((x) => x.キー === 'evt:shop:fix-1:paid');
    assert.equal(row?.状態, '要確認');
    assert.equal(row?.金額, 3300, 'the first content stays until a person decides');
    assert.match(
      String(row?.メモ),
      /送信元から同じ id で内容の違うイベントが届きました.*金額: 台帳 3,300 円 → 今回 3,500 円/,
    );
    // Listed on 要確認 at once, with what to do.
    const listed = reviewList(w).find((x) => x.キー === 'evt:shop:fix-1:paid');
    assert.ok(listed, 'on 要確認 without waiting for a refresh');
    assert.match(String(listed.理由), /金額: 台帳 3,300 円 → 今回 3,500 円/);
    assert.match(String(listed.対応), /台帳の取引日・入出金・金額・摘要を直してから/);
    // Posting sends nothing for it until a person approves.
    w.edit('evt:shop:fix-1:paid', '勘定科目', '売上高');
    assert.equal(w.run('postApproved').status, 'ok');
    assert.equal(journalsFor(w, 'evt:shop:fix-1:paid').length, 0);
    // A plain resend of the first content is a duplicate again; the log line says what came in.
    assert.equal(send(w, request(key, [event('fix-1', { type: 'paid' })])).results[0].status, 'duplicate');
    assert.match(logText(w), /記録済みの id で内容の違うもの 1 件/);
    // The person fixes the amount and approves: posted once, with the corrected amount.
    w.edit('evt:shop:fix-1:paid', '金額', 3500);
    w.edit('evt:shop:fix-1:paid', '操作', '承認');
    assert.equal(w.run('postApproved').status, 'ok');
    const journals = journalsFor(w, 'evt:shop:fix-1:paid');
    assert.equal(journals.length, 1);
    assert.equal(journals[0].branches[0].debitor?.value, 3500);
  });

  test('the same id with other content after posting: 完了 stays, no second journal, listed on 要確認 until a person clears the メモ', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('fix-2')]));
    approveAndPost(w, ['evt:shop:fix-2']);
    const journal = String(evtRows(w)[0].MF仕訳ID);
    const a = send(w, request(key, [event('fix-2', { date: '2026-05-02' })]));
    assert.equal(a.results[0].status, 'rejected');
    assert.equal(a.results[0].state, '完了');
    assert.deepEqual((a.results[0] as { differs?: string[] }).differs, ['date']);
    assert.match(a.results[0].message, /取引日: 台帳 2026-05-01 → 今回 2026-05-02/);
    const row = evtRows(w)[0];
    assert.equal(row.状態, '完了');
    assert.equal(row.MF仕訳ID, journal);
    assert.equal(journalsFor(w, 'evt:shop:fix-2').length, 1);
    // Listed now, and still after the refreshes that only read unsettled rows (a scheduled run).
    assert.ok(reviewList(w).some((x) => x.キー === 'evt:shop:fix-2'));
    assert.equal(w.run('runScheduled', { kind: 'trigger' }).status, 'ok');
    const listed = reviewList(w).find((x) => x.キー === 'evt:shop:fix-2');
    assert.ok(listed, 'still listed after a scheduled refresh');
    assert.match(String(listed.対応), /MFで仕訳を直してください.*メモを消すと一覧から外れます/);
    assert.equal(journalsFor(w, 'evt:shop:fix-2').length, 1, 'nothing resent');
    w.edit('evt:shop:fix-2', 'メモ', '');
    assert.equal(w.run('openReview').status, 'ok');
    assert.ok(!reviewList(w).some((x) => x.キー === 'evt:shop:fix-2'));
  });

  test('a person corrected the row, then the sender resends what it first sent: a plain duplicate, the approval stands', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('kept')]));
    w.edit('evt:shop:kept', '金額', 3000);
    w.edit('evt:shop:kept', '勘定科目', '売上高');
    w.edit('evt:shop:kept', '操作', '承認');
    assert.equal(w.run('classifyPending').status, 'ok');
    assert.equal(evtRows(w)[0].状態, '送信待ち');
    const again = send(w, request(key, [event('kept')]));
    assert.equal(again.results[0].status, 'duplicate');
    assert.equal(again.results[0].state, '送信待ち');
    assert.equal(evtRows(w)[0].状態, '送信待ち');
    assert.ok(!reviewList(w).some((x) => x.キー === 'evt:shop:kept'));
    // Then the sender does correct it: that is said, against the row as the person left it.
    const fixed = send(w, request(key, [event('kept', { amount: 3100 })]));
    assert.equal(fixed.results[0].status, 'rejected');
    assert.match(fixed.results[0].message, /金額: 台帳 3,000 円 → 今回 3,100 円/);
    assert.equal(evtRows(w)[0].状態, '要確認');
  });

  test('the same id twice in one request with other content: the first recorded at 要確認, the second answered with what differs', () => {
    const { w, key } = shopWorld();
    const a = send(w, request(key, [event('twice'), event('twice', { amount: 4400 })]));
    assert.deepEqual(
      a.results.map((r) => [r.status, r.state]),
      [
        ['accepted', '要確認'],
        ['rejected', undefined],
      ],
    );
    assert.match(a.results[1].message, /金額: 台帳 3,300 円 → 今回 4,400 円/);
    assert.equal(evtRows(w).length, 1);
    assert.equal(evtRows(w)[0].状態, '要確認');
  });

  test('the same id with other content while its send is being checked (不明): nothing written, the sender is asked to send it again later', () => {
    const { w, key } = shopWorld();
    send(w, request(key, [event('fly')]));
    w.edit('evt:shop:fly', '状態', '不明');
    const a = send(w, request(key, [event('fly', { amount: 1 })]));
    assert.equal(a.results[0].status, 'rejected');
    assert.equal(a.results[0].retry, true);
    assert.match(a.results[0].message, /送信を確かめている途中（不明）/);
    assert.equal(evtRows(w)[0].状態, '不明');
    assert.equal(evtRows(w)[0].メモ, '');
  });

  test('a field kicho does not know is refused by name (account: 交際費 says where the 勘定科目 is chosen); so is one in the body', () => {
    const { w, key } = shopWorld();
    const a = send(
      w,
      request(key, [event('f1', { account: '交際費' }), event('f2', { note: 'x', memo: 'ok' }), event('f3')]),
    );
    assert.deepEqual(
      a.results.map((r) => r.status),
      ['rejected', 'rejected', 'accepted'],
    );
    assert.match(
      a.results[0].message,
      /^account: kicho はこの項目を受け取りません。勘定科目・補助科目・税区分は台帳で決めます/,
    );
    assert.match(
      a.results[1].message,
      /^note: kicho の知らない項目です（使える項目: id, type, date, amount, direction, description, partner, memo）/,
    );
    assert.deepEqual(
      evtRows(w).map((r) => r.キー),
      ['evt:shop:f3'],
    );
    const body = send(w, {
      query: { key },
      body: JSON.stringify({ sorce: 'shop', source: 'shop', events: [event('f4')] }),
    });
    assert.match(String(body.error), /本文の項目「sorce」は kicho の知らない項目です/);
    assert.equal(body.results[0].id, 'f4');
    assert.equal(evtRows(w).length, 1);
  });

  test('text that is no UTF-8 (U+FFFD from a wrong encoding, a lone surrogate) is refused naming the field and the position', () => {
    const { w, key } = shopWorld();
    const a = send(
      w,
      request(key, [
        event('t1', { description: '注文\uFFFD\uFFFD' }),
        event('t2', { partner: 'ACME \uD83D' }),
        event('t3\uDE00'),
        event('t4', { memo: 'ok 😀' }),
      ]),
    );
    assert.deepEqual(
      a.results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected', 'accepted'],
    );
    assert.match(a.results[0].message, /^description: 3 文字目に読めない文字があります.*UTF-8/);
    assert.match(a.results[1].message, /^partner: 6 文字目に読めない文字があります/);
    assert.match(a.results[2].message, /^id: 3 文字目に読めない文字があります/);
    assert.deepEqual(
      evtRows(w).map((r) => r.キー),
      ['evt:shop:t4'],
    );
    const bad = send(w, request(key, [event('t5')], 'sh\uFFFDp'));
    assert.match(String(bad.error), /source（取込元の名前）が正しくありません: 3 文字目に読めない文字/);
    assert.equal(bad.results.length, 1);
  });

  test('an amount above MF’s own limit for a line (¥999,999,999,999) is refused with the limit; the limit itself is accepted', () => {
    const { w, key } = shopWorld();
    const a = send(
      w,
      request(key, [
        event('big', { amount: 10_000_000_000_000 }),
        event('big2', { amount: '1,000,000,000,000' }),
        event('max', { amount: 999_999_999_999 }),
      ]),
    );
    assert.deepEqual(
      a.results.map((r) => r.status),
      ['rejected', 'rejected', 'accepted'],
    );
    assert.match(
      a.results[0].message,
      /^amount: 大きすぎます（999,999,999,999 円まで。MF の明細の金額の上限です）/,
    );
    assert.deepEqual(
      evtRows(w).map((r) => r.キー),
      ['evt:shop:max'],
    );
  });

  test('a JSON body that starts with a byte order mark is read (RFC 8259 §8.1 lets a parser ignore it)', () => {
    const { w, key } = shopWorld();
    const a = send(w, {
      query: { key },
      body: `\uFEFF${JSON.stringify({ source: 'shop', events: [event('bom')] })}`,
    });
    assert.equal(a.results[0].status, 'accepted', JSON.stringify(a));
    assert.equal(evtRows(w)[0].キー, 'evt:shop:bom');
  });
});
