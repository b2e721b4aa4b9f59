/**
 * 判定 by the ルール sheet (DESIGN §1, §4): each 未判定 row becomes 送信待ち (a rule with 自動承認
 * matched and every name resolves in the MF masters) or 要確認 (anything less certain). Rows in any
 * other state are never touched: a classified row is not classified again and a person's decision
 * is never overwritten. Pure and deterministic.
 */
import { type InvoiceSources, judgeInvoice } from './invoice-judge';
import { type LedgerRecord, type LedgerRow, type RowChange, setField } from './ledger';
import { inSomePeriod, type Masters, type NamedPosting, resolvePosting } from './masters';
import { matchRule, type Rule } from './rules';
import { checkMove } from './states';
import { normalizeText } from './text';

export const CLASSIFY_MSG = {
  noRule: '当てはまるルールがありません。勘定科目を入力して「承認」を選ぶか、ルールを追加してください。',
  mastersMissing: 'マスタがまだ取得されていません。メニュー「初期設定」を実行してください。',
  outsidePeriod: (date: string): string =>
    `取引日 ${date} は MF のどの会計期間にも入らないため、このままでは登録できません。MF で事業年度（会計期間）を確かめ、取引日が正しければ MF で会計期間を追加してください（追加したら「初期設定」でマスタを取り直します）。`,
  reviewRule: (source: string): string =>
    `${source} で判定しました。自動承認ではないため、内容を確かめて「承認」を選んでください。`,
  keptInput: (account: string, source: string): string =>
    `勘定科目「${account}」が入力済みのため、${source} の内容では上書きしていません。内容を確かめて「承認」を選んでください。`,
  badDirection: (value: string): string =>
    `入出金が「${value}」になっています。入金・出金 のどちらかのはずなので、この行を確かめてください。`,
  badAmount: (value: string): string =>
    `金額「${value}」が正しくありません。1以上の整数（円）のはずなので、この行を確かめてください。`,
  invoiceUndecided:
    'インボイス区分が決まりません（ルール・MFの取引先の登録番号・シート「取引先インボイス」のどれでも分かりませんでした）。インボイス欄で 適格 か 非適格 を選んでから「承認」を選んでください。',
} as const;

/** インボイス区分 at 判定 (issue 27): where it is looked up, and whether a 未判定 purchase waits for a person. */
export type InvoiceJudging = InvoiceSources & { holdUndecided: boolean };

/**
 * The row's インボイス after a decision: a value a person typed stays; otherwise the judgement's, with its
 * reason appended to 判定根拠. `held`: a purchase left 未判定 that must not be auto-approved.
 */
export function invoicePatch(
  record: LedgerRecord,
  decided: Partial<LedgerRecord>,
  judging: InvoiceJudging | undefined,
  said: Parameters<typeof judgeInvoice>[2],
): { patch: Partial<LedgerRecord>; held: boolean; notes: string[]; pending: boolean } {
  if (!judging) return { patch: {}, held: false, notes: [], pending: false };
  const typed = String(record.インボイス).trim();
  const names = { ...record, ...decided };
  const j = judgeInvoice(names, judging, said);
  if (typed !== '' && typed !== '未判定') return { patch: {}, held: false, notes: j.notes, pending: false };
  const basis = [String(decided.判定根拠 ?? record.判定根拠), j.basis].filter((t) => t !== '').join(' ／ ');
  return {
    patch: { インボイス: j.cell, ...(j.basis !== '' ? { 判定根拠: basis } : {}) },
    held: j.undecided && judging.holdUndecided,
    notes: j.notes,
    // A 登録番号 not looked up yet (登録番号の照会): the row stays 未判定 until the next 判定 asks the NTA.
    pending: j.pending === true,
  };
}

const NAME_FIELDS = ['勘定科目', '補助科目', '税区分', '取引先'] as const;

function text(value: string | number): string {
  return String(value).trim();
}

/** Problems with the system columns that matching relies on; such a row is never auto-approved. */
export function dataProblems(record: LedgerRecord, masters?: Masters): string[] {
  const problems: string[] = [];
  // DESIGN §5: a row dated outside every accounting period is never sent; say so when it is classified.
  if (masters) problems.push(...periodProblems(record, masters));
  const direction = normalizeText(record.入出金);
  if (direction !== '入金' && direction !== '出金') problems.push(CLASSIFY_MSG.badDirection(record.入出金));
  const amount = record.金額;
  if (typeof amount !== 'number' || !Number.isInteger(amount) || amount <= 0) {
    problems.push(CLASSIFY_MSG.badAmount(String(amount)));
  }
  return problems;
}

