/**
 * AI 判定 (DESIGN §1): rows no rule matched are claimed under the script lock together with the
 * rules' changes, the provider is asked outside the lock (one request per row), and the answers
 * are written under the lock again, by key, only to rows still exactly as claimed.
 */
import { AI_RUN_MSG, type AiOutcome, type AiPolicy, outcomeOf } from '../core/ai/answer';
import {
  AI_FAILURE_BURST,
  AI_STOP_CALLING_AT_MS,
  allowance,
  tokyoDate,
  usageText,
  usedToday,
} from '../core/ai/limits';
import { type AiCandidate, claimRows, pickCandidates, untouchedRow } from '../core/ai/plan';
import { AI_INSTRUCTIONS, catalogFromMasters, statementForAi, userMessage } from '../core/ai/prompt';
import {
  type AiConfig,
  buildAiRequest,
  DEFAULT_BASE_URL,
  DEFAULT_MODEL,
  readAiResponse,
} from '../core/ai/providers';
import type { InvoiceJudging } from '../core/classify';
import { applyChanges, indexByKey, type LedgerRow, type RowChange } from '../core/ledger';
import type { Masters } from '../core/masters';
import { HttpNotSentError, HttpTransportError, underLock } from '../core/ports';
import { redactSecrets } from '../core/redact';
import type { Settings } from '../core/settings';
import { urlFetchPort } from '../gas/http';
import { readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { scriptLock } from '../gas/lock';
import { PROPERTY, property, scriptStore } from '../gas/properties';
import { toast } from '../gas/toast';
import { refreshReviewSheet } from './review-sheet';
import type { RunContext } from './run';

/** Script property with today's request count, shared by every account that runs kicho. */
export const AI_USAGE_PROPERTY = 'AI_USAGE';

/** The provider configuration, or null when AI 判定 is オフ or cannot run (then rows go to 要確認 as before). */
export function aiConfig(settings: Settings): { config: AiConfig | null; messages: string[] } {
  const provider = settings.aiProvider;
  if (provider === 'オフ') return { config: null, messages: [] };
  const apiKey = property(PROPERTY.aiApiKey);
  if (!apiKey) return { config: null, messages: [AI_RUN_MSG.noKey(provider)] };
  return {
    config: {
      provider,
      apiKey,
      model: property(PROPERTY.aiModel) ?? DEFAULT_MODEL[provider],
      baseUrl: property(PROPERTY.aiBaseUrl) ?? DEFAULT_BASE_URL[provider],
    },
    messages: [],
  };
}

export interface AiClaim {
  candidates: AiCandidate[];
  /** Claim markers, to be written with the rules' changes (same write, same lock). */
  changes: RowChange[];
  messages: string[];
}

/**
 * Under the lock: picks the rows, reserves today's quota for them (the count lives in script
 * properties, so reserving under the lock keeps two runs from both spending the last requests).
 */
export function claimForAi(rows: readonly LedgerRow[], settings: Settings, now: string): AiClaim {
  const nowMs = Date.parse(now);
  const eligible = pickCandidates(rows, nowMs);
  if (eligible.length === 0) return { candidates: [], changes: [], messages: [] };
  const store = scriptStore();
  const day = tokyoDate(nowMs);
  const used = usedToday(store.get(AI_USAGE_PROPERTY), day);
  const n = allowance(settings.aiPerRun, settings.aiPerDay, used, eligible.length);
  if (n > 0) store.set(AI_USAGE_PROPERTY, usageText(day, used + n));
  const messages: string[] = [];
  const left = eligible.length - n;
  if (left > 0) {
    messages.push(
      used + n >= settings.aiPerDay
        ? AI_RUN_MSG.dailyCap(left, settings.aiPerDay)
        : AI_RUN_MSG.perRunCap(left, settings.aiPerRun),
    );
  }
  const { changes, candidates } = claimRows(eligible.slice(0, n), now);
  return { candidates, changes, messages };
}

export interface AiJudgeSummary {
  answered: number;
  approved: number;
  review: number;
  notYet: number;
  personWon: number;
  messages: string[];
}

/** Outside the lock: one request per claimed row, then the write-back under the lock. */
export function judgeClaimed(
  ctx: RunContext,
  config: AiConfig,
  settings: Settings,
  masters: Masters,
  claim: AiClaim,
  invoice?: InvoiceJudging,
): AiJudgeSummary {
  toast(ctx.fromTrigger, `AIに判定を依頼しています（${claim.candidates.length} 件）…`);
  const http = urlFetchPort();
  const catalog = catalogFromMasters(masters);
  const policy: AiPolicy = {
    model: config.model,
    threshold: settings.aiThreshold,
    autoApprove: settings.aiAutoApprove,
    ...(invoice ? { invoice } : {}),
  };
  const secret = (text: string) => redactSecrets(text, [config.apiKey]);
  const outcomes = new Map<string, AiOutcome>();
  let stopped: string | null = null;
  let burst = 0;
  let sent = 0;
  for (const c of claim.candidates) {
    if (!stopped && Date.now() - ctx.startedAt >= AI_STOP_CALLING_AT_MS) stopped = AI_RUN_MSG.timeBudget;
    if (stopped) {
      outcomes.set(c.key, { kind: 'not-yet', why: stopped, stop: false, burst: false });
      continue;
    }
    sent++;
    const request = buildAiRequest(config, AI_INSTRUCTIONS, userMessage(statementForAi(c.claimed), catalog));
    let outcome: AiOutcome;
    try {
      outcome = outcomeOf(readAiResponse(config.provider, http.send(request)), c.claimed, masters, policy);
    } catch (e) {
      if (e instanceof HttpNotSentError) {
        // Apps Script refused the call (permission, daily quota): nothing was sent; stop asking.
        outcomes.set(c.key, { kind: 'not-yet', why: e.message, stop: true, burst: false });
        stopped = e.message;
        continue;
      }
      if (!(e instanceof HttpTransportError)) throw e;
      const why = e.reason === 'timeout' ? AI_RUN_MSG.timeout : AI_RUN_MSG.network(e.message);
      outcome = { kind: 'not-yet', why, stop: false, burst: true };
    }
    // Model and provider text reaches the sheet: never with the key in it (DESIGN §9.5).
    if (outcome.kind === 'judged') {
      const { 判定根拠, メモ } = outcome.patch;
      outcome = {
        kind: 'judged',
        patch: { ...outcome.patch, 判定根拠: secret(String(判定根拠)), メモ: secret(String(メモ)) },
      };
      burst = 0;
    } else {
      outcome = { ...outcome, why: secret(outcome.why) };
      burst = outcome.burst ? burst + 1 : 0;
      if (outcome.stop || burst >= AI_FAILURE_BURST) stopped = `${AI_RUN_MSG.stoppedEarly}: ${outcome.why}`;
    }
    outcomes.set(c.key, outcome);
  }
  return writeBack(config, settings, claim, outcomes, claim.candidates.length - sent, stopped);
}

/** Under the lock again: re-locate by key; a row a person changed meanwhile keeps their change. */
function writeBack(
  config: AiConfig,
  settings: Settings,
  claim: AiClaim,
  outcomes: ReadonlyMap<string, AiOutcome>,
  unsent: number,
  stopped: string | null,
): AiJudgeSummary {
  const summary: AiJudgeSummary = {
    answered: 0,
    approved: 0,
    review: 0,
    notYet: 0,
    personWon: 0,
    messages: [],
  };
  const settled = underLock(scriptLock(), () => {
    const now = new Date().toISOString();
    const table = readLedger();
    const byKey = indexByKey(table.rows);
    const changes: RowChange[] = [];
    for (const c of claim.candidates) {
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
          : { メモ: redactSecrets(AI_RUN_MSG.later(outcome.why), [config.apiKey]) };
      changes.push({ key: c.key, rowNumber: row.rowNumber, patch: { ...patch, 更新日時: now } });
    }
    // A person who typed into a row while it was being written wins too: those rows are not counted.
    const { withheld } = writeLedgerChanges(table, changes);
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
    if (unsent > 0) {
      // Give back what was reserved but not sent, so the daily cap counts requests, not plans.
      const store = scriptStore();
      const day = tokyoDate(Date.now());
      const used = usedToday(store.get(AI_USAGE_PROPERTY), day);
      store.set(AI_USAGE_PROPERTY, usageText(day, used - unsent));
    }
    refreshReviewSheet(
      applyChanges(
        table,
        changes.filter((c) => !held.has(c.rowNumber)),
      ),
      settings.graceMinutes,
    );
  });
  if (!settled) {
    summary.messages.push(AI_RUN_MSG.lockLost);
    return summary;
  }
  summary.messages.push(
    AI_RUN_MSG.summary(config.provider, config.model, summary.answered, summary.approved, summary.review),
  );
  if (summary.notYet > 0)
    summary.messages.push(AI_RUN_MSG.notYet(summary.notYet, stopped ?? '提供元のエラー'));
  if (summary.personWon > 0) summary.messages.push(AI_RUN_MSG.personWon(summary.personWon));
  return summary;
}
