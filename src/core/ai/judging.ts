/**
 * AI 判定 (DESIGN §1) as an instance of the exactly-once skeleton (exactly-once/skeleton.ts owns the loop,
 * the lock sections and the stops). What is particular to AI 判定, in the order a run meets it:
 *   1. recover — nothing of its own: a claim older than AI_CLAIM_LEASE_MS belongs to no live run, and
 *                pickCandidates (plan.ts) takes its row again like an unclaimed one. Asking a model twice
 *                has no effect outside kicho, so nothing needs looking up first.
 *   2. claim   — in classify's locked write (the run's first section): rows no rule matched get their
 *                claim marker in the same write as the rules' changes, and today's quota is reserved in
 *                script properties under the same lock
 *   3. act     — one provider request per claimed row, outside the lock, its answer sorted into an
 *                outcome kind (judged → done; not yet → returned)
 *   4. settle  — under the lock: each answer written by key, only to a row still exactly as claimed (a
 *                person's change wins), and the quota reserved but not spent given back
 * Stops: Apps Script refusing to send, the provider refusing or rate-limiting, AI_FAILURE_BURST failures
 * in a row (an answer's stop), and AI_STOP_CALLING_AT_MS (the skeleton's outOfTime); the rows not asked
 * settle as not acted on: back to 未判定 with a note.
 */
import type { InvoiceJudging } from '../classify';
import type { OutcomeKind } from '../exactly-once/outcomes';
import { type Acted, type Batch, runExactlyOnce, type Stop } from '../exactly-once/skeleton';
import { applyChanges, indexByKey, type LedgerRow, type LedgerTable, type RowChange } from '../ledger';
import type { Masters } from '../masters';
import {
  type ClockPort,
  HttpNotSentError,
  type HttpPort,
  HttpTransportError,
  type KeyValuePort,
  type LedgerPort,
  type LockPort,
} from '../ports';
import { redactSecrets } from '../redact';
import type { Settings } from '../settings';
import { AI_RUN_MSG, type AiOutcome, type AiPolicy, outcomeOf } from './answer';
import {
  AI_FAILURE_BURST,
  AI_STOP_CALLING_AT_MS,
  allowance,
  tokyoDate,
  usageText,
  usedToday,
} from './limits';
import { type AiCandidate, claimRows, pickCandidates, untouchedRow } from './plan';
import { AI_INSTRUCTIONS, catalogFromMasters, statementForAi, userMessage } from './prompt';
import { type AiConfig, buildAiRequest, readAiResponse } from './providers';

/** Script property with today's request count, shared by every account that runs kicho. */
export const AI_USAGE_PROPERTY = 'AI_USAGE';

/**
 * The claim step classify's locked section calls on the rows it leaves 未判定 (after the rules, 操作 and
 * deposits): returns the claim markers to write in the same write.
 */
export type AiClaimStep = (open: readonly LedgerRow[], now: string) => readonly RowChange[];

/** What AI 判定 runs over: Apps Script in the app (services/ai-judge.ts), fakes in a unit test. */
export interface AiJudgingPorts {
  lock: LockPort;
  /**
   * The run's first locked section, classify's: one read of the 台帳, and one write of its own changes
   * with the markers `claim` returns. Returns the changes the write held back (a person typed into the
   * row meanwhile): those rows are not claimed. Returning is the flush (the skeleton releases the lock).
   */
  classify(claim: AiClaimStep): { withheld: readonly RowChange[] };
  /** The 台帳 for the settle: one read, one write (which holds back rows a person is typing into). */
  ledger: LedgerPort;
  /** Script properties, where today's request count lives. */
  usage: KeyValuePort;
  http: HttpPort;
  clock: Pick<ClockPort, 'now' | 'iso'>;
  /** Told as the requests begin (the person sees a toast). */
  asking(count: number): void;
  /** Told with the 台帳 as the settle left it (the 要確認 sheet is refreshed from it). */
  settledTable(table: LedgerTable): void;
}

export interface AiJudgingInput {
  /** Null when AI 判定 is オフ or cannot run: classify's section runs, nothing is claimed. */
  config: AiConfig | null;
  settings: Pick<Settings, 'aiPerRun' | 'aiPerDay' | 'aiThreshold' | 'aiAutoApprove'>;
  masters: Masters;
  invoice?: InvoiceJudging;
  /** When the execution started (Date.now()): AI_STOP_CALLING_AT_MS counts from it. */
  startedAt: number;
}

export interface AiClaim {
  candidates: AiCandidate[];
  /** Claim markers, to be written with the rules' changes (same write, same lock). */
  changes: RowChange[];
  messages: string[];
}

/**
 * 2. The claim, under the lock: picks the rows and reserves today's quota for them (the count lives in
 * script properties, so reserving under the lock keeps two runs from both spending the last requests).
 */
