/**
 * What 重複点検 needs to know about each journal, from the journal itself (transaction id, tags, entered_by,
 * branches) and from the 台帳 (which row it belongs to, the row's 口座). Pure: the app layer hands in the
 * journals MF listed, the 台帳 rows, and the office's own accounts.
 */
import { enlargeSmallKana } from '../kana';
import { isRemoteTag, remoteTagOf } from '../keys';
import type { LedgerRow } from '../ledger';
import { normalizeText } from '../text';

/** Who made a journal, in the words (DESIGN §3 重複点検 作成元). */
export type Origin = 'kicho-mf' | 'kicho-csv' | 'mf-line' | 'other';

export const ORIGIN_LABEL: Readonly<Record<Origin, string>> = {
  'kicho-mf': 'kicho（MFの明細から）',
  'kicho-csv': 'kicho（CSVから）',
  'mf-line': 'MFで明細から仕訳',
  other: 'その他',
};

/** entered_by of journals no statement line is behind (the document's EnteredBy), in plain words. */
const ENTERED_BY: Readonly<Record<string, string>> = {
  JOURNAL_TYPE_NORMAL: '手入力',
  JOURNAL_TYPE_EXTERNAL: '別のアプリ（API）',
  JOURNAL_TYPE_IMPORT: 'MFのCSVインポート',
  JOURNAL_TYPE_DATA_LINKAGE: 'データ連携',
  JOURNAL_TYPE_STREAMED: '記帳代行（STREAMED）',
  JOURNAL_TYPE_MOBILE_APP: 'モバイルアプリ',
  JOURNAL_TYPE_ME: 'マネーフォワード ME',
  JOURNAL_TYPE_AI_OCR: 'AI-OCR',
  JOURNAL_TYPE_E_INVOICE: 'デジタルインボイス',
  JOURNAL_TYPE_BILLING: 'クラウド請求書',
  JOURNAL_TYPE_EXPENSE: 'クラウド経費',
  JOURNAL_TYPE_PAYROLL: 'クラウド給与',
  JOURNAL_TYPE_DEBT: 'クラウド債務支払',
  JOURNAL_TYPE_HOME_DEVOTE: '家事按分',
  JOURNAL_TYPE_DEPRECIATION: '償却',
};

/** The journal fields 重複点検 reads (a subset of MF's JournalItem). */
export interface AuditJournalSide {
  account_id: string;
  account_name?: string;
  sub_account_id?: string | null;
  sub_account_name?: string | null;
  trade_partner_code?: string | null;
  value: number;
  tax_value?: number;
}

export interface AuditJournal {
  id: string;
  number?: number;
  transaction_date: string;
  transaction_id: string | null;
  tags: string[];
  memo: string | null;
  entered_by?: string;
  create_time?: string;
  branches: {
    remark?: string | null;
    debitor?: AuditJournalSide | null;
    creditor?: AuditJournalSide | null;
  }[];
}

/** An account and sub-account as ids (sub null = the account itself). */
export interface Ledger {
  accountId: string;
  subId: string | null;
}

export interface JournalFacts {
  index: number;
  id: string;
  /** The id decoded once, for comparing (mf/ids canonicalId). */
  cid: string;
  date: string;
  /** Tax-inclusive total of the debit side. */
  amount: number;
  debit: Ledger[];
  credit: Ledger[];
  debitLabel: string;
  creditLabel: string;
  partner: string | null;
  remark: string;
  /** The remark in one comparable form (similarText). */
  text: string;
  /** Canonical statement-line id, or null. */
  txId: string | null;
  kichoTags: string[];
  origin: Origin;
  /** 作成元 as shown: the label, and for `other` what entered_by says. */
  originLabel: string;
  createMs: number | null;
  number: number;
  /** 台帳 keys this journal belongs to (by MF仕訳ID, by the key's tag, by 明細ID). */
  ledgerKeys: string[];
  /** A 台帳 row names this journal in MF仕訳ID. */
  referenced: boolean;
  /** 口座 of the 台帳 row of its statement line, when kicho imported that line. */
  ledgerAccount: string;
  /**
   * The statement line behind it, if any: the MF line's id, or for a CSV line its 台帳 key. Two journals
   * of different lines may be two real payments; of one line, never.
   */
  lineId: string | null;
  /** For a CSV line: when its row was imported (初回検知); rows of one import are lines of one file. */
  importedAt: string;
}

/** Transfer prefixes and payment words banks put before the counterparty (compared after NFKC). */
const LEADING_WORDS =
  /^(?:振込み?|フリコミ|フリカエ|振替|口座振替|コウザフリカエ|自動振替|口振|デビット|Vデビット|VISAデビット|JCBデビット|カード|クレジット|ペイジー|入金|出金|支払い?|シハライ|引落し?|ヒキオトシ)/;
