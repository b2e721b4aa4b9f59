/** Events from other automations (core/events.ts): keys, field checks, loops, the plan and its read-back. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { oldEnough } from '../../src/core/archive';
import { sourceNameProblem } from '../../src/core/csv/sources';
import {
  EVENT_MEMORY_CAP,
  eventDigest,
  formatEventMemory,
  parseEventMemory,
  rememberEvents,
  rememberedDigest,
} from '../../src/core/event-memory';
import {
  checkEvent,
  confirmEvents,
  countFailure,
  describeDifferences,
  EVENT_CHANGED_MEMO,
  eventDifferences,
  evtKey,
  evtKeySource,
  FAILURE_LIMIT,
  FAILURE_WINDOW_MS,
  failureLogged,
  isEventChangedMemo,
  loopReason,
  MAX_BODY_BYTES,
  MAX_EVENTS,
  parseEventRequest,
  planEvents,
  refuseEach,
  type SourceEvent,
  sameSecret,
  unreadableAt,
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

describe('issue 25: what a sender gets wrong', () => {
  test('unreadableAt: U+FFFD and lone surrogates by character position; pairs and plain text are fine', () => {
    assert.equal(unreadableAt('注文 😀 abc'), 0);
    assert.equal(unreadableAt('ab\uFFFD'), 3);
    assert.equal(unreadableAt('😀x\uD83D'), 3, 'a pair counts as one character');
    assert.equal(unreadableAt('\uDE00'), 1);
    assert.equal(unreadableAt('\uD83Dx'), 1);
  });

  test('a leading BOM is read; one elsewhere is not JSON', () => {
    const body = JSON.stringify({ source: 'shop', events: [good] });
    assert.ok(parseEventRequest(`\uFEFF${body}`, sourceNameProblem).ok);
    const inside = parseEventRequest(` \uFEFF${body}`, sourceNameProblem);
    assert.ok(!inside.ok && /JSON/.test(inside.error));
  });

  test('a request refused as a whole carries its events, so each gets an answer', () => {
    const many = parseEventRequest(
      JSON.stringify({ source: 'shop', events: Array.from({ length: MAX_EVENTS + 1 }, () => good) }),
      sourceNameProblem,
    );
    assert.ok(!many.ok && many.events?.length === MAX_EVENTS + 1);
    const answers = refuseEach([good, { id: 7, type: 'paid' }, 'x'], 'だめ', false);
    assert.deepEqual(
      answers.map((a) => [a.id, a.type, a.status, a.message, a.retry]),
      [
        ['o-1', undefined, 'rejected', 'だめ', false],
        ['7', 'paid', 'rejected', 'だめ', false],
        ['', undefined, 'rejected', 'だめ', false],
      ],
    );
  });

  test('eventDifferences: the line’s own fields, and the partner when the sender gives one; never メモ', () => {
    const row = {
      ...emptyRecord(),
      取引日: '2026-05-01',
      入出金: '出金',
      金額: 1200,
      摘要: '送料',
      取引先: '株式会社ACME',
    };
    assert.deepEqual(eventDifferences(ok({ ...good, memo: 'm' }), row as never), []);
    assert.deepEqual(
      eventDifferences(ok({ ...good, partner: 'ACME' }), row as never).map((d) => d.field),
      ['partner'],
    );
    const diffs = eventDifferences(ok({ ...good, amount: 1300, direction: '入金' }), row as never);
    assert.deepEqual(
      diffs.map((d) => d.field),
      ['direction', 'amount'],
    );
    assert.equal(
      describeDifferences(diffs),
      '入出金: 台帳 出金 → 今回 入金、金額: 台帳 1,200 円 → 今回 1,300 円',
    );
  });

  test('planEvents: a changed resend of an unsent row holds it at 要確認; of a 完了 row marks its メモ; of a 送信中 row writes nothing', () => {
    const now = '2026-11-30T00:00:00.000Z';
    const checked = [checkEvent({ ...good, amount: 999 }, 'shop')];
    const key = evtKey('shop', 'o-1');
    const rowIn = (state: string) =>
      new Map([
        [
          key,
          {
            rowNumber: 5,
            record: {
              ...emptyRecord(),
              キー: key,
              状態: state,
              取引日: '2026-05-01',
              入出金: '出金',
              金額: 1200,
              摘要: '送料',
            },
          },
        ],
      ]) as never;
    for (const [state, next, patchState, retry] of [
      ['送信待ち', '要確認', '要確認', false],
      ['失敗', '要確認', '要確認', false],
      ['完了', '完了', undefined, false],
      ['除外', '除外', undefined, false],
      ['送信中', '送信中', null, true],
      ['不明', '不明', null, true],
    ] as const) {
      // Received first as 1,200 円: the digest remembered then is not this one's.
      const first = eventDigest(ok(good));
      const plan = planEvents(
        checked,
        'shop',
        new Map([[key, state]]),
        new Set(),
        now,
        rowIn(state),
        () => first,
      );
      assert.equal(plan.results[0].status, 'rejected', state);
      assert.equal(plan.results[0].state, next, state);
      assert.equal(plan.results[0].retry, retry, state);
      assert.deepEqual(plan.results[0].differs, ['amount'], state);
      assert.equal(plan.records.length, 0);
      if (patchState === null) {
        assert.deepEqual(plan.changes, [], state);
        assert.equal(plan.remember.size, 0, 'asked to retry: compared again then');
      } else {
        assert.equal(plan.changes[0].rowNumber, 5);
        assert.equal(plan.changes[0].patch.状態, patchState, state);
        assert.ok(isEventChangedMemo(String(plan.changes[0].patch.メモ)), state);
      }
    }
  });
});

describe('issue 25: the memory of what each id carried', () => {
  const now = '2026-11-30T00:00:00.000Z';
  const key = evtKey('shop', 'o-1');
  const row = (extra: Record<string, unknown>) =>
    new Map([
      [
        key,
        {
          rowNumber: 3,
          record: {
            ...emptyRecord(),
            キー: key,
            状態: '送信待ち',
            取引日: '2026-05-01',
            入出金: '出金',
            金額: 1200,
            摘要: '送料',
            ...extra,
          },
        },
      ],
    ]) as never;
  const states = new Map([[key, '送信待ち']]);

  test('the same content sent again is a duplicate even when a person corrected the row; other content is not', () => {
    const first = eventDigest(ok(good));
    // A person changed 金額 on the 台帳; the sender resends what it sent first.
    const same = planEvents(
      [checkEvent(good, 'shop')],
      'shop',
      states,
      new Set(),
      now,
      row({ 金額: 1300 }),
      () => first,
    );
    assert.equal(same.results[0].status, 'duplicate');
    assert.deepEqual(same.changes, []);
    const other = planEvents(
      [checkEvent({ ...good, amount: 1250 }, 'shop')],
      'shop',
      states,
      new Set(),
      now,
      row({ 金額: 1300 }),
      () => first,
    );
    assert.equal(other.results[0].status, 'rejected');
    assert.match(other.results[0].message, /金額: 台帳 1,300 円 → 今回 1,250 円/);
    // The row already says what the sender now says: nothing held, the new content remembered.
    const applied = planEvents(
      [checkEvent({ ...good, amount: 1300 }, 'shop')],
      'shop',
      states,
      new Set(),
      now,
      row({ 金額: 1300 }),
      () => first,
    );
    assert.equal(applied.results[0].status, 'duplicate');
    assert.equal(applied.remember.get(key), eventDigest(ok({ ...good, amount: 1300 })));
    // Nothing remembered (an older event): its content now becomes the one to compare with.
    const unknown = planEvents([checkEvent(good, 'shop')], 'shop', states, new Set(), now, row({}));
    assert.equal(unknown.results[0].status, 'duplicate');
    assert.equal(unknown.remember.get(key), first);
  });

  test('entries round-trip in 8,000-character values, newest last, capped; a key set again moves to the end', () => {
    const keys = Array.from({ length: EVENT_MEMORY_CAP + 10 }, (_, i) => evtKey('shop', `k${i}`));
    let entries = rememberEvents([], new Map(keys.map((k) => [k, 'abcdef01'])));
    assert.equal(entries.length, EVENT_MEMORY_CAP);
    assert.equal(rememberedDigest(entries, keys[0]), undefined, 'the oldest are dropped');
    entries = rememberEvents(entries, new Map([[keys[20], '12345678']]));
    assert.equal(entries.length, EVENT_MEMORY_CAP);
    assert.equal(rememberedDigest(entries, keys[20]), '12345678');
    const values = formatEventMemory(entries);
    assert.ok(values.every((v) => v.length <= 8_000));
    assert.deepEqual(
      values.flatMap((v) => parseEventMemory(v)),
      entries,
    );
    // The partner counts; the memo does not.
    assert.notEqual(eventDigest(ok(good)), eventDigest(ok({ ...good, partner: 'X' })));
    assert.equal(eventDigest(ok(good)), eventDigest(ok({ ...good, memo: 'note' })));
  });
});

test('a 完了 row whose event came again with other content is not archived while its メモ says so (it is on 要確認)', () => {
  const record = {
    ...emptyRecord(),
    キー: 'evt:shop:o-1',
    状態: '完了',
    取引日: '2025-01-05',
    MF仕訳ID: 'J1',
    更新日時: '2025-01-05T00:00:00.000Z',
    完了日時: '2025-01-05T00:00:00.000Z',
  } as never as Parameters<typeof oldEnough>[0];
  assert.equal(oldEnough(record, '2026-01-01'), true);
  const marked = { ...record, メモ: `${EVENT_CHANGED_MEMO}（2025-01-06）: 金額: 台帳 1 円 → 今回 2 円。` };
  assert.equal(oldEnough(marked, '2026-01-01'), false);
});
