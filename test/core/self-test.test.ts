/** The 本番前チェック framework: items, the confirm step, what is kept, what blocks and what the dry run says. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type CheckItem,
  describeSelfTest,
  importBlockedBy,
  parseSelfTestRecord,
  postingBlockedBy,
  runChecks,
  selfTestRecord,
  selfTestStep,
  selfTestWarnings,
} from '../../src/core/self-test';

interface Ctx {
  posted: string[];
}

const ok: CheckItem<Ctx> = {
  id: 'ok',
  group: 'Sheets',
  title: '読み書き',
  critical: true,
  run: () => ({ result: 'OK', detail: 'そのまま読めました。' }),
};

/** The kind of item the MF half adds: it does something real, so it asks first and names the line. */
const postOne: CheckItem<Ctx> = {
  id: 'post-one',
  group: 'MF',
  title: '1 件だけ登録',
  critical: true,
  confirm: () => '2026-05-01 ﾃｽｳﾘﾖｳ 440 円を MF に登録します。',
  run: (ctx) => {
    ctx.posted.push('mf:1');
    return { result: 'OK', detail: '登録して、2 回目は何も送られませんでした。' };
  },
};

const throws = (critical: boolean): CheckItem<Ctx> => ({
  id: `throws-${critical}`,
  group: 'Apps Script',
  title: critical ? 'ロック' : 'タイムゾーン',
  critical,
  run: () => {
    throw new Error('Service unavailable');
  },
});

const clock = () => '2026-11-30T00:15:00.000Z';

describe('runChecks', () => {
  test('an item that asks first is not run until confirmed; its question is reported instead', () => {
    const ctx: Ctx = { posted: [] };
    const first = runChecks([ok, postOne], ctx, new Set(), clock);
    assert.deepEqual(ctx.posted, []);
    assert.equal(first[1].result, '注意');
    assert.equal(first[1].question, '2026-05-01 ﾃｽｳﾘﾖｳ 440 円を MF に登録します。');
    assert.match(describeSelfTest(first), /確認待ち 1 件/);
    const record = selfTestRecord(first, clock(), 'a@example.com');
    assert.deepEqual(record.pending, ['MF: 1 件だけ登録']);
    assert.equal(record.passed, true);
    assert.match(selfTestWarnings(record).join(' '), /まだ行っていない項目があります: MF: 1 件だけ登録/);

    const second = runChecks([ok, postOne], ctx, new Set(['post-one']), clock);
    assert.deepEqual(ctx.posted, ['mf:1']);
    assert.equal(second[1].result, 'OK');
    assert.equal(second[1].question, undefined);
  });

  test('a question with a token: a tick counts only for the question it answered', () => {
    const ctx: Ctx & { line: string } = { posted: [], line: 'mf:1' };
    const item: CheckItem<typeof ctx> = {
      ...postOne,
      confirm: (c) => ({ question: `${c.line} を登録します。`, token: c.line }),
      run: (c) => {
        c.posted.push(c.line);
        return { result: 'OK', detail: '' };
      },
    };
    const asked = runChecks([item], ctx, new Set(), clock);
    assert.equal(asked[0].confirmId, 'post-one:mf:1');
    // The line changed before the tick came back: asked again, nothing done.
    ctx.line = 'mf:2';
    const again = runChecks([item], ctx, new Set([asked[0].confirmId ?? '']), clock);
    assert.deepEqual(ctx.posted, []);
    assert.equal(again[0].confirmId, 'post-one:mf:2');
    assert.equal(again[0].question, 'mf:2 を登録します。');
    runChecks([item], ctx, new Set(['post-one:mf:2']), clock);
    assert.deepEqual(ctx.posted, ['mf:2']);
  });

  test('an optional question (done before): its last outcome stands, nothing waits for the person', () => {
    const item: CheckItem<Ctx> = {
      ...postOne,
      confirm: () => ({ question: 'もう一度登録します。', token: 't', optional: true }),
      unconfirmed: () => ({ result: 'OK', detail: '前回の確認の結果です。' }),
    };
    const reports = runChecks([ok, item], { posted: [] }, new Set(), clock);
    assert.equal(reports[1].result, 'OK');
    assert.equal(reports[1].optional, true);
    assert.equal(reports[1].question, 'もう一度登録します。');
    assert.doesNotMatch(describeSelfTest(reports), /確認待ち/);
    const record = selfTestRecord(reports, clock(), '');
    assert.deepEqual(record.pending, []);
    assert.deepEqual(selfTestWarnings(record), []);
  });

  test('an item sees the reports of the items before it', () => {
    const seen: string[][] = [];
    const spy: CheckItem<Ctx> = {
      ...ok,
      id: 'spy',
      run: (_c, earlier) => {
        seen.push(earlier.map((r) => `${r.id}:${r.result}`));
        return { result: 'OK', detail: '' };
      },
    };
    runChecks([ok, throws(true), spy], { posted: [] }, new Set(), clock);
    assert.deepEqual(seen, [['ok:OK', 'throws-true:NG']]);
  });

  test('an error while checking is NG; it blocks posting only for an item the protocol relies on', () => {
    const reports = runChecks([throws(true), throws(false)], { posted: [] }, new Set(), clock);
    assert.deepEqual(
      reports.map((r) => [r.result, r.blocksPosting]),
      [
        ['NG', true],
        ['NG', false],
      ],
    );
    assert.match(reports[0].detail, /エラーになりました: Service unavailable/);
    const record = selfTestRecord(reports, clock(), '');
    assert.equal(record.passed, false);
    assert.deepEqual(
      record.blocking.map((b) => b.title),
      ['Apps Script: ロック'],
    );
    assert.deepEqual(record.ng, ['Apps Script: タイムゾーン']);
    const blocked = postingBlockedBy(record) ?? '';
    assert.match(
      blocked,
      /本番前チェック（2026-11-30 09:15）で.*登録を止めています: 「Apps Script: ロック」/,
    );
    assert.match(importBlockedBy(record) ?? '', /取込を止めています/);
    assert.match(describeSelfTest(reports), /NG が直るまで登録を止めます/);
  });

  test('an NG that does not block is not a block, but the check has not passed', () => {
    const record = selfTestRecord(
      runChecks([ok, throws(false)], { posted: [] }, new Set(), clock),
      clock(),
      '',
    );
    assert.equal(postingBlockedBy(record), null);
    assert.match(selfTestWarnings(record).join(' '), /合格していません（NG: Apps Script: タイムゾーン）/);
  });
});

