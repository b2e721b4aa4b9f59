/**
 * AI 判定 as an exactly-once job (src/core/ai/judging.ts) over fake ports: a 台帳 a lock guards and a flush
 * makes durable, script properties, a clock and a provider that checks each request as it comes.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AI_RUN_MSG } from '../../src/core/ai/answer';
import {
  AI_USAGE_PROPERTY,
  type AiJudging,
  type AiJudgingPorts,
  aiOutcomeKind,
  judgeWithAi,
} from '../../src/core/ai/judging';
import { AI_CLAIM_PREFIX, AI_STOP_CALLING_AT_MS, tokyoDate, usageText } from '../../src/core/ai/limits';
import type { AiConfig } from '../../src/core/ai/providers';
import { applyChanges, type LedgerRecord, type LedgerTable, type RowChange } from '../../src/core/ledger';
import type { Masters } from '../../src/core/masters';
import {
  HttpNotSentError,
  type HttpRequest,
  type HttpResponse,
  HttpTransportError,
} from '../../src/core/ports';
import { SAFETY } from '../../src/core/safety';
import { LEDGER_HEADERS } from '../../src/core/schema';
import { ledgerRecord } from '../helpers/fixtures';

const START = Date.parse('2026-11-30T01:00:00Z');
const REQUEST_MS = 2_000;
const CONFIG: AiConfig = {
  provider: 'openai',
  apiKey: 'sk-test-key-for-judging-0001',
  model: 'm1',
  baseUrl: 'https://ai.example',
};
const SETTINGS = { aiPerRun: 10, aiPerDay: 100, aiThreshold: 0.8, aiAutoApprove: false };
const MASTERS: Masters = {
  accounts: [{ id: 'a1', name: '消耗品費', available: true, subAccounts: [] }],
  taxes: [{ id: 't1', name: '課税仕入 10%', available: true }],
  partners: [],
  connectedAccounts: [],
  fetchedAt: '2026-11-30T00:00:00Z',
};
const GOOD = {
  account: '消耗品費',
  sub_account: '',
  tax: '課税仕入 10%',
  partner: '',
  confidence: 0.9,
  reason: '文具です。',
};
const LINES = ['ｽﾀｰﾊﾞｯｸｽ', 'ﾀｸｼｰ', 'ｺﾝﾋﾞﾆ', 'ﾎﾝﾔ'];

/** How the provider answers one request (or what happens to it on the way). */
type Reply = 'answer' | 'timeout' | 'not-sent' | 429 | 500;

interface Options {
  lines?: string[];
  replies?: Reply[];
  /** Lock acquisitions in turn: false = another run holds it. Beyond the list, free. */
  lock?: boolean[];
  /** Called as request `n` (0-based) reaches the provider, with the durable 台帳 a person could edit. */
  duringRequest?: (n: number, sheet: FakeSheet) => void;
  /** Keys whose settle write a person types into (the write holds their change back). */
  typingAtSettle?: string[];
  config?: AiConfig | null;
  usedToday?: number;
}

class FakeSheet {
  /** What the sheet holds now (writes made under the lock land here before the flush). */
  rows: LedgerRecord[];
  /** What another execution, or a person, sees: the rows as of the last flush. */
  durable: LedgerRecord[];
  constructor(records: LedgerRecord[]) {
    this.rows = records.map((r) => ({ ...r }));
    this.durable = records.map((r) => ({ ...r }));
  }
  table(): LedgerTable {
    return {
      columns: new Map(LEDGER_HEADERS.map((h, i) => [h, i])),
      width: LEDGER_HEADERS.length,
      rows: this.rows.map((record, i) => ({ rowNumber: i + 2, record: { ...record } })),
    };
  }
  apply(changes: readonly RowChange[]): void {
    this.rows = applyChanges(this.table(), changes).rows.map((r) => r.record);
  }
  /** A person's edit: on the sheet itself, seen at once by everyone. */
  edit(key: string, patch: Partial<LedgerRecord>): void {
    for (const rows of [this.rows, this.durable])
      for (const r of rows) if (r.キー === key) Object.assign(r, patch);
  }
  row(key: string): LedgerRecord {
    const found = this.rows.find((r) => r.キー === key);
    assert.ok(found, key);
    return found;
  }
}

