/**
 * 重複点検's detection (issue 16): journals that look like the same money recorded twice, grouped, each
 * group with its likely cause in plain words, what to check, and which journal to keep. One pass over the
 * period's journals: every test is a lookup in a bucket (same transaction id, same tag, same amount and
 * accounts, same account and amount), never a comparison of every pair. Pure.
 */
import type { JournalFacts, Ledger } from './facts';
import { similarRemarks } from './facts';

/** Why journals were put together, strongest first. */
export type DuplicateKind = 'same-line' | 'same-tag' | 'csv-and-line' | 'transfer' | 'same-content';

export const KIND_RANK: Readonly<Record<DuplicateKind, number>> = {
  'same-line': 0,
  'same-tag': 1,
  'csv-and-line': 2,
  transfer: 3,
  'same-content': 4,
};

export const PROPOSAL = {
  keep: '残す',
  delete: '削除候補',
  genuine: '残す（本当の取引の可能性）',
} as const;
export type Proposal = (typeof PROPOSAL)[keyof typeof PROPOSAL];

export interface AuditOptions {
  /** 重複とみなす日数: how many days apart two recordings of one money may be dated. */
  days: number;
  /** Accounts of the office's own money: connected accounts' ledgers and CSV sources' (for transfers). */
  ownAccounts: readonly Ledger[];
  /** CSV sources by 口座 name: the ledger a CSV line's bank side is on. */
  csvSources: ReadonlyMap<string, Ledger>;
  /** 台帳 口座 of a key (for a kicho CSV journal's source). */
  accountOfKey: (key: string) => string | undefined;
}

export interface DuplicateMember {
  facts: JournalFacts;
  proposal: Proposal;
}

export interface DuplicateGroup {
  /** Stable across runs while the journal proposed to keep stays (G- + digest of its id). */
  anchor: string;
  kind: DuplicateKind;
  members: DuplicateMember[];
  cause: string;
  check: string;
  /** True when every member came from a statement line of its own: never proposed for deletion. */
  possiblyGenuine: boolean;
}

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

class UnionFind {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    let r = i;
    while (this.parent[r] !== r) r = this.parent[r];
    for (let x = i; this.parent[x] !== r; ) {
      const next = this.parent[x];
      this.parent[x] = r;
      x = next;
    }
    return r;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

interface Edge {
  a: number;
  b: number;
  kind: DuplicateKind;
}

function ledgerKey(l: Ledger): string {
  return `${l.accountId}\u0000${l.subId ?? ''}`;
}

function accountsKey(list: readonly Ledger[]): string {
  return [...new Set(list.map((l) => l.accountId))].sort().join('|');
}

/** Same accounts; sub-accounts agree where both name one (a journal typed by hand often leaves it out). */
function compatibleSides(a: readonly Ledger[], b: readonly Ledger[]): boolean {
  for (const x of a) {
    const others = b.filter((y) => y.accountId === x.accountId);
    if (others.length === 0) return false;
    if (x.subId !== null && others.every((y) => y.subId !== null && y.subId !== x.subId)) return false;
  }
  return true;
}

function compatiblePartner(a: JournalFacts, b: JournalFacts): boolean {
  return a.partner === null || b.partner === null || a.partner === b.partner;
}

/** Pairs inside one bucket whose dates are within `days`, by a sliding window over the sorted bucket. */
function nearPairs(
  bucket: readonly JournalFacts[],
  days: number,
  test: (a: JournalFacts, b: JournalFacts) => boolean,
  out: (a: JournalFacts, b: JournalFacts) => void,
): void {
  const sorted = [...bucket].sort((x, y) => x.date.localeCompare(y.date) || x.index - y.index);
  const day = sorted.map((f) => dayNumber(f.date));
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length && day[j] - day[i] <= days; j++) {
      if (test(sorted[i], sorted[j])) out(sorted[i], sorted[j]);
    }
  }
}

function bucketBy<T>(items: readonly T[], key: (t: T) => string | null): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k === null) continue;
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

function isOwn(l: Ledger, own: ReadonlySet<string>, ownAccountsOnly: ReadonlySet<string>): boolean {
  return own.has(ledgerKey(l)) || (l.subId === null && ownAccountsOnly.has(l.accountId));
}

/** The CSV source ledger on a kicho CSV journal: its 台帳 row's 取込元, else any side on a source ledger. */
function csvSide(f: JournalFacts, o: AuditOptions): { ledger: Ledger; side: 'debit' | 'credit' } | null {
  const sources = [...o.csvSources.values()];
  for (const key of f.ledgerKeys) {
    const account = o.accountOfKey(key);
    const source = account === undefined ? undefined : o.csvSources.get(account);
    if (!source) continue;
    for (const side of ['debit', 'credit'] as const)
      if (
        f[side].some(
          (l) => l.accountId === source.accountId && (source.subId === null || l.subId === source.subId),
        )
      )
        return { ledger: source, side };
  }
  for (const side of ['debit', 'credit'] as const)
    for (const l of f[side])
      if (sources.some((s) => s.accountId === l.accountId && (s.subId === null || s.subId === l.subId)))
        return { ledger: l, side };
  return null;
}