describe('the record (KICHO_SELF_TEST)', () => {
  test('round-trips through JSON; anything else reads as no check', () => {
    const record = selfTestRecord(
      runChecks([ok], { posted: [] }, new Set(), clock),
      clock(),
      'a@example.com',
    );
    assert.deepEqual(parseSelfTestRecord(JSON.stringify(record)), record);
    for (const raw of [null, '', '{', '{"v":2}', '[]'])
      assert.equal(parseSelfTestRecord(raw), null, String(raw));
  });

  test('no check yet: the dry run asks for one and nothing is blocked', () => {
    assert.equal(postingBlockedBy(null), null);
    assert.match(selfTestWarnings(null).join(' '), /本番前チェックをまだ行っていません/);
    const passed = selfTestRecord(runChecks([ok], { posted: [] }, new Set(), clock), clock(), '');
    assert.deepEqual(selfTestWarnings(passed), []);
  });

  test('a long detail is cut so the record stays far below the 9 KB a property holds', () => {
    const long: CheckItem<Ctx> = {
      ...ok,
      run: () => ({ result: 'NG', detail: 'あ'.repeat(20_000), blocksPosting: true }),
    };
    const items = Array.from({ length: 10 }, (_, i) => ({ ...long, id: `x${i}` }));
    const record = selfTestRecord(runChecks(items, { posted: [] }, new Set(), clock), clock(), '');
    assert.ok(new TextEncoder().encode(JSON.stringify(record)).length < 9 * 1024);
  });
});

test('the setup guide’s step: not done until a check passed with nothing waiting; a block says posting stopped', () => {
  assert.equal(selfTestStep(null).done, false);
  const passed = selfTestRecord(runChecks([ok], { posted: [] }, new Set(), clock), clock(), '');
  assert.deepEqual(selfTestStep(passed), { done: true, detail: '2026-11-30 09:15 に合格しました。' });
  const blocking = selfTestRecord(
    runChecks([ok, throws(true)], { posted: [] }, new Set(), clock),
    clock(),
    '',
  );
  assert.equal(selfTestStep(blocking).done, false);
  assert.match(selfTestStep(blocking).detail, /登録は止まっています/);
  const failed = selfTestRecord(
    runChecks([ok, throws(false)], { posted: [] }, new Set(), clock),
    clock(),
    '',
  );
  assert.match(selfTestStep(failed).detail, /シート「自己診断」を見て直してください/);
  const waiting = selfTestRecord(runChecks([ok, postOne], { posted: [] }, new Set(), clock), clock(), '');
  assert.equal(selfTestStep(waiting).done, false);
  assert.match(selfTestStep(waiting).detail, /まだ行っていない項目があります（MF: /);
});