function openAiReply(answer: unknown): HttpResponse {
  const body = { choices: [{ message: { content: JSON.stringify(answer) }, finish_reason: 'stop' }] };
  return { status: 200, headers: {}, body: JSON.stringify(body) };
}

/** One run of the job over fakes; `violations` lists every request made in the lock or before its claim was durable. */
function world(o: Options = {}) {
  const lines = o.lines ?? LINES.slice(0, 3);
  const sheet = new FakeSheet(
    lines.map((摘要, i) => ledgerRecord({ キー: `mf:tx-${i + 1}`, 摘要, 金額: 1000 + i })),
  );
  const props = new Map<string, string>();
  if (o.usedToday) props.set(AI_USAGE_PROPERTY, usageText(tokyoDate(START), o.usedToday));
  const events: string[] = [];
  const violations: string[] = [];
  const lockAnswers = [...(o.lock ?? [])];
  let held = false;
  let t = START;
  let requests = 0;
  const replies = [...(o.replies ?? [])];
  const mustHold = (what: string) => {
    if (!held) violations.push(`${what} outside the lock`);
  };
  const ports: AiJudgingPorts = {
    lock: {
      acquire() {
        const free = lockAnswers.shift() ?? true;
        if (free) held = true;
        events.push(free ? 'lock' : 'lock busy');
        return free;
      },
      flushAndRelease() {
        sheet.durable = sheet.rows.map((r) => ({ ...r }));
        held = false;
        events.push('flush+release');
      },
    },
    classify(claim) {
      mustHold('classify');
      events.push('classify');
      const now = new Date(t).toISOString();
      const open = sheet.table().rows.filter((r) => r.record.状態 === '未判定');
      sheet.apply(claim(open, now));
      return { withheld: [] };
    },
    ledger: {
      read() {
        mustHold('settle read');
        events.push('settle');
        return sheet.table();
      },
      write(_table, changes) {
        mustHold('settle write');
        const typing = new Set(o.typingAtSettle ?? []);
        const withheld = changes.filter((c) => typing.has(c.key));
        sheet.apply(changes.filter((c) => !typing.has(c.key)));
        return { withheld };
      },
    },
    usage: {
      get: (k) => {
        mustHold('quota read');
        return props.get(k) ?? null;
      },
      set: (k, v) => {
        mustHold('quota write');
        props.set(k, v);
      },
      delete: (k) => {
        props.delete(k);
      },
    },
    http: {
      send(request: HttpRequest): HttpResponse {
        const n = requests++;
        if (held) violations.push(`request ${n} inside the lock`);
        // The statement is sent NFKC-normalized (mask.ts).
        const line = lines.find((l) => String(request.payload).includes(l.normalize('NFKC')));
        const row = sheet.durable.find((r) => r.摘要 === line);
        if (!row?.メモ.startsWith(AI_CLAIM_PREFIX))
          violations.push(`request ${n} before its claim was written`);
        events.push(`request ${line}`);
        o.duringRequest?.(n, sheet);
        t += REQUEST_MS;
        const reply = replies.shift() ?? 'answer';
        if (reply === 'timeout') throw new HttpTransportError('timeout', 'Timeout: https://ai.example');
        if (reply === 'not-sent') throw new HttpNotSentError('quota', 'UrlFetch の1日の上限に達しました');
        if (typeof reply === 'number') return { status: reply, headers: {}, body: '{}' };
        return openAiReply(GOOD);
      },
    },
    clock: { now: () => t, iso: () => new Date(t).toISOString() },
    asking: (count) => events.push(`asking ${count}`),
    settledTable: () => events.push('review sheet'),
  };
  const run = (startedAt = START): AiJudging =>
    judgeWithAi(ports, {
      config: o.config === undefined ? CONFIG : o.config,
      settings: SETTINGS,
      masters: MASTERS,
      startedAt,
    });
  const used = () => JSON.parse(props.get(AI_USAGE_PROPERTY) ?? '{"count":0}').count as number;
  return { sheet, events, violations, run, used, requests: () => requests };
}