function periodProblems(record: LedgerRecord, masters: Masters): string[] {
  const date = record.取引日;
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && !inSomePeriod(masters, date)
    ? [CLASSIFY_MSG.outsidePeriod(date)]
    : [];
}

/** Why the names cannot be posted as they are; empty when every name resolves. */
function nameProblems(masters: Masters, names: NamedPosting): string[] {
  // An office always has accounts, so none means the マスタ sheet was never filled.
  if (masters.accounts.length === 0) return [CLASSIFY_MSG.mastersMissing];
  const resolved = resolvePosting(masters, names);
  return resolved.ok ? [] : resolved.problems;
}

function decide(
  record: LedgerRecord,
  rule: Rule | null,
  masters: Masters,
  invoice?: InvoiceJudging,
): Partial<LedgerRecord> | null {
  if (!rule) {
    // A person decides the row; the インボイス column is filled where MF's 取引先 or the sheet knows it.
    const inv = invoicePatch(record, {}, invoice, {});
    if (inv.pending) return null;
    return {
      状態: '要確認',
      メモ: [...periodProblems(record, masters), CLASSIFY_MSG.noRule, ...inv.notes].join(' '),
      ...inv.patch,
    };
  }
  const source = `ルール#${rule.priority}`;
  const problems = dataProblems(record, masters);
  const current: NamedPosting = {
    勘定科目: text(record.勘定科目),
    補助科目: text(record.補助科目),
    税区分: text(record.税区分),
    取引先: text(record.取引先),
  };

  // Someone already chose a 勘定科目 on this row: their input wins over any rule.
  if (current.勘定科目 !== '') {
    problems.push(CLASSIFY_MSG.keptInput(current.勘定科目, source), ...nameProblems(masters, current));
    const inv = invoicePatch(record, {}, invoice, {});
    if (inv.pending) return null;
    return { 状態: '要確認', メモ: [...problems, ...inv.notes].join(' '), ...inv.patch };
  }

  // A name the rule leaves empty keeps what the row has, so nobody's input is blanked.
  const names: NamedPosting = { ...current };
  for (const field of NAME_FIELDS) if (rule[field] !== '') names[field] = rule[field];
  problems.push(...nameProblems(masters, names));
  const inv = invoicePatch(record, { ...names, 判定根拠: rule.text }, invoice, {
    rule: { say: rule.インボイス, source },
  });
  if (inv.pending) return null;
  problems.push(...inv.notes);
  // A purchase whose 区分 nobody knows is never approved by a rule: a wrong credit is worse than a late one.
  if (inv.held) problems.push(CLASSIFY_MSG.invoiceUndecided);
  const approved = problems.length === 0 && rule.autoApprove;
  const memo = approved ? '' : problems.length > 0 ? problems.join(' ') : CLASSIFY_MSG.reviewRule(source);
  return {
    ...names,
    状態: approved ? '送信待ち' : '要確認',
    判定元: source,
    判定根拠: rule.text,
    メモ: memo,
    ...inv.patch,
  };
}

/**
 * Classifies every 未判定 row and returns only real changes (each with 更新日時 = now). Rows in any
 * other state are left alone. With `keepUnmatched` (AI 判定 on), a row no rule matches and nobody
 * gave a 勘定科目 stays 未判定 for the AI step instead of going to 要確認.
 */
export function classifyRows(
  rows: readonly LedgerRow[],
  rules: readonly Rule[],
  masters: Masters,
  now: string,
  options: { keepUnmatched?: boolean; invoice?: InvoiceJudging; waiting?: Set<string> } = {},
): RowChange[] {
  const changes: RowChange[] = [];
  for (const row of rows) {
    const { record } = row;
    if (text(record.状態) !== '未判定') continue;
    const amount = typeof record.金額 === 'number' ? record.金額 : Number.NaN;
    const rule = matchRule(rules, {
      description: record.摘要,
      direction: record.入出金,
      amount,
      account: record.口座,
    });
    if (!rule && options.keepUnmatched && text(record.勘定科目) === '') continue;
    const desired = decide(record, rule, masters, options.invoice);
    if (!desired) {
      // Its 登録番号 waits for the NTA (next 判定): no change, and not the AI's to judge either.
      options.waiting?.add(record.キー);
      continue;
    }
    const patch: Partial<LedgerRecord> = {};
    for (const key of Object.keys(desired) as (keyof LedgerRecord)[]) {
      const value = desired[key] as string | number;
      if (String(record[key]) !== String(value)) setField(patch, key, value);
    }
    if (Object.keys(patch).length === 0) continue;
    patch.更新日時 = now;
    changes.push({
      key: record.キー,
      rowNumber: row.rowNumber,
      patch: checkMove(record.状態, patch, '判定 by rules'),
    });
  }
  return changes;
}
