/**
 * 本番前チェック (selfTest): checks, in the person's own Google account (and, later, MF office), the
 * answers our emulator and fake MF can only assume. Each item reports OK / 注意 / NG with what it saw in
 * plain Japanese; an NG that makes exactly-once unsafe blocks posting until a later check passes.
 * Items that change something real ask first: the dialog shows their question and runs them only once
 * the person ticks it. Pure: items are plain objects over a context the app layer provides.
 */

export type CheckResult = 'OK' | '注意' | 'NG';
export type CheckGroup = 'Sheets' | 'Apps Script' | 'MF';

export interface CheckOutcome {
  result: CheckResult;
  /** What was seen and, when not OK, what to do — plain Japanese. */
  detail: string;
  /** This NG makes exactly-once unsafe: posting refuses until a later 本番前チェック passes. */
  blocksPosting?: boolean;
}

export interface CheckItem<Ctx> {
  id: string;
  group: CheckGroup;
  /** 項目 on 自己診断. */
  title: string;
  /**
   * An error thrown while checking leaves the answer unknown: true when that is an NG that blocks
   * posting (the item checks something the posting protocol relies on).
   */
  critical: boolean;
  /**
   * For an item that does something real (e.g. posts one line to MF): the question the dialog asks,
   * naming exactly what will happen, or null when there is nothing to ask now (the item then runs).
   * With a token (e.g. which line, with what content), a tick counts only for that same question: if
   * what the item would do changes before the person's tick comes back, it asks again.
   */
  confirm?: (ctx: Ctx, earlier: readonly CheckReport[]) => string | Confirmation | null;
  /** Reported when the person has not confirmed (default: 注意, not done). */
  unconfirmed?: CheckOutcome | ((ctx: Ctx) => CheckOutcome);
  /** `earlier`: the reports of the items before this one, in this run. */
  run: (ctx: Ctx, earlier: readonly CheckReport[]) => CheckOutcome;
}

export interface Confirmation {
  question: string;
  token: string;
  /**
   * The item has done this before and its last outcome stands: the dialog offers it again, but the
   * check does not wait for it (not 確認待ち, not pending in the record).
   */
  optional?: boolean;
}

export interface CheckReport extends CheckOutcome {
  id: string;
  group: CheckGroup;
  title: string;
  /** 確認日時 (ISO). */
  at: string;
  /** The question the dialog shows when this item waits for the person's confirmation. */
  question?: string;
  /** What the dialog sends back when the person ticks the question (the id, or id:token). */
  confirmId?: string;
  /** The question is an offer to do it again; the result stands without it. */
  optional?: boolean;
}

/** A report that waits for the person (its question is not merely an offer). */
export function waitsForPerson(r: CheckReport): boolean {
  return !!r.question && !r.optional;
}

export const NOT_CONFIRMED: CheckOutcome = {
  result: '注意',
  detail: 'まだ行っていません（画面で内容を確かめてチェックを入れると行います）。',
};

/**
 * Runs the items in order. An item that needs a confirmation not in `confirmed` is reported with its
 * question and not run; an item that throws is NG (blocking when critical). Never throws itself.
 */
export function runChecks<Ctx>(
  items: readonly CheckItem<Ctx>[],
  ctx: Ctx,
  confirmed: ReadonlySet<string>,
  now: () => string,
): CheckReport[] {
  const reports: CheckReport[] = [];
  for (const item of items) {
    const head = { id: item.id, group: item.group, title: item.title };
    let outcome: CheckOutcome;
    let question: string | undefined;
    let confirmId: string | undefined;
    let optional = false;
    try {
      const asked = item.confirm?.(ctx, reports) ?? null;
      question = typeof asked === 'string' ? asked : (asked?.question ?? undefined);
      confirmId = asked && typeof asked !== 'string' ? `${item.id}:${asked.token}` : item.id;
      optional = !!asked && typeof asked !== 'string' && asked.optional === true;
      if (question && !confirmed.has(confirmId)) {
        const u = item.unconfirmed;
        outcome = typeof u === 'function' ? u(ctx) : (u ?? NOT_CONFIRMED);
      } else {
        outcome = item.run(ctx, reports);
        question = undefined;
      }
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      outcome = {
        result: 'NG',
        detail: `確かめている途中でエラーになりました: ${message}`,
        blocksPosting: item.critical,
      };
    }
    const blocks = outcome.result === 'NG' && outcome.blocksPosting === true;
    reports.push({
      ...head,
      result: outcome.result,
      detail: outcome.detail,
      blocksPosting: blocks,
      at: now(),
      ...(question ? { question, confirmId, ...(optional ? { optional } : {}) } : {}),
    });
  }
  return reports;
}

/** What KICHO_SELF_TEST keeps (script property, well under its 9 KB). */
export interface SelfTestRecord {
  v: 1;
  at: string;
  by: string;
  /** No NG. */
  passed: boolean;
  /** The NG items that block posting. */
  blocking: { id: string; title: string; detail: string }[];
  /** Other NG and 注意 items, by title. */
  ng: string[];
  cautions: string[];
  /** Items still waiting for the person's confirmation. */
  pending: string[];
}

// The whole detail is on 自己診断; the record keeps enough to say why posting stopped.
const DETAIL_KEPT = 120;

