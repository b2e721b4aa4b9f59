/** Events from other automations (core/events.ts): keys, field checks, loops, the plan and its read-back. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sourceNameProblem } from '../../src/core/csv/sources';
import {
  checkEvent,
  confirmEvents,
  countFailure,
  evtKey,
  evtKeySource,
  FAILURE_LIMIT,
  FAILURE_WINDOW_MS,
  failureLogged,
  loopReason,
  MAX_BODY_BYTES,
  parseEventRequest,
  planEvents,
  type SourceEvent,
  sameSecret,
  utf8Length,
} from '../../src/core/events';
import { emptyRecord } from '../../src/core/intake';
import { keyProblem } from '../../src/core/key-check';
import { remoteTagOf } from '../../src/core/keys';

const good = { id: 'o-1', date: '2026-05-01', amount: 1200, direction: '出金', description: '送料' };

function ok(raw: unknown, source = 'shop'): SourceEvent {
  const c = checkEvent(raw, source);
  assert.ok(c.ok, JSON.stringify(c));
  return c.event;
}

describe('keys', () => {
  test('evt:<取込元>:<id>[:<type>], with % : and white space encoded so a key reads one way', () => {
    assert.equal(evtKey('shop', 'order_1042', 'paid'), 'evt:shop:order_1042:paid');
    assert.equal(evtKey('shop', 'order_1042'), 'evt:shop:order_1042');
    assert.equal(evtKey('shop', 'a:b'), 'evt:shop:a%3Ab');
    assert.notEqual(evtKey('shop', 'a:b'), evtKey('shop', 'a', 'b'));
    assert.equal(evtKey('shop', '50% off 注文'), 'evt:shop:50%25%20off%20注文');
    assert.equal(evtKey('shop', 'x\u3000y'), 'evt:shop:x%E3%80%80y');
    assert.equal(evtKeySource('evt:shop:a%3Ab:paid'), 'shop');
    assert.equal(evtKey('ネット ショップ', '1'), 'evt:ネット%20ショップ:1');
    assert.equal(evtKeySource('evt:shop:'), null);
    assert.equal(evtKeySource('evt:shop:a:b:c'), null);
  });

  test('an evt: row fits its key only under its own 取込元 (口座)', () => {
    const r = { ...emptyRecord(), キー: 'evt:shop:1', 口座: 'shop' };
    assert.equal(keyProblem(r), null);
    assert.match(String(keyProblem({ ...r, 口座: 'bank' })), /口座「bank」と合いません/);
    assert.match(String(keyProblem({ ...r, キー: 'evt:shop:' })), /キーの形/);
    assert.equal(keyProblem({ ...r, キー: 'evt:ネット%20ショップ:1', 口座: 'ネット ショップ' }), null);
  });
});

describe('fields', () => {
  test('a good event; numbers as text the way no-code tools send them', () => {
    const e = ok({ ...good, amount: '１，２００円', direction: ' 出金 ', id: 1042 });
    assert.equal(e.amount, 1200);
    assert.equal(e.direction, '出金');
    assert.equal(e.id, '1042');
    assert.equal(e.key, 'evt:shop:1042');
  });

  const bad: [string, Record<string, unknown>, RegExp][] = [
    ['id', { id: '' }, /^id: 空|^id: ありません/],
    ['id', { id: 1.5 }, /^id: 数なら整数/],
    ['id', { id: '2026-05-01 10:00:01' }, /^id: 日時のように見えます/],
    ['id', { id: 'x'.repeat(101) }, /^id: 長すぎます/],
    ['id', { id: 'a\nb' }, /^id: 制御文字/],
    ['type', { type: { a: 1 } }, /^type: 文字列/],
    ['date', { date: '2026/05/01' }, /^date: 日付は yyyy-MM-dd/],
    ['date', { date: '2026-02-29' }, /^date: 日付は/],
    ['amount', { amount: 0 }, /^amount: 1以上の整数/],
    ['amount', { amount: 12.5 }, /^amount: 1以上の整数/],
    ['amount', { amount: '12円50銭' }, /^amount: 「12円50銭」は金額/],
    ['amount', { amount: 1e16 }, /^amount: 大きすぎます/],
    ['direction', { direction: 'IN' }, /^direction: 「入金」か「出金」/],
    ['description', { description: '   ' }, /^description: 空/],
    ['description', { description: 'あ'.repeat(1001) }, /^description: 長すぎます/],
    ['partner', { partner: 'p'.repeat(101) }, /^partner: 長すぎます/],
  ];
  for (const [field, patch, want] of bad) {
    test(`${field}: ${JSON.stringify(patch).slice(0, 40)} is named with its reason`, () => {
      const c = checkEvent({ ...good, ...patch }, 'shop');
      assert.equal(c.ok, false);
      if (!c.ok) assert.match(c.message, want);
    });
  }

  test('a description may hold line breaks (a memo from a form), never other control characters', () => {
    assert.equal(ok({ ...good, description: '一行目\n二行目' }).description, '一行目\n二行目');
    assert.equal(checkEvent({ ...good, description: 'a\u0007' }, 'shop').ok, false);
  });
});

describe('the request', () => {
  const parse = (body: string) => parseEventRequest(body, sourceNameProblem);
  test('the whole body: size in UTF-8 bytes, JSON, source, events', () => {
    assert.equal(utf8Length('あa😀'), 3 + 1 + 4);
    const big = JSON.stringify({
      source: 'shop',
      events: [{ ...good, description: 'x'.repeat(MAX_BODY_BYTES) }],
    });
    const tooBig = parse(big);
    assert.ok(!tooBig.ok && /大きすぎます/.test(tooBig.error));
    const justUnder = JSON.stringify({
      source: 'shop',
      events: [{ ...good, description: 'あ'.repeat(16_000) }],
    });
    assert.ok(utf8Length(justUnder) < MAX_BODY_BYTES && parse(justUnder).ok);
    for (const [body, want] of [
      ['', /本文が空/],
      ['{', /JSON として読めません/],
      ['"x"', /オブジェクト/],
      ['{"events": []}', /source/],
      ['{"source": 5, "events": [1]}', /文字列/],
      ['{"source": "shop", "events": []}', /events/],
      ['{"source": "shop", "events": {}}', /events/],
    ] as const) {
      const p = parse(body);
      assert.ok(!p.ok && want.test(p.error), `${body}: ${JSON.stringify(p)}`);
    }
  });
});

describe('loops', () => {
  test('kicho’s tag, kicho’s keys, the id of a journal kicho made', () => {
    const e = ok(good);
    assert.equal(loopReason(e, new Set()), null);
    assert.match(
      String(loopReason({ ...e, description: `x ${remoteTagOf('evt:shop:1')}` }, new Set())),
      /タグ/,
    );
    assert.match(String(loopReason({ ...e, memo: 'from mf:abc' }, new Set())), /キー/);
    assert.match(String(loopReason({ ...e, id: 'J-77' }, new Set(['J-77']))), /仕訳のID/);
    // Words that merely contain the letters are not keys.
    assert.equal(loopReason({ ...e, description: 'Comf:ort evt' }, new Set()), null);
  });
});

describe('plan and read-back', () => {
  const now = '2026-05-01T00:00:00.000Z';
  test('known keys are duplicates with their 状態; a second copy in a request follows the first', () => {
    const checked = [good, { ...good, id: 'o-2' }, good, { ...good, id: 'o-3' }].map((e) =>
      checkEvent(e, 'shop'),
    );
    const plan = planEvents(checked, 'shop', new Map([['evt:shop:o-3', '完了']]), new Set(), now);
    assert.deepEqual(
      plan.results.map((r) => [r.status, r.state]),
      [
        ['accepted', '未判定'],
        ['accepted', '未判定'],
        ['duplicate', '未判定'],
        ['duplicate', '完了'],
      ],
    );
    assert.deepEqual(
      plan.records.map((r) => [r.キー, r.状態, r.口座, r.金額, r.入出金]),
      [
        ['evt:shop:o-1', '未判定', 'shop', 1200, '出金'],
        ['evt:shop:o-2', '未判定', 'shop', 1200, '出金'],
      ],
    );
    // A row that did not read back is not claimed as recorded: the sender is told to resend.
    const confirmed = confirmEvents(plan, new Set(['evt:shop:o-1']));
    assert.equal(confirmed[0].status, 'accepted');
    assert.equal(confirmed[1].status, 'rejected');
    assert.equal(confirmed[1].retry, true);
    assert.equal('state' in confirmed[1], false);
  });
});

describe('the secret', () => {
  test('compared in full; an empty expected secret matches nothing', () => {
    assert.equal(sameSecret('abc', 'abc'), true);
    assert.equal(sameSecret('abd', 'abc'), false);
    assert.equal(sameSecret('ab', 'abc'), false);
    assert.equal(sameSecret('abcd', 'abc'), false);
    assert.equal(sameSecret('', ''), false);
  });

  test('failures counted per window; logged up to the limit, once more to say so, then quiet', () => {
    let c = countFailure(null, 0);
    const modes = [failureLogged(c)];
    for (let i = 1; i < FAILURE_LIMIT + 3; i++) {
      c = countFailure(c, i * 1000);
      modes.push(failureLogged(c));
    }
    assert.deepEqual(modes.slice(FAILURE_LIMIT - 1), ['log', 'log-limit', 'quiet', 'quiet']);
    assert.equal(countFailure(c, FAILURE_WINDOW_MS + 1).count, 1);
  });
});