function findEdges(facts: readonly JournalFacts[], o: AuditOptions): Edge[] {
  const edges: Edge[] = [];
  const link = (items: readonly JournalFacts[], kind: DuplicateKind) => {
    for (let i = 1; i < items.length; i++) edges.push({ a: items[0].index, b: items[i].index, kind });
  };
  // 1. Two journals from one statement line.
  for (const list of bucketBy(facts, (f) => f.txId).values()) if (list.length > 1) link(list, 'same-line');
  // 2. Two journals carrying one kicho tag (one 台帳 key).
  for (const list of bucketBy(
    facts.flatMap((f) => f.kichoTags.map((t) => ({ f, t }))),
    (x) => x.t,
  ).values()) {
    const distinct = [...new Set(list.map((x) => x.f))];
    if (distinct.length > 1) link(distinct, 'same-tag');
  }
  // 3. A CSV line's journal and a statement line's journal on the same bank ledger, side and amount.
  const own = new Set(o.ownAccounts.map(ledgerKey));
  const ownAccountsOnly = new Set(o.ownAccounts.map((l) => l.accountId));
  const bySideLedger = new Map<string, JournalFacts[]>();
  for (const f of facts) {
    if (f.txId === null) continue;
    for (const side of ['debit', 'credit'] as const)
      for (const l of f[side]) {
        for (const k of [`${side}|${ledgerKey(l)}|${f.amount}`, `${side}|${l.accountId}\u0000|${f.amount}`]) {
          const list = bySideLedger.get(k);
          if (list) {
            if (!list.includes(f)) list.push(f);
          } else bySideLedger.set(k, [f]);
        }
      }
  }
  for (const f of facts) {
    if (f.origin !== 'kicho-csv') continue;
    const source = csvSide(f, o);
    if (!source) continue;
    const candidates = bySideLedger.get(`${source.side}|${ledgerKey(source.ledger)}|${f.amount}`) ?? [];
    const day = dayNumber(f.date);
    for (const c of candidates) {
      if (Math.abs(dayNumber(c.date) - day) > o.days) continue;
      // Both journals between the office's own accounts: one transfer seen from both sides.
      const ownBoth = [...f.debit, ...f.credit, ...c.debit, ...c.credit].every((l) =>
        isOwn(l, own, ownAccountsOnly),
      );
      edges.push({ a: f.index, b: c.index, kind: ownBoth ? 'transfer' : 'csv-and-line' });
    }
  }
  // 4 and 5. Same amount, same debit and credit accounts, dates within the setting.
  const buckets = bucketBy(facts, (f) =>
    f.amount > 0 ? `${f.amount}|${accountsKey(f.debit)}|${accountsKey(f.credit)}` : null,
  );
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue;
    nearPairs(
      bucket,
      o.days,
      (a, b) =>
        compatibleSides(a.debit, b.debit) && compatibleSides(a.credit, b.credit) && compatiblePartner(a, b),
      (a, b) => {
        const transfer =
          a.txId !== null &&
          b.txId !== null &&
          a.txId !== b.txId &&
          [...a.debit, ...a.credit].every((l) => isOwn(l, own, ownAccountsOnly)) &&
          bothSides(a, b);
        if (transfer) {
          edges.push({ a: a.index, b: b.index, kind: 'transfer' });
          return;
        }
        // Two statement lines are compared on their own date only: a feed MF took in twice keeps the
        // lines' dates, while ± days would chain a routine purchase (the same coffee every day) into one
        // group. The days are for journals from different routes (typed by hand, a CSV, another app).
        if (a.lineId !== null && b.lineId !== null && a.date !== b.date) return;
        if (similarRemarks(a.text, b.text)) edges.push({ a: a.index, b: b.index, kind: 'same-content' });
      },
    );
  }
  return edges;
}

/**
 * The same movement seen from both of the office's accounts: each line came from the other side's feed.
 * Known when kicho imported both lines (their 口座 differ); otherwise told by the 摘要, which each bank
 * writes about the other (ﾌﾘｶｴ ﾕｳﾁﾖ / ﾌﾘｺﾐ ﾐﾂｲｽﾐﾄﾓ), so two genuine transfers from one feed look alike.
 */