export function selfTestRecord(reports: readonly CheckReport[], at: string, by: string): SelfTestRecord {
  const name = (r: CheckReport) => `${r.group}: ${r.title}`;
  return {
    v: 1,
    at,
    by,
    passed: reports.every((r) => r.result !== 'NG'),
    blocking: reports
      .filter((r) => r.blocksPosting)
      .map((r) => ({ id: r.id, title: name(r), detail: r.detail.slice(0, DETAIL_KEPT) })),
    ng: reports.filter((r) => r.result === 'NG' && !r.blocksPosting).map(name),
    cautions: reports.filter((r) => r.result === '注意' && !waitsForPerson(r)).map(name),
    pending: reports.filter(waitsForPerson).map(name),
  };
}

export function parseSelfTestRecord(raw: string | null): SelfTestRecord | null {
  if (!raw) return null;
  try {
    const r = JSON.parse(raw) as Partial<SelfTestRecord>;
    if (r.v !== 1 || typeof r.at !== 'string' || !Array.isArray(r.blocking)) return null;
    return {
      v: 1,
      at: r.at,
      by: String(r.by ?? ''),
      passed: r.passed === true,
      blocking: r.blocking,
      ng: Array.isArray(r.ng) ? r.ng : [],
      cautions: Array.isArray(r.cautions) ? r.cautions : [],
      pending: Array.isArray(r.pending) ? r.pending : [],
    };
  } catch (_e) {
    return null;
  }
}

/** Tokyo wall-clock time for people ("2026-11-30 09:15"). */
export function tokyoTime(iso: string): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  return new Date(t + 9 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
}

function blockedBy(record: SelfTestRecord | null, what: string): string | null {
  if (!record || record.blocking.length === 0) return null;
  const items = record.blocking.map((b) => `「${b.title}」（${b.detail}）`).join('、');
  return `本番前チェック（${tokyoTime(record.at)}）で、二重登録を防ぐ仕組みが働かないおそれのある問題が見つかったため、${what}を止めています: ${items}。直してから、メニュー「記帳 > 点検 > 本番前チェック」をもう一度実行してください。`;
}

/** Why postApproved and the scheduled run refuse, or null: the last check found an NG that blocks. */
export function postingBlockedBy(record: SelfTestRecord | null): string | null {
  return blockedBy(record, '登録');
}

/** The same for imports: a key that does not read back would add every line again on each import. */
export function importBlockedBy(record: SelfTestRecord | null): string | null {
  return blockedBy(record, '取込');
}

/** For the setup guide (app/setup-guide.ts): where 本番前チェック stands, from its kept record. */
export function selfTestStep(record: SelfTestRecord | null): { done: boolean; detail: string } {
  if (!record)
    return {
      done: false,
      detail:
        '本番で登録する前に、このアカウントと MF でのふるまいを確かめます（MF には、画面で行を確かめてチェックを入れたときだけ 1 件登録します）。',
    };
  if (record.blocking.length > 0) {
    return {
      done: false,
      detail: `${tokyoTime(record.at)} に NG がありました。直してからもう一度実行してください（登録は止まっています）。`,
    };
  }
  if (!record.passed)
    return {
      done: false,
      detail: `${tokyoTime(record.at)} に NG がありました。シート「自己診断」を見て直してください。`,
    };
  if (record.pending.length > 0)
    return {
      done: false,
      detail: `まだ行っていない項目があります（${record.pending.join('、')}）。本番前チェックの画面で、内容を確かめてチェックを入れてください。`,
    };
  return {
    done: true,
    detail: `${tokyoTime(record.at)} に合格しました${record.cautions.length ? `（注意 ${record.cautions.length} 件）` : ''}。`,
  };
}

/** What the dry run says about 本番前チェック. */
export function selfTestWarnings(record: SelfTestRecord | null): string[] {
  if (!record) {
    return [
      '本番前チェックをまだ行っていません。本番で登録する前に、メニュー「記帳 > 点検 > 本番前チェック」で、このアカウントと MF でのふるまいを確かめてください。',
    ];
  }
  const out: string[] = [];
  const blocked = postingBlockedBy(record);
  if (blocked) out.push(blocked);
  else if (!record.passed) {
    out.push(
      `本番前チェック（${tokyoTime(record.at)}）に合格していません（NG: ${record.ng.join('、')}）。直してからもう一度実行してください。`,
    );
  }
  if (record.cautions.length > 0) {
    out.push(`本番前チェックの注意: ${record.cautions.join('、')}（シート「自己診断」に詳細があります）。`);
  }
  if (record.pending.length > 0) {
    out.push(`本番前チェックでまだ行っていない項目があります: ${record.pending.join('、')}。`);
  }
  return out;
}

/** The sentence the run summary starts with. */
export function describeSelfTest(reports: readonly CheckReport[]): string {
  const count = (r: CheckResult) => reports.filter((x) => x.result === r && !waitsForPerson(x)).length;
  const pending = reports.filter(waitsForPerson).length;
  const head = `本番前チェック: OK ${count('OK')} 件、注意 ${count('注意')} 件、NG ${count('NG')} 件${pending ? `、確認待ち ${pending} 件` : ''}。`;
  if (reports.some((r) => r.blocksPosting)) return `${head}NG が直るまで登録を止めます。`;
  if (count('NG') > 0) return `${head}NG の項目を直してから、もう一度実行してください。`;
  return `${head}合格です。`;
}