export function claimForAi(
  rows: readonly LedgerRow[],
  caps: Pick<Settings, 'aiPerRun' | 'aiPerDay'>,
  now: string,
  store: KeyValuePort,
): AiClaim {
  const nowMs = Date.parse(now);
  const eligible = pickCandidates(rows, nowMs);
  if (eligible.length === 0) return { candidates: [], changes: [], messages: [] };
  const day = tokyoDate(nowMs);
  const used = usedToday(store.get(AI_USAGE_PROPERTY), day);
  const n = allowance(caps.aiPerRun, caps.aiPerDay, used, eligible.length);
  if (n > 0) store.set(AI_USAGE_PROPERTY, usageText(day, used + n));
  const messages: string[] = [];
  const left = eligible.length - n;
  if (left > 0) {
    messages.push(
      used + n >= caps.aiPerDay
        ? AI_RUN_MSG.dailyCap(left, caps.aiPerDay)
        : AI_RUN_MSG.perRunCap(left, caps.aiPerRun),
    );
  }
  const { changes, candidates } = claimRows(eligible.slice(0, n), now);
  return { candidates, changes, messages };
}

/**
 * What a provider reply means for its claim. Judged (any answer, even unusable) is done. Not yet is
 * returned — also a timeout or a dropped connection, after which the provider may have answered (and
 * charged) without our hearing it: unlike a journal, an answer nobody received changes nothing, so the
 * row goes back to 未判定 and is asked again next time (the skeleton's unknown would hold it for a lookup
 * there is nothing to look up in).
 */
export function aiOutcomeKind(outcome: AiOutcome): OutcomeKind {
  return outcome.kind === 'judged' ? 'done' : 'returned';
}

export interface AiJudgeSummary {
  answered: number;
  approved: number;
  review: number;
  notYet: number;
  personWon: number;
  messages: string[];
}

/** How the run went for AI 判定. */
export interface AiJudging {
  /** False when another run held the lock at classify's section: nothing was read or written. */
  classified: boolean;
  /** Rows left for a later run by the per-run or daily cap. */
  claimMessages: string[];
  /** Null when no row was claimed (no request due). */
  judged: AiJudgeSummary | null;
}

/** An answer that stops asking for the rest of the run: its words. */
type AiStop = string;

