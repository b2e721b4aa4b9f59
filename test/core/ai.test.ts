/** AI 判定, pure parts: masking, the request/answer per provider, validation, caps, claims. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type AiPolicy, decideFromAnswer } from '../../src/core/ai/answer';
import {
  AI_CLAIM_LEASE_MS,
  allowance,
  claimMemo,
  tokyoDate,
  usageText,
  usedToday,
} from '../../src/core/ai/limits';
import { maskDigitRuns } from '../../src/core/ai/mask';
import { claimRows, pickCandidates, untouchedRow } from '../../src/core/ai/plan';
import { catalogFromMasters, statementForAi, userMessage } from '../../src/core/ai/prompt';
import { type AiConfig, buildAiRequest, readAiResponse } from '../../src/core/ai/providers';
import { indexByKey, type LedgerRecord, type LedgerRow } from '../../src/core/ledger';
import type { Masters } from '../../src/core/masters';
import { redactSecrets } from '../../src/core/redact';
import { parseSettings } from '../../src/core/settings';
import { ledgerRecord } from '../helpers/fixtures';

const MASTERS: Masters = {
  accounts: [
    { id: 'a1', name: '消耗品費', available: true, subAccounts: [{ id: 's1', name: '事務用品' }] },
    { id: 'a2', name: '旅費交通費', available: true, subAccounts: [] },
    { id: 'a3', name: '諸会費', available: false, subAccounts: [] },
  ],
  taxes: [
    { id: 't1', name: '課税仕入 10%', available: true },
    { id: 't2', name: '課税仕入 8%', available: false },
  ],
  partners: [{ code: 'P001', name: 'アマゾンジャパン', available: true }],
  connectedAccounts: [],
  fetchedAt: '2026-11-30T00:00:00Z',
};

const VALID_NAMES = {
  勘定科目: ['消耗品費', '旅費交通費'],
  補助科目: ['事務用品'],
  税区分: ['課税仕入 10%'],
  取引先: ['アマゾンジャパン'],
} as const;

function record(over: Partial<LedgerRecord> = {}): LedgerRecord {
  return ledgerRecord({ 摘要: 'ｱｽｸﾙ 1234567890', 口座: '三井住友カード', ...over });
}

const POLICY: AiPolicy = { model: 'm1', threshold: 0.8, autoApprove: false };
const GOOD = {
  account: '消耗品費',
  sub_account: '',
  tax: '課税仕入 10%',
  partner: '',
  confidence: 0.9,
  reason: '文具の購入です。',
};

describe('maskDigitRuns', () => {
  test('a run of 6+ digits keeps its last 4; shorter runs, amounts and dates stay', () => {
    assert.equal(maskDigitRuns('ﾌﾘｺﾐ 1234567890'), 'フリコミ ******7890');
    assert.equal(maskDigitRuns('カード 1234-5678-9012-3456'), 'カード ****-****-****-3456');
    assert.equal(maskDigitRuns('１２３４５６７'), '***4567');
    assert.equal(maskDigitRuns('11/30 1,980円 No.12345'), '11/30 1,980円 No.12345');
  });

  test('never leaves 6 digits in a row, whatever the text (fast-check)', () => {
    const digitish = fc.constantFrom('0', '1', '9', '５', ' ', '-', 'ｱ', 'A', '/', ',');
    fc.assert(
      fc.property(
        fc.array(digitish, { maxLength: 40 }).map((a) => a.join('')),
        fc.string(),
        (a, b) => {
          const out = maskDigitRuns(a + b + a);
          assert.ok(!/\d{6}/.test(out), out);
          assert.ok(!/\d(?:[- ]?\d){5}/.test(out), out);
        },
      ),
    );
  });
});

describe('what is sent', () => {
  test('only 取引日, 金額, 入出金, 摘要 and 口座, masked, as JSON data apart from the instructions', () => {
    const r = record({ 勘定科目: '', メモ: 'secret memo', キー: 'mf:abc', 口座: '普通 1234567' });
    const s = statementForAi(r);
    assert.deepEqual(Object.keys(s).sort(), ['入出金', '口座', '取引日', '摘要', '金額'].sort());
    assert.equal(s.摘要, 'アスクル ******7890');
    assert.equal(s.口座, '普通 ***4567');
    const data = JSON.parse(userMessage(s, catalogFromMasters(MASTERS)));
    assert.deepEqual(data.選択肢.勘定科目, ['消耗品費', '旅費交通費'], 'only available accounts');
    assert.deepEqual(data.選択肢.税区分, ['課税仕入 10%']);
  });

  const config = (provider: AiConfig['provider'], baseUrl = 'https://x.example'): AiConfig => ({
    provider,
    apiKey: 'KEY-123456',
    model: 'mod',
    baseUrl,
  });

  test('each provider: its endpoint, its auth header, the key never in the URL', () => {
    const o = buildAiRequest(config('openai'), 'I', 'D');
    assert.equal(o.url, 'https://x.example/v1/chat/completions');
    assert.equal(o.headers.Authorization, 'Bearer KEY-123456');
    assert.equal(JSON.parse(o.payload ?? '').response_format.type, 'json_schema');
    const a = buildAiRequest(config('anthropic'), 'I', 'D');
    assert.equal(a.url, 'https://x.example/v1/messages');
    assert.equal(a.headers['x-api-key'], 'KEY-123456');
    const g = buildAiRequest(config('gemini', 'https://g.example/v1beta/'), 'I', 'D');
    assert.equal(g.url, 'https://g.example/v1beta/models/mod:generateContent');
    assert.equal(g.headers['x-goog-api-key'], 'KEY-123456');
    for (const r of [o, a, g]) assert.ok(!r.url.includes('KEY-123456'));
  });

  test('statuses: 429 rate-limited, 5xx unavailable, other 4xx refused, 2xx without an answer malformed', () => {
    const res = (status: number, body: unknown) => ({ status, headers: {}, body: JSON.stringify(body) });
    assert.equal(readAiResponse('openai', res(429, {})).kind, 'rate-limited');
    assert.equal(readAiResponse('anthropic', res(529, {})).kind, 'unavailable');
    assert.deepEqual(readAiResponse('gemini', res(400, { error: { message: 'bad' } })), {
      kind: 'refused',
      status: 400,
      message: 'bad',
    });
    assert.equal(
      readAiResponse('openai', res(200, { choices: [{ message: { refusal: 'no' } }] })).kind,
      'malformed',
    );
    assert.equal(
      readAiResponse('gemini', res(200, { promptFeedback: { blockReason: 'SAFETY' } })).kind,
      'malformed',
    );
    assert.equal(readAiResponse('anthropic', { status: 200, headers: {}, body: '<html>' }).kind, 'malformed');
    assert.deepEqual(
      readAiResponse(
        'openai',
        res(200, { choices: [{ message: { content: 'not json' }, finish_reason: 'stop' }] }),
      ),
      { kind: 'answer', value: 'not json' },
    );
  });
});

describe('decideFromAnswer', () => {
  test('a valid answer above the threshold: 要確認 with the names, 判定元 and 判定根拠; 送信待ち only with AI自動承認', () => {
    const p = decideFromAnswer(record(), GOOD, MASTERS, POLICY);
    assert.equal(p.状態, '要確認');
    assert.equal(p.勘定科目, '消耗品費');
    assert.equal(p.税区分, '課税仕入 10%');
    assert.equal(p.判定元, 'AI:m1');
    assert.equal(p.判定根拠, 'AI 0.9: 文具の購入です。');
    assert.match(String(p.メモ), /自動承認ではない/);
    const auto = decideFromAnswer(record(), GOOD, MASTERS, { ...POLICY, autoApprove: true });
    assert.equal(auto.状態, '送信待ち');
    assert.equal(auto.メモ, '');
  });

  test('below the threshold: 要確認 naming both numbers, even with AI自動承認', () => {
    const p = decideFromAnswer(record(), { ...GOOD, confidence: 0.55 }, MASTERS, {
      ...POLICY,
      autoApprove: true,
    });
    assert.equal(p.状態, '要確認');
    assert.equal(p.勘定科目, '消耗品費');
    assert.match(String(p.メモ), /0\.55.*0\.8/);
  });

  test('unknown or disabled names are not filled and are named in メモ; valid ones are kept', () => {
    const p = decideFromAnswer(
      record(),
      { ...GOOD, account: '諸会費', tax: '課税仕入 8%', partner: 'アマゾンジャパン' },
      MASTERS,
      { ...POLICY, autoApprove: true },
    );
    assert.equal(p.状態, '要確認');
    assert.equal(p.勘定科目, undefined);
    assert.equal(p.税区分, undefined);
    assert.equal(p.取引先, 'アマゾンジャパン');
    assert.match(String(p.メモ), /勘定科目「諸会費」はマスタにない/);
    assert.match(String(p.メモ), /税区分「課税仕入 8%」/);
  });

  test('not JSON, not an object, missing fields: 要確認, answered (判定元 set)', () => {
    for (const value of ['hello', 42, null, [], { account: '消耗品費' }, { reason: 'x', confidence: 2 }]) {
      const p = decideFromAnswer(record(), value, MASTERS, { ...POLICY, autoApprove: true });
      assert.equal(p.状態, '要確認', JSON.stringify(value));
      assert.equal(p.判定元, 'AI:m1');
      assert.ok(String(p.メモ).length > 0);
    }
  });

  test('whatever comes back, a name on the row is a valid マスタ name, and 送信待ち needs AI自動承認 (fast-check)', () => {
    const name = fc.oneof(
      fc.constantFrom(
        '消耗品費',
        '旅費交通費',
        '諸会費',
        '事務用品',
        '課税仕入 10%',
        '課税仕入 8%',
        'アマゾンジャパン',
        '',
        '=1+1',
      ),
      fc.string(),
    );
    const answer = fc.oneof(
      fc.record(
        {
          account: name,
          sub_account: name,
          tax: name,
          partner: name,
          confidence: fc.oneof(fc.double(), fc.constant(1), fc.string()),
          reason: fc.string(),
          状態: fc.constantFrom('送信待ち', '完了'),
        },
        { requiredKeys: [] },
      ),
      fc.jsonValue(),
      fc.anything(),
    );
    fc.assert(
      fc.property(answer, fc.boolean(), (value, autoApprove) => {
        const p = decideFromAnswer(record(), value, MASTERS, { ...POLICY, autoApprove });
        for (const f of ['勘定科目', '補助科目', '税区分', '取引先'] as const) {
          if (p[f] !== undefined)
            assert.ok((VALID_NAMES[f] as readonly string[]).includes(String(p[f])), `${f}=${p[f]}`);
        }
        assert.ok(p.状態 === '要確認' || p.状態 === '送信待ち');
        if (p.状態 === '送信待ち') assert.ok(autoApprove && p.勘定科目 !== undefined);
        assert.ok(String(p.判定元).startsWith('AI:'));
      }),
    );
  });

  test('a bad amount on the row is never auto-approved', () => {
    const p = decideFromAnswer(record({ 金額: -5 }), GOOD, MASTERS, { ...POLICY, autoApprove: true });
    assert.equal(p.状態, '要確認');
  });
});

describe('caps and claims', () => {
  test('the day is the Asia/Tokyo date; another day counts zero', () => {
    assert.equal(tokyoDate(Date.parse('2026-11-30T14:59:59Z')), '2026-11-30');
    assert.equal(tokyoDate(Date.parse('2026-11-30T15:00:00Z')), '2026-12-01');
    assert.equal(usedToday(usageText('2026-11-30', 7), '2026-11-30'), 7);
    assert.equal(usedToday(usageText('2026-11-29', 7), '2026-11-30'), 0);
    assert.equal(usedToday('garbage', '2026-11-30'), 0);
    assert.equal(allowance(20, 200, 190, 50), 10);
    assert.equal(allowance(20, 200, 0, 5), 5);
    assert.equal(allowance(20, 200, 250, 5), 0);
  });

  const rows = (records: LedgerRecord[]): LedgerRow[] =>
    records.map((r, i) => ({ rowNumber: i + 2, record: r }));

  test('candidates: 未判定 with no 勘定科目 or 操作, a unique key, not claimed by a live run', () => {
    const now = Date.parse('2026-11-30T10:00:00Z');
    const table = rows([
      record({ キー: 'a' }),
      record({ キー: 'b', 勘定科目: '消耗品費' }),
      record({ キー: 'c', 状態: '要確認' }),
      record({ キー: 'd', 操作: '除外' }),
      record({ キー: 'e' }),
      record({ キー: 'e' }),
      record({ キー: 'f', メモ: claimMemo('2026-11-30T09:55:00Z'), 更新日時: '2026-11-30T09:55:00Z' }),
      record({
        キー: 'g',
        メモ: claimMemo('2026-11-30T09:00:00Z'),
        更新日時: new Date(now - AI_CLAIM_LEASE_MS).toISOString(),
      }),
    ]);
    assert.deepEqual(
      pickCandidates(table, now).map((r) => r.record.キー),
      ['a', 'g'],
    );
  });

  test('write-back only to a row still exactly as claimed, found by key wherever it moved', () => {
    const table = rows([record({ キー: 'a' }), record({ キー: 'b' })]);
    const { candidates } = claimRows(table, '2026-11-30T10:00:00Z');
    const claimed = rows([{ ...candidates[1].claimed }, { ...candidates[0].claimed }]); // sorted by a person
    assert.equal(untouchedRow(indexByKey(claimed), candidates[0])?.rowNumber, 3);
    const edited = rows([candidates[0].claimed, { ...candidates[1].claimed, 勘定科目: '旅費交通費' }]);
    assert.equal(untouchedRow(indexByKey(edited), candidates[1]), null);
    const approved = rows([{ ...candidates[0].claimed, 操作: '承認' }]);
    assert.equal(untouchedRow(indexByKey(approved), candidates[0]), null);
  });
});

describe('settings and secrets', () => {
  test('AI自動承認, AI1回の上限, AI1日の上限: defaults, and bad values named by cell', () => {
    const ok = parseSettings([]);
    assert.equal(ok.settings.aiAutoApprove, false);
    assert.equal(ok.settings.aiPerRun, 20);
    assert.equal(ok.settings.aiPerDay, 200);
    const bad = parseSettings([
      { item: 'AI自動承認', value: 'たぶん', rowNumber: 12 },
      { item: 'AI1回の上限', value: '0', rowNumber: 13 },
      { item: 'AI1日の上限', value: 'many', rowNumber: 14 },
    ]);
    assert.deepEqual(
      bad.problems.map((p) => p.cell),
      ['設定 B12', '設定 B13', '設定 B14'],
    );
    assert.match(bad.problems[0].message, /AI自動承認: 「たぶん」は使えません。オン・オフ/);
  });

  test('a provider message echoing the key loses it', () => {
    const key = 'sk-test-kicho-AI-0123456789abcdef';
    assert.ok(!redactSecrets(`Incorrect API key provided: ${key}.`, [key]).includes('0123456789'));
    assert.ok(!redactSecrets(`key ${key}`).includes('0123456789'), 'the sk- pattern also catches it unknown');
  });
});
