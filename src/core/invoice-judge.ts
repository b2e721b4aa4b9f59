/**
 * 判定 of a row's インボイス区分 (issue 27), in the order the issue fixes: the rule's インボイス column, the
 * row's MF 取引先 (its 登録番号), the AI's answer (with its reason; never asked again), the 区分 people keep
 * per 取引先 on the sheet 取引先インボイス, then the 少額特例. Rows whose 区分 changes nothing (not a
 * purchase, before 2023-10-01, an office on 免税・簡易課税・2割特例・3割特例) are not asked about: the
 * reason is said instead. Pure.
 */
import {
  checkRegistrationNumber,
  INVOICE_START,
  type InvoiceCell,
  type InvoiceSay,
  notNeededReason,
  purchaseKind,
  readInvoiceSay,
  SMALL_AMOUNT_LIMIT,
  SMALL_AMOUNT_UNTIL,
  type SpecialRule,
} from './invoice';
import type { LedgerRecord } from './ledger';
import type { Masters } from './masters';
import { normalizeText } from './text';

/** One row of the sheet 取引先インボイス. */
export interface InvoiceDefault {
  rowNumber: number;
  partner: string;
  say: InvoiceSay | '';
  registration: string;
}

export interface InvoiceSources {
  masters: Masters;
  defaults: readonly InvoiceDefault[];
  special: SpecialRule;
  smallAmount: boolean;
}

export interface InvoiceJudgement {
  /** What goes in the インボイス column ('' leaves it empty). */
  cell: InvoiceCell | '';
  /** Why, for 判定根拠 ('' when nothing needs saying). */
  basis: string;
  /** A purchase whose 区分 matters and is not known: a person decides. */
  undecided: boolean;
  /** Something a person should fix (a malformed 登録番号 in MF or on the sheet). */
  notes: string[];
}

/** What a rule or the AI said, and in whose name. */
export interface InvoiceSaid {
  say: InvoiceSay | '';
  source: string;
}

const SAY_AS_CELL = (say: InvoiceSay): InvoiceCell => (say === '帳簿のみ' ? '適格' : say);
const withBooks = (say: InvoiceSay) => (say === '帳簿のみ' ? '（帳簿のみ保存の特例）' : '');

function same(a: string, b: string): boolean {
  return normalizeText(a) === normalizeText(b);
}

/** The 取引先インボイス row of a 取引先: by name, else the longest name found in the 摘要. */
export function defaultFor(
  defaults: readonly InvoiceDefault[],
  record: Pick<LedgerRecord, '取引先' | '摘要'>,
): InvoiceDefault | undefined {
  const partner = record.取引先.trim();
  if (partner !== '') {
    const named = defaults.find((d) => same(d.partner, partner));
    if (named) return named;
  }
  const text = normalizeText(record.摘要).toLowerCase();
  let best: InvoiceDefault | undefined;
  for (const d of defaults) {
    const name = normalizeText(d.partner).toLowerCase();
    if (
      name.length >= 2 &&
      text.includes(name) &&
      (!best || name.length > normalizeText(best.partner).length)
    )
      best = d;
  }
  return best;
}

/**
 * The インボイス区分 of a row being classified. `record` carries the names the row will have (the rule's or
 * the AI's 勘定科目, 税区分 and 取引先 already applied).
 */
export function judgeInvoice(
  record: LedgerRecord,
  sources: InvoiceSources,
  said: { rule?: InvoiceSaid; ai?: InvoiceSaid & { reason: string } } = {},
): InvoiceJudgement {
  const notes: string[] = [];
  const decided = (cell: InvoiceCell, basis: string): InvoiceJudgement => ({
    cell,
    basis: `インボイス: ${basis}`,
    undecided: false,
    notes,
  });
  const purchase = purchaseKind(record, sources.masters);
  if (purchase.kind === 'not-purchase')
    return {
      cell: normalizeText(record.入出金) === '出金' ? '対象外' : '',
      basis: '',
      undecided: false,
      notes,
    };
  const date = record.取引日;
  if (date < INVOICE_START) return { cell: '', basis: '', undecided: false, notes };
  const notNeeded = notNeededReason(date, sources.masters, sources.special);
  if (notNeeded) return { cell: '', basis: `インボイス: 判定不要（${notNeeded}）`, undecided: false, notes };

  const rule = said.rule;
  if (rule && rule.say !== '' && rule.say !== '未判定')
    return decided(SAY_AS_CELL(rule.say), `${rule.source}${withBooks(rule.say)}`);

  const partnerName = record.取引先.trim();
  const partner =
    partnerName === '' ? undefined : sources.masters.partners.find((p) => same(p.name, partnerName));
  if (partner?.registrationNumber) {
    const checked = checkRegistrationNumber(partner.registrationNumber);
    if (checked.ok) return decided('適格', `MFの取引先「${partner.name}」の登録番号 ${checked.number}`);
    notes.push(`MFの取引先「${partner.name}」: ${checked.problem}`);
  }

  const ai = said.ai;
  if (ai && ai.say !== '' && ai.say !== '未判定')
    return decided(SAY_AS_CELL(ai.say), `${ai.source}${withBooks(ai.say)}「${ai.reason}」`);

  const kept = defaultFor(sources.defaults, record);
  if (kept) {
    const where = `取引先インボイス ${kept.rowNumber}行目「${kept.partner}」`;
    if (kept.say !== '' && kept.say !== '未判定')
      return decided(SAY_AS_CELL(kept.say), `${where}${withBooks(kept.say)}`);
    if (kept.registration !== '') {
      const checked = checkRegistrationNumber(kept.registration);
      if (checked.ok) return decided('適格', `${where}の登録番号 ${checked.number}`);
      notes.push(`取引先インボイス ${kept.rowNumber}行目: ${checked.problem}`);
    }
  }

  const amount = typeof record.金額 === 'number' ? record.金額 : Number.NaN;
  if (sources.smallAmount && amount < SMALL_AMOUNT_LIMIT && date <= SMALL_AMOUNT_UNTIL)
    return decided('適格', '少額特例（税込1万円未満・設定「少額特例」がオン）');

  return {
    cell: '未判定',
    basis: 'インボイス: 未判定（売り手が登録事業者か分かりません）',
    undecided: true,
    notes,
  };
}

/** The sheet 取引先インボイス as values (header row first), each cell read as typed. */
export function parseInvoiceDefaults(values: readonly (readonly unknown[])[]): {
  defaults: InvoiceDefault[];
  problems: string[];
} {
  const header = (values[0] ?? []).map((h) => String(h ?? '').trim());
  const col = (h: string) => header.indexOf(h);
  const [p, i, r] = [col('取引先'), col('インボイス'), col('登録番号')];
  const defaults: InvoiceDefault[] = [];
  const problems: string[] = [];
  if (p < 0) return { defaults, problems };
  for (let n = 1; n < values.length; n++) {
    const row = values[n] ?? [];
    const partner = String(row[p] ?? '').trim();
    if (partner === '') continue;
    const sayText = i < 0 ? '' : String(row[i] ?? '');
    const say = readInvoiceSay(sayText);
    if (say === null) {
      problems.push(
        `取引先インボイス ${n + 1}行目: インボイス「${sayText}」は使えません。適格・非適格・対象外・帳簿のみ のどれかにしてください（この行は使いません）。`,
      );
      continue;
    }
    defaults.push({ rowNumber: n + 1, partner, say, registration: r < 0 ? '' : String(row[r] ?? '').trim() });
  }
  return { defaults, problems };
}