function bothSides(a: JournalFacts, b: JournalFacts): boolean {
  if (a.ledgerAccount !== '' && b.ledgerAccount !== '') return a.ledgerAccount !== b.ledgerAccount;
  return !similarRemarks(a.text, b.text) || a.text === '' || b.text === '';
}

/** Keep first: linked to a statement line, named by the 台帳, registered first, lowest number. */
function keepOrder(a: JournalFacts, b: JournalFacts): number {
  const line = Number(b.txId !== null) - Number(a.txId !== null);
  if (line !== 0) return line;
  const ref = Number(b.referenced) - Number(a.referenced);
  if (ref !== 0) return ref;
  const ta = a.createMs ?? Number.MAX_SAFE_INTEGER;
  const tb = b.createMs ?? Number.MAX_SAFE_INTEGER;
  if (ta !== tb) return ta - tb;
  return a.number - b.number || a.id.localeCompare(b.id);
}

/** For two journals of one line or one tag the 台帳's own journal is kept before anything else. */
function keepOrderFor(kind: DuplicateKind): (a: JournalFacts, b: JournalFacts) => number {
  if (kind !== 'same-line' && kind !== 'same-tag') return keepOrder;
  return (a, b) => Number(b.referenced) - Number(a.referenced) || keepOrder(a, b);
}

/** Seconds between the first and the last registration, or null when MF did not say. */
function spreadSeconds(members: readonly JournalFacts[]): number | null {
  const times = members.map((m) => m.createMs).filter((t): t is number => t !== null);
  if (times.length < 2) return null;
  return (Math.max(...times) - Math.min(...times)) / 1000;
}

/** Registered within this many seconds of each other: one event answered twice, not a person redoing it. */
const SAME_MOMENT_SECONDS = 120;

function timing(members: readonly JournalFacts[]): string {
  const spread = spreadSeconds(members);
  if (spread === null) return '';
  if (spread <= SAME_MOMENT_SECONDS)
    return 'ほぼ同時に登録されています: 二つの自動化（kicho と別のアプリ、MF の自動仕訳など）が同じ出来事に反応したか、タイムアウトのあとに確かめずに送り直した可能性があります。';
  return '時間をおいて登録されています: 人が処理や取り込みをやり直したか、別の自動化があとから同じものを登録した可能性があります。';
}

export const CHECK = {
  sameRecord:
    'MF の仕訳帳で同じ取引か確かめ、「削除候補」の仕訳の操作を「削除」にしてください。二重に登録した自動化や再実行をやめてください。',
  csvAndLine: (source: string) =>
    `通帳で取引が1回か確かめ、CSV から作った仕訳を「削除」にしてください。${source ? `取込元「${source}」は` : 'この口座は'} MF で連携している口座と同じなので、今後はその CSV を取り込まないでください。`,
  transfer:
    '両方の口座の通帳で振替が1回か確かめてください。振替は片方の口座の明細だけで仕訳します（もう片方の仕訳を削除すると、MF がその明細を「対象外」にします）。',
  genuine:
    '通帳・カードの明細で、この日にこの金額の取引が何回あったか確かめてください。1回だけなら片方の操作を「削除」に、本当に2回なら両方「残す」にしてください。',
  content: '領収書や明細で取引が1回か確かめ、「削除候補」の仕訳の操作を「削除」にしてください。',
} as const;