const LEGAL_FORMS =
  /株式会社|有限会社|合同会社|\(株\)|\(有\)|(?:カ|ユ|ド|メ|シ|イ)\)|\((?:カ|ユ|ド|メ|シ|イ)/g;

/**
 * One form of a 摘要 for comparing: NFKC (半角カナ → 全角, 全角英数 → 半角), hiragana → katakana, small
 * kana → large (bank kana has none), upper case, ﾌﾘｺﾐ-style leading words and 法人格 removed, then spaces
 * and punctuation dropped.
 */
export function similarText(text: string): string {
  let t = enlargeSmallKana(
    normalizeText(text).replace(/[\u3041-\u3096]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0x60)),
  )
    .toUpperCase()
    .replace(/[（]/g, '(')
    .replace(/[）]/g, ')');
  for (let i = 0; i < 3; i++) {
    const next = t.replace(/^\s+/, '').replace(LEADING_WORDS, '');
    if (next === t) break;
    t = next;
  }
  return t.replace(LEGAL_FORMS, '').replace(/[\s()「」[\]【】.,、。・ー\-－―_/*#:;]/g, '');
}

function bigrams(t: string): Map<string, number> {
  const chars = Array.from(t);
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < chars.length; i++) {
    const g = chars[i] + chars[i + 1];
    out.set(g, (out.get(g) ?? 0) + 1);
  }
  return out;
}

/** Shortest shared start that makes two descriptions the same counterparty (ｱﾏｿﾞﾝ … / アマゾン …). */
const SHARED_START = 4;
const DICE = 0.5;

/**
 * Two 摘要 that may describe the same money: equal, one inside the other, the same first four characters,
 * or a bigram overlap (Dice) of at least one half. An empty one contradicts nothing.
 */
export function similarRemarks(a: string, b: string): boolean {
  if (a === '' || b === '' || a === b) return true;
  if (a.includes(b) || b.includes(a)) return true;
  const ca = Array.from(a);
  const cb = Array.from(b);
  if (
    ca.length >= SHARED_START &&
    cb.length >= SHARED_START &&
    ca.slice(0, SHARED_START).join('') === cb.slice(0, SHARED_START).join('')
  )
    return true;
  const ga = bigrams(a);
  const gb = bigrams(b);
  let shared = 0;
  let total = 0;
  for (const [g, n] of ga) {
    shared += Math.min(n, gb.get(g) ?? 0);
    total += n;
  }
  for (const n of gb.values()) total += n;
  return total > 0 && (2 * shared) / total >= DICE;
}

/** The id decoded once (as mf/ids canonicalId; core cannot import mf). */
export function canonical(id: string): string {
  try {
    return decodeURIComponent(id);
  } catch {
    return id.replace(/%[0-9a-f]{2}/gi, (hex) => hex.toUpperCase());
  }
}

function sideLabel(side: AuditJournalSide): string {
  const name = side.account_name || side.account_id;
  return side.sub_account_name ? `${name}／${side.sub_account_name}` : name;
}

function uniqueLedgers(list: Ledger[]): Ledger[] {
  const seen = new Set<string>();
  return list.filter((l) => {
    const k = `${l.accountId}\u0000${l.subId ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Journals that record money (opening balances are not a second recording of anything). */
export function auditable(j: AuditJournal): boolean {
  return j.entered_by !== 'JOURNAL_TYPE_OPENING';
}

/** How the 台帳 ties rows to journals: by MF仕訳ID, by 明細ID, and (lazily) by the key's remote tag. */
export class LedgerLinks {
  private readonly byJournal = new Map<string, string[]>();
  private readonly byKey = new Map<string, LedgerRow>();
  private readonly byLine = new Map<string, LedgerRow[]>();
  private byTag: Map<string, string[]> | null = null;

  /**
   * `archived`: whether a row moved to 台帳アーカイブ holds a journal with this kicho tag or of this
   * statement line (the archive's key index answers; issue 18) — such a journal is the 台帳's own too.
   */
  constructor(
    private readonly rows: readonly LedgerRow[],
    private readonly archived: (tag: string, transactionId: string | null) => boolean = () => false,
  ) {
    for (const r of rows) {
      const key = r.record.キー;
      this.byKey.set(key, r);
      const journal = r.record.MF仕訳ID.trim();
      if (journal !== '') push(this.byJournal, canonical(journal), key);
      const line = r.record.明細ID.trim();
      if (line !== '') {
        const list = this.byLine.get(canonical(line)) ?? [];
        list.push(r);
        this.byLine.set(canonical(line), list);
      }
    }
  }

  /** Whether an archived row holds this journal (by one of its kicho tags, or its statement line). */
  archivedHolds(kichoTags: readonly string[], transactionId: string | null): boolean {
    return (
      kichoTags.some((t) => this.archived(t, null)) ||
      (transactionId !== null && this.archived('', transactionId))
    );
  }

  referencing(journalCid: string): string[] {
    return this.byJournal.get(journalCid) ?? [];
  }

  row(key: string): LedgerRow | undefined {
    return this.byKey.get(key);
  }

  lineRows(txCid: string): LedgerRow[] {
    return this.byLine.get(txCid) ?? [];
  }

  /** Keys whose remote tag is `tag`. Hashes every key once, the first time a tag is asked for. */
  taggedWith(tag: string): string[] {
    if (!this.byTag) {
      this.byTag = new Map();
      for (const r of this.rows) push(this.byTag, remoteTagOf(r.record.キー), r.record.キー);
    }
    return this.byTag.get(tag) ?? [];
  }
}

function push(map: Map<string, string[]>, k: string, v: string): void {
  const list = map.get(k);
  if (list) {
    if (!list.includes(v)) list.push(v);
  } else map.set(k, [v]);
}

/** Facts of `journals`, numbered from `offset` (a listing is turned into facts page by page). */
export function journalFacts(
  journals: readonly AuditJournal[],
  links: LedgerLinks,
  offset = 0,
): JournalFacts[] {
  // Tags of journals a row names by id are that row's tag: no hashing needed for those.
  const tagOwners = new Map<string, string[]>();
  for (const j of journals) {
    const keys = links.referencing(canonical(j.id));
    if (keys.length === 0) continue;
    for (const t of j.tags) if (isRemoteTag(t)) for (const k of keys) push(tagOwners, t, k);
  }
  return journals.map((j, i) => {
    const index = offset + i;
    const debit: Ledger[] = [];
    const credit: Ledger[] = [];
    const debitLabels: string[] = [];
    const creditLabels: string[] = [];
    let amount = 0;
    let partner: string | null = null;
    const remarks: string[] = [];
    for (const b of j.branches) {
      if (b.debitor) {
        debit.push({ accountId: b.debitor.account_id, subId: b.debitor.sub_account_id ?? null });
        debitLabels.push(sideLabel(b.debitor));
        amount += (b.debitor.value ?? 0) + (b.debitor.tax_value ?? 0);
        partner = partner ?? b.debitor.trade_partner_code ?? null;
      }
      if (b.creditor) {
        credit.push({ accountId: b.creditor.account_id, subId: b.creditor.sub_account_id ?? null });
        creditLabels.push(sideLabel(b.creditor));
        partner = partner ?? b.creditor.trade_partner_code ?? null;
      }
      if (b.remark) remarks.push(b.remark);
    }
    const cid = canonical(j.id);
    const txId = j.transaction_id ? canonical(j.transaction_id) : null;
    const kichoTags = j.tags.filter(isRemoteTag);
    const keys = new Set<string>(links.referencing(cid));
    for (const t of kichoTags) {
      const owners = tagOwners.get(t) ?? links.taggedWith(t);
      for (const k of owners) keys.add(k);
    }
    let ledgerAccount = '';
    if (txId) {
      for (const r of links.lineRows(txId)) {
        keys.add(r.record.キー);
        ledgerAccount = ledgerAccount || r.record.口座;
      }
    }
    const origin: Origin =
      kichoTags.length > 0 ? (txId ? 'kicho-mf' : 'kicho-csv') : txId ? 'mf-line' : 'other';
    const detail = ENTERED_BY[j.entered_by ?? ''] ?? '';
    const csvKey = origin === 'kicho-csv' ? ([...keys].find((k) => k.startsWith('csv:')) ?? null) : null;
    const csvRow = csvKey ? links.row(csvKey) : undefined;
    const createMs = j.create_time ? Date.parse(j.create_time) : Number.NaN;
    const remark = remarks.join(' ');
    return {
      index,
      id: j.id,
      cid,
      date: j.transaction_date,
      amount,
      debit: uniqueLedgers(debit),
      credit: uniqueLedgers(credit),
      debitLabel: [...new Set(debitLabels)].join('、'),
      creditLabel: [...new Set(creditLabels)].join('、'),
      partner,
      remark,
      text: similarText(remark),
      txId,
      kichoTags,
      origin,
      originLabel: origin === 'other' && detail ? `その他（${detail}）` : ORIGIN_LABEL[origin],
      createMs: Number.isFinite(createMs) ? createMs : null,
      number: j.number ?? 0,
      ledgerKeys: [...keys],
      referenced:
        links.referencing(cid).length > 0 || links.archivedHolds(kichoTags, j.transaction_id ?? null),
      ledgerAccount: ledgerAccount || (csvRow ? csvRow.record.口座 : ''),
      lineId: txId ?? csvKey,
      importedAt: csvRow ? csvRow.record.初回検知 : '',
    };
  });
}