describe('AI 判定 as an exactly-once job', () => {
  test('claim in classify’s write, requests after the flush, answers settled under the lock', () => {
    const w = world();
    const out = w.run();
    assert.deepEqual(w.violations, []);
    assert.deepEqual(w.events, [
      'lock',
      'classify',
      'flush+release',
      'asking 3',
      'request ｽﾀｰﾊﾞｯｸｽ',
      'request ﾀｸｼｰ',
      'request ｺﾝﾋﾞﾆ',
      'lock',
      'settle',
      'review sheet',
      'flush+release',
    ]);
    for (const r of w.sheet.rows) {
      assert.equal(r.状態, '要確認');
      assert.equal(r.判定元, 'AI:m1');
      assert.equal(r.勘定科目, '消耗品費');
    }
    assert.equal(w.used(), 3);
    assert.equal(out.classified, true);
    assert.deepEqual(
      { ...out.judged, messages: undefined },
      { answered: 3, approved: 0, review: 3, notYet: 0, personWon: 0, messages: undefined },
    );
    assert.deepEqual(out.judged?.messages, [AI_RUN_MSG.summary('openai', 'm1', 3, 0, 3)]);
  });

  test('the check above catches a request made inside the lock, before the claim is flushed', () => {
    // The skeleton's test build skeleton-act-in-lock: the acts start inside the claiming section.
    const safety = SAFETY as { actsAfterFlush: boolean };
    safety.actsAfterFlush = false;
    try {
      const w = world();
      w.run();
      assert.ok(w.violations.includes('request 0 inside the lock'), w.violations.join('; '));
      assert.ok(w.violations.includes('request 0 before its claim was written'), w.violations.join('; '));
    } finally {
      safety.actsAfterFlush = true;
    }
  });

  test('a row a person changed while the model was asked keeps the change, not the answer', () => {
    const w = world({
      duringRequest: (n, sheet) => {
        if (n === 0) sheet.edit('mf:tx-2', { 勘定科目: '旅費交通費' });
      },
    });
    const out = w.run();
    const changed = w.sheet.row('mf:tx-2');
    assert.equal(changed.勘定科目, '旅費交通費');
    assert.equal(changed.状態, '未判定');
    assert.equal(changed.判定元, '');
    assert.ok(changed.メモ.startsWith(AI_CLAIM_PREFIX));
    assert.equal(w.sheet.row('mf:tx-1').判定元, 'AI:m1');
    assert.equal(w.sheet.row('mf:tx-3').判定元, 'AI:m1');
    assert.equal(out.judged?.personWon, 1);
    assert.equal(out.judged?.answered, 2);
    assert.ok(out.judged?.messages.includes(AI_RUN_MSG.personWon(1)));
  });

  test('a row a person types into during the settle’s write is not counted as answered', () => {
    const w = world({ typingAtSettle: ['mf:tx-1'] });
    const out = w.run();
    assert.equal(w.sheet.row('mf:tx-1').判定元, '');
    assert.equal(out.judged?.personWon, 1);
    assert.equal(out.judged?.answered, 2);
  });

  test('time budget: rows not asked go back to 未判定 with a note, their quota given back', () => {
    const w = world({ lines: LINES });
    // Two requests fit before the budget ends.
    const out = w.run(START - AI_STOP_CALLING_AT_MS + 2 * REQUEST_MS);
    assert.equal(w.requests(), 2);
    assert.deepEqual(w.violations, []);
    for (const key of ['mf:tx-3', 'mf:tx-4']) {
      const r = w.sheet.row(key);
      assert.equal(r.状態, '未判定');
      assert.equal(r.メモ, AI_RUN_MSG.later(AI_RUN_MSG.timeBudget));
    }
    assert.equal(w.used(), 2);
    assert.ok(out.judged?.messages.includes(AI_RUN_MSG.notYet(2, AI_RUN_MSG.timeBudget)));
  });

  test('Apps Script refusing to send stops the run; the refused request still counts', () => {
    const w = world({ replies: ['not-sent'] });
    const out = w.run();
    assert.equal(w.requests(), 1);
    const why = 'UrlFetch の1日の上限に達しました';
    for (const r of w.sheet.rows) {
      assert.equal(r.状態, '未判定');
      assert.equal(r.メモ, AI_RUN_MSG.later(why));
    }
    assert.equal(w.used(), 1);
    assert.ok(out.judged?.messages.includes(AI_RUN_MSG.notYet(3, why)));
  });

  test('two failures in a row stop asking; a timeout is returned, asked again next run', () => {
    const w = world({ lines: LINES, replies: ['timeout', 500] });
    const out = w.run();
    assert.equal(w.requests(), 2);
    assert.equal(w.sheet.row('mf:tx-1').メモ, AI_RUN_MSG.later(AI_RUN_MSG.timeout));
    const stopped = `${AI_RUN_MSG.stoppedEarly}: ${AI_RUN_MSG.unavailable(500)}`;
    assert.equal(w.sheet.row('mf:tx-3').メモ, AI_RUN_MSG.later(stopped));
    assert.equal(w.used(), 2);
    assert.ok(out.judged?.messages.includes(AI_RUN_MSG.notYet(4, stopped)));
    assert.equal(aiOutcomeKind({ kind: 'not-yet', why: '', stop: false, burst: true }), 'returned');
    // Next run (past the claim lease) the rows are claimed and asked again.
    const again = w.run(START + 20 * 60_000);
    assert.equal(again.judged?.answered, 4);
  });

  test('a 429 stops at once; the rows after it are not asked', () => {
    const w = world({ replies: [429] });
    w.run();
    assert.equal(w.requests(), 1);
    assert.equal(w.used(), 1);
  });

  test('the settle finding the lock held writes nothing; the claims stay until their lease ends', () => {
    const w = world({ lock: [true, false] });
    const out = w.run();
    assert.equal(w.requests(), 3);
    for (const r of w.sheet.rows) assert.ok(r.メモ.startsWith(AI_CLAIM_PREFIX));
    assert.deepEqual(out.judged?.messages, [AI_RUN_MSG.lockLost]);
    assert.equal(w.used(), 3);
  });

  test('classify finding the lock held: nothing read, claimed or asked', () => {
    const w = world({ lock: [false] });
    const out = w.run();
    assert.equal(out.classified, false);
    assert.equal(out.judged, null);
    assert.equal(w.requests(), 0);
    assert.deepEqual(w.events, ['lock busy']);
  });

  test('AI オフ: classify’s section runs, nothing is claimed or asked', () => {
    const w = world({ config: null });
    const out = w.run();
    assert.deepEqual(w.events, ['lock', 'classify', 'flush+release']);
    assert.equal(out.judged, null);
    assert.equal(w.used(), 0);
  });

  test('the daily cap: rows beyond it stay 未判定, unclaimed, and are named', () => {
    const w = world({ usedToday: 99 });
    const out = w.run();
    assert.equal(w.requests(), 1);
    assert.equal(w.sheet.row('mf:tx-2').メモ, '');
    assert.deepEqual(out.claimMessages, [AI_RUN_MSG.dailyCap(2, 100)]);
    assert.equal(w.used(), 100);
  });
});