/** Runs classify's section with AI 判定's claim in it, then the requests and their settle. */
export function judgeWithAi(ports: AiJudgingPorts, input: AiJudgingInput): AiJudging {
  const { config, settings, masters } = input;
  const out: AiJudging = { classified: false, claimMessages: [], judged: null };
  /** Requests made (the quota counts them; one Apps Script refused counts too). */
  let sent = 0;
  let burst = 0;
  const catalog = catalogFromMasters(masters);
  const policy: AiPolicy | null = config && {
    model: config.model,
    threshold: settings.aiThreshold,
    autoApprove: settings.aiAutoApprove,
    ...(input.invoice ? { invoice: input.invoice } : {}),
  };
  const secret = (text: string) => redactSecrets(text, config ? [config.apiKey] : []);

  /** 3. One request, outside the lock. */
  const act = (c: AiCandidate): Acted<AiOutcome, AiStop> => {
    if (!config || !policy) throw new Error('AI 判定: a request without a provider');
    sent++;
    const request = buildAiRequest(config, AI_INSTRUCTIONS, userMessage(statementForAi(c.claimed), catalog));
    let outcome: AiOutcome;
    try {
      outcome = outcomeOf(
        readAiResponse(config.provider, ports.http.send(request)),
        c.claimed,
        masters,
        policy,
      );
    } catch (e) {
      if (e instanceof HttpNotSentError) {
        // Apps Script refused the call (permission, daily quota): nothing was sent; stop asking.
        const answer: AiOutcome = { kind: 'not-yet', why: e.message, stop: true, burst: false };
        return { kind: aiOutcomeKind(answer), answer, stop: e.message };
      }
      if (!(e instanceof HttpTransportError)) throw e;
      const why = e.reason === 'timeout' ? AI_RUN_MSG.timeout : AI_RUN_MSG.network(e.message);
      outcome = { kind: 'not-yet', why, stop: false, burst: true };
    }
    // Model and provider text reaches the sheet: never with the key in it (DESIGN §9.5).
    if (outcome.kind === 'judged') {
      const { 判定根拠, メモ } = outcome.patch;
      burst = 0;
      const answer: AiOutcome = {
        kind: 'judged',
        patch: { ...outcome.patch, 判定根拠: secret(String(判定根拠)), メモ: secret(String(メモ)) },
      };
      return { kind: aiOutcomeKind(answer), answer };
    }
    const answer: AiOutcome = { ...outcome, why: secret(outcome.why) };
    burst = answer.burst ? burst + 1 : 0;
    const stops = answer.stop || burst >= AI_FAILURE_BURST;
    return {
      kind: aiOutcomeKind(answer),
      answer,
      ...(stops ? { stop: `${AI_RUN_MSG.stoppedEarly}: ${answer.why}` } : {}),
    };
  };

  /** 4. The settle, under the lock: re-located by key; a row a person changed meanwhile keeps their change. */
  const settle = (batch: Batch<AiCandidate, AiOutcome, AiStop>, summary: AiJudgeSummary): void => {
    const apiKey = config ? [config.apiKey] : [];
    const outcomes = new Map(batch.claims.map((c, i) => [c.key, batch.outcomes[i].answer]));
    const now = ports.clock.iso();
    const table = ports.ledger.read();
    const byKey = indexByKey(table.rows);
    const changes: RowChange[] = [];
    for (const c of batch.claims) {
      const outcome = outcomes.get(c.key);
      if (!outcome) continue;
      const row = untouchedRow(byKey, c);
      if (!row) {
        summary.personWon++;
        continue;
      }
      const patch =
        outcome.kind === 'judged'
          ? outcome.patch
          : { メモ: redactSecrets(AI_RUN_MSG.later(outcome.why), apiKey) };
      changes.push({ key: c.key, rowNumber: row.rowNumber, patch: { ...patch, 更新日時: now } });
    }
    // A person who typed into a row while it was being written wins too: those rows are not counted.
    const withheld = ports.ledger.write(table, changes)?.withheld ?? [];
    summary.personWon += withheld.length;
    const held = new Set(withheld.map((c) => c.rowNumber));
    for (const c of changes) {
      if (held.has(c.rowNumber)) continue;
      const outcome = outcomes.get(c.key);
      if (outcome?.kind === 'judged') {
        summary.answered++;
        if (outcome.patch.状態 === '送信待ち') summary.approved++;
        else summary.review++;
      } else summary.notYet++;
    }
    const unsent = batch.claims.length - sent;
    if (unsent > 0) {
      // Give back what was reserved but not sent, so the daily cap counts requests, not plans.
      const day = tokyoDate(ports.clock.now());
      const used = usedToday(ports.usage.get(AI_USAGE_PROPERTY), day);
      ports.usage.set(AI_USAGE_PROPERTY, usageText(day, used - unsent));
    }
    ports.settledTable(
      applyChanges(
        table,
        changes.filter((c) => !held.has(c.rowNumber)),
      ),
    );
  };

  const summary: AiJudgeSummary = {
    answered: 0,
    approved: 0,
    review: 0,
    notYet: 0,
    personWon: 0,
    messages: [],
  };
  /** What the run has done so far (set inside the skeleton's steps). */
  const run: { claim: AiClaim | null; asked: boolean; stopped: string | null } = {
    claim: null,
    asked: false,
    stopped: null,
  };
  const end = runExactlyOnce<AiCandidate, AiOutcome, AiStop>({
    lock: ports.lock,
    // The caps are counted under the lock from script properties (another run may have spent some): the
    // claim decides how many, so the skeleton's room is no limit and the first batch is the whole run.
    room: () => Number.POSITIVE_INFINITY,
    lockedPhase(batch) {
      if (batch) {
        run.stopped =
          batch.stop?.kind === 'answer'
            ? batch.stop.answer
            : batch.stop?.kind === 'time'
              ? AI_RUN_MSG.timeBudget
              : null;
        settle(batch, summary);
        return { kind: 'nothing' };
      }
      const { withheld } = ports.classify((open, now) => {
        if (!config) return [];
        run.claim = claimForAi(open, settings, now, ports.usage);
        return run.claim.changes;
      });
      out.classified = true;
      out.claimMessages = run.claim?.messages ?? [];
      // Only rows whose marker was written are asked about.
      const claims = (run.claim?.candidates ?? []).filter((c) => !withheld.some((w) => w.key === c.key));
      return claims.length > 0 ? { kind: 'claimed', claims } : { kind: 'nothing' };
    },
    startActs(claims) {
      run.asked = true;
      ports.asking(claims.length);
    },
    outOfTime: () => ports.clock.now() - input.startedAt >= AI_STOP_CALLING_AT_MS,
    act,
    notActed: (_c, why: Stop<AiStop>): AiOutcome => ({
      kind: 'not-yet',
      why: why.kind === 'time' ? AI_RUN_MSG.timeBudget : why.answer,
      stop: false,
      burst: false,
    }),
  });
  if (!run.asked || !config) return out;
  out.judged = summary;
  // The settle found the lock held: the rows keep their markers until the lease ends.
  if (end.kind === 'busy') {
    summary.messages.push(AI_RUN_MSG.lockLost);
    return out;
  }
  summary.messages.push(
    AI_RUN_MSG.summary(config.provider, config.model, summary.answered, summary.approved, summary.review),
  );
  if (summary.notYet > 0)
    summary.messages.push(AI_RUN_MSG.notYet(summary.notYet, run.stopped ?? '提供元のエラー'));
  if (summary.personWon > 0) summary.messages.push(AI_RUN_MSG.personWon(summary.personWon));
  return out;
}
