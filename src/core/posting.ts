/**
 * The posting protocol's decisions (DESIGN §5), as pure functions: which rows to claim, how a
 * claim looks, and what each send outcome does to the row. The orchestration is in protocol.ts.
 */
import { type ClaimState, claimable, type OutcomeKind } from './exactly-once/outcomes';
import { indexByKey, type LedgerRecord, type LedgerRow, type RowChange } from './ledger';
import { SAFETY } from './safety';
import { isSent, type LedgerState, transition } from './states';

export interface Claimed {
  key: string;
  rowNumber: number;
  record: LedgerRecord;
  attemptsBefore: number;
}

/** What became of one claimed row (a send outcome, or why it was not sent). */
export type SendResult =
  /** `note`: what a person should know about the journal (e.g. sent without its インボイス区分 on purpose). */
  /** `invoiceKinds`: each side's invoice_kind as MF's answer shows the journal stored (issue 27). */
  | { kind: 'created'; journalId: string; fingerprint: string; note?: string; invoiceKinds?: string[] }
  | { kind: 'found'; journalId: string; fingerprint: string }
  /** `explanation`: MF's refusal in Japanese with its code in brackets (src/mf/messages.ts). */
  | { kind: 'rejected'; status: number; code: string; message: string; explanation?: string }
  | { kind: 'rate-limited'; retryAfterMs: number | null }
  | { kind: 'unauthorized'; message: string }
  | { kind: 'unknown'; reason: string }
  | { kind: 'invalid'; problems: string[] }
  /** Not sent because MF is known to refuse what the journal needs (インボイス区分): 失敗, and says why. */
  | { kind: 'stopped'; reason: string }
  | { kind: 'not-sent'; reason: string }
  /** Apps Script refused the request before it left (permission, daily quota): the run stops. */
  | { kind: 'refused'; reason: string };

/**
 * The 台帳 states in the exactly-once skeleton's terms: 送信待ち is the open item, 送信中 the claim; a
 * refusal settles as 失敗 (MF's) or 要確認 (kicho's own check), both left to a person.
 */
const CLAIM_STATES: ReadonlyMap<string, ClaimState> = new Map<LedgerState, ClaimState>([
  ['送信待ち', 'open'],
  ['送信中', 'claimed'],
  ['完了', 'done'],
  ['失敗', 'failed'],
  ['要確認', 'failed'],
  ['不明', 'unknown'],
]);

/** A 状態 cell's text in the skeleton's terms (null: a state outside posting, or no state). */
export function claimStateOf(state: string): ClaimState | null {
  return CLAIM_STATES.get(state) ?? null;
}

/** What a send's answer means for its claim (the skeleton's outcome kinds; settlePatch writes it). */
export function outcomeKind(result: SendResult): OutcomeKind {
  switch (result.kind) {
    case 'created':
    case 'found':
      return 'done';
    case 'rejected':
    case 'stopped':
    case 'invalid':
      return 'rejected';
    case 'unknown':
      return 'unknown';
    case 'rate-limited':
    case 'unauthorized':
    case 'not-sent':
    case 'refused':
      return 'returned';
  }
}

function attempts(record: LedgerRecord): number {
  const n = Number(record.試行回数);
  return Number.isFinite(n) ? n : 0;
}

/**
 * Duplicate keys: a key on two rows is never posted twice. When none of its rows has been sent,
 * all its open rows go to 要確認; when one has, every other open row (a copy) does.
 */
export function guardDuplicateKeys(rows: readonly LedgerRow[], now: string): RowChange[] {
  const changes: RowChange[] = [];
  for (const [key, list] of indexByKey(rows)) {
    // Rows without a key are not copies of one another: the key guard (key-check.ts) stops them.
    if (list.length < 2 || key.trim() === '') continue;
    const sent = list.find((r) => isSent(r.record.状態));
    const others = list.filter((r) => r !== sent);
    const numbers = list.map((r) => r.rowNumber).join('・');
    for (const row of others) {
      const state = row.record.状態;
      if (state === '除外' || state === '完了' || isSent(state)) continue;
      const memo = sent
        ? `キーが ${sent.rowNumber} 行目と重複しています（${sent.rowNumber} 行目は送信済み）。この行は送信しません。重複なら「除外」を選んでください。`
        : `キーが重複しています（${numbers} 行目）。どれか一つを残し、ほかは「除外」を選んでください。`;
      if (state === '要確認' && row.record.メモ === memo) continue;
      changes.push({
        key,
        rowNumber: row.rowNumber,
        patch: { 状態: transition(state, '要確認', 'duplicate-key guard'), メモ: memo, 更新日時: now },
      });
    }
  }
  return changes;
}