function describe(
  kind: DuplicateKind,
  members: readonly JournalFacts[],
  genuine: boolean,
  o: AuditOptions,
): { cause: string; check: string } {
  const n = members.length;
  const origins = new Set(members.map((m) => m.origin));
  const when = timing(members);
  const join = (...parts: string[]) => parts.filter((p) => p !== '').join(' ');
  switch (kind) {
    case 'same-line':
      return {
        cause: join(`同じ明細から仕訳が ${n} 件作られています。`, when),
        check: `${CHECK.sameRecord} MF では、明細から作った仕訳を削除するとその明細が「対象外」になることがあります。`,
      };
    case 'same-tag':
      return {
        cause: join(
          `kicho の台帳の同じ行（同じタグ）の仕訳が ${n} 件あります。`,
          when ||
            'タイムアウトのあとの再送や、台帳が消えたあとの取り込み直し・台帳のコピーからの登録で起きます。',
        ),
        check: CHECK.sameRecord,
      };
    case 'csv-and-line': {
      const csv = members.find((m) => m.origin === 'kicho-csv');
      const source = csv ? (csv.ledgerKeys.map(o.accountOfKey).find((a) => a) ?? '') : '';
      return {
        cause: `同じお金が CSV${source ? `（取込元「${source}」）` : ''} と MF の連携口座の明細の両方から記帳されています（同じ口座を2つの経路で取り込んでいます）。`,
        check: CHECK.csvAndLine(source),
      };
    }
    case 'transfer':
      return {
        cause:
          '自分の口座どうしの振替を、両方の口座の明細からそれぞれ仕訳しています（同じお金の移動を2回記帳）。',
        check: CHECK.transfer,
      };
    case 'same-content': {
      if (genuine && members.every((m) => m.origin === 'kicho-csv')) {
        return {
          cause:
            '同じ CSV に、同じ日・同じ金額・同じ摘要の行が別々にあり、それぞれ登録しています。本当に2回の取引かもしれません（銀行の CSV が同じ行を二重に出した可能性もあります）。',
          check: CHECK.genuine,
        };
      }
      if (genuine) {
        const relinked = new Set(members.map((m) => m.ledgerAccount).filter((a) => a !== '')).size > 1;
        return {
          cause: relinked
            ? 'それぞれ別の明細から作られた同じ内容の仕訳ですが、明細の口座の名前が違います。口座の再連携で MF が同じ明細を二重に取り込んだ可能性があります（本当に別の取引の可能性もあります）。'
            : 'それぞれ別の明細から作られた、同じ日（近い日）・同じ金額・同じ科目の仕訳です。本当に2回の取引かもしれません。口座の再連携や速報値の確定で MF が同じ明細を二重に取り込んだ可能性もあります。',
          check: CHECK.genuine,
        };
      }
      let lead = '同じ内容の仕訳が複数あります（手入力の二重入力、ジョブの再実行など）。';
      if (origins.has('mf-line') || origins.has('kicho-mf'))
        lead =
          '明細から作った仕訳と、手入力（または別のアプリ）の仕訳が、同じ取引を記帳しています（同じお金が2つの経路で記帳）。';
      else if (origins.has('kicho-csv') && members.every((m) => m.origin === 'kicho-csv'))
        lead = '同じ取引が CSV の別々の取込から登録されています（範囲の違う CSV の取り込み直しなど）。';
      else if ([...origins].some((x) => x.startsWith('kicho')) && origins.has('other'))
        lead = 'kicho と別のアプリ（または手入力）の両方が同じ取引を登録しています（二つの自動化）。';
      return { cause: join(lead, when), check: CHECK.content };
    }
  }
}

/** A short stable digest of an id (FNV-1a, 32 bits), for the グループ label. */
function digest(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').slice(0, 6);
}

export function findDuplicates(facts: readonly JournalFacts[], o: AuditOptions): DuplicateGroup[] {
  const edges = findEdges(facts, o);
  if (edges.length === 0) return [];
  const uf = new UnionFind(facts.length);
  for (const e of edges) uf.union(e.a, e.b);
  const groups = new Map<number, { members: Set<number>; kind: DuplicateKind }>();
  for (const e of edges) {
    const root = uf.find(e.a);
    const g = groups.get(root) ?? { members: new Set<number>(), kind: e.kind };
    g.members.add(e.a).add(e.b);
    if (KIND_RANK[e.kind] < KIND_RANK[g.kind]) g.kind = e.kind;
    groups.set(root, g);
  }
  const out: DuplicateGroup[] = [];
  for (const g of groups.values()) {
    const members = [...g.members].map((i) => facts[i]);
    const lines = new Set(members.map((m) => m.lineId).filter((t) => t !== null));
    // Journals each from a statement line of its own (an MF line, or a CSV line of one file), and nothing
    // else ties them: maybe two real payments. CSV lines of one source from different imports are a file
    // taken in twice, not two lines.
    const imports = new Map<string, Set<string>>();
    for (const m of members)
      if (m.origin === 'kicho-csv')
        imports.set(m.ledgerAccount, (imports.get(m.ledgerAccount) ?? new Set()).add(m.importedAt));
    const reimported = [...imports.values()].some((s) => s.size > 1);
    const genuine = g.kind === 'same-content' && lines.size >= 2 && !reimported;
    const order = keepOrderFor(g.kind);
    const sorted = [...members].sort(order);
    const keeper = sorted[0];
    const proposed: DuplicateMember[] = sorted.map((f) => ({
      facts: f,
      proposal:
        f === keeper
          ? genuine
            ? PROPOSAL.genuine
            : PROPOSAL.keep
          : genuine && f.lineId !== null
            ? PROPOSAL.genuine
            : PROPOSAL.delete,
    }));
    const { cause, check } = describe(g.kind, members, genuine, o);
    out.push({
      anchor: `G-${digest(keeper.cid)}`,
      kind: g.kind,
      members: proposed,
      cause,
      check,
      possiblyGenuine: genuine,
    });
  }
  const first = (g: DuplicateGroup) => g.members.map((m) => m.facts.date).sort()[0];
  return out.sort((a, b) => first(a).localeCompare(first(b)) || a.anchor.localeCompare(b.anchor));
}