/** Keys that appear on more than one row, and the empty key (never claimed). */
export function duplicateKeys(rows: readonly LedgerRow[]): Set<string> {
  const dup = new Set<string>();
  for (const [key, list] of indexByKey(rows)) if (list.length > 1 || key.trim() === '') dup.add(key);
  return dup;
}

/** Up to `limit` 送信待ち rows, in sheet order, skipping duplicate keys; the claim patch for each. */
export function planClaim(
  rows: readonly LedgerRow[],
  limit: number,
  now: string,
  /** Only these keys may be claimed (a run following a dry run sends nothing it did not preview). */
  only?: ReadonlySet<string>,
): { claimed: Claimed[]; changes: RowChange[] } {
  const dup = duplicateKeys(rows);
  const claimed: Claimed[] = [];
  const changes: RowChange[] = [];
  for (const row of rows) {
    if (claimed.length >= limit) break;
    const key = row.record.キー;
    const resend = !SAFETY.lookupBeforeResend && row.record.状態 === '不明';
    const open = claimable(claimStateOf(row.record.状態));
    if ((!open && !resend) || dup.has(key)) continue;
    if (only && !only.has(key)) continue;
    const before = attempts(row.record);
    claimed.push({ key, rowNumber: row.rowNumber, record: row.record, attemptsBefore: before });
    // The resend-unknown test build claims a 不明 row on purpose, a move the table refuses: it stays
    // unchecked there so that build shows the simulation catches the missing lookup itself.
    const claimedState = resend ? '送信中' : transition(row.record.状態, '送信中', 'claim');
    changes.push({
      key,
      rowNumber: row.rowNumber,
      patch: { 状態: claimedState, 試行回数: before + 1, 更新日時: now },
    });
  }
  return { claimed, changes };
}

/**
 * The settle patch for one claimed row (DESIGN §5 step 4). Its move starts from the claim, 送信中
 * (whatever a person typed in the cell meanwhile: the outcome is written regardless).
 */
export function settlePatch(c: Claimed, result: SendResult, now: string): Partial<LedgerRecord> {
  const patch = outcomePatch(c, result, now);
  return { ...patch, 状態: transition('送信中', patch.状態, `settle ${result.kind}`) };
}

function outcomePatch(
  c: Claimed,
  result: SendResult,
  now: string,
): Partial<LedgerRecord> & { 状態: LedgerState } {
  const restored = { 試行回数: c.attemptsBefore, 更新日時: now };
  switch (result.kind) {
    case 'created':
    case 'found':
      return {
        状態: '完了',
        MF仕訳ID: result.journalId,
        指紋: result.fingerprint,
        完了日時: now,
        更新日時: now,
        メモ:
          result.kind === 'found'
            ? 'MFでは既に仕訳済みでした（仕訳を確認して完了にしました）。'
            : (result.note ?? ''),
      };
    case 'stopped':
      return { ...restored, 状態: '失敗', メモ: result.reason };
    case 'rejected':
      return {
        状態: '失敗',
        更新日時: now,
        メモ: result.explanation
          ? `MFが登録を受け付けませんでした。${result.explanation}`
          : `MFが登録を受け付けませんでした（HTTP ${result.status}）。[${result.code}]`,
      };
    case 'rate-limited':
      return {
        ...restored,
        状態: '送信待ち',
        メモ: 'MFが混み合っていたため送信を見送りました。次の実行で送ります。',
      };
    case 'unauthorized':
      return {
        ...restored,
        状態: '送信待ち',
        メモ: 'MFの認証に失敗したため送信していません。メニュー「MFに接続」で接続を確認してください。',
      };
    case 'unknown':
      return {
        状態: '不明',
        更新日時: now,
        メモ: `送信結果がわかりません（${result.reason}）。MFに仕訳ができたかを照合で確認します。再送はしません。`,
      };
    case 'invalid':
      return { ...restored, 状態: '要確認', メモ: `送信前の確認で止めました: ${result.problems.join(' ')}` };
    case 'refused':
      return { ...restored, 状態: '送信待ち', メモ: result.reason };
    case 'not-sent':
      return {
        ...restored,
        状態: '送信待ち',
        メモ: `送信していません（${result.reason}）。次の実行で送ります。`,
      };
  }
}

/**
 * Re-locates claimed rows by key in a fresh read (people may have sorted the sheet meanwhile). The
 * row that is ours is the one with that key still in 送信中.
 */
export function relocate(
  rows: readonly LedgerRow[],
  claimed: readonly Claimed[],
): Map<string, LedgerRow | undefined> {
  const byKey = indexByKey(rows);
  const out = new Map<string, LedgerRow | undefined>();
  for (const c of claimed) {
    const list = byKey.get(c.key) ?? [];
    out.set(c.key, list.find((r) => r.record.状態 === '送信中') ?? list[0]);
  }
  return out;
}
