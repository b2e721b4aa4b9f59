/**
 * AI 判定's ports over Apps Script (the job itself is core/ai/judging.ts, an instance of the exactly-once
 * skeleton): the script lock, the 台帳, script properties, UrlFetch, a toast and the 要確認 sheet.
 */
import { AI_RUN_MSG } from '../core/ai/answer';
import type { AiJudgingPorts } from '../core/ai/judging';
import { type AiConfig, DEFAULT_BASE_URL, DEFAULT_MODEL } from '../core/ai/providers';
import type { Settings } from '../core/settings';
import { scriptClock } from '../gas/clock';
import { urlFetchPort } from '../gas/http';
import { readLedger, writeLedgerChanges } from '../gas/ledger-sheet';
import { scriptLock } from '../gas/lock';
import { PROPERTY, property, scriptStore } from '../gas/properties';
import { toast } from '../gas/toast';
import { refreshReviewSheet } from './review-sheet';
import type { RunContext } from './run';

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

/** The ports, around classify's locked section (`classify`, run under the script lock by the skeleton). */
export function aiJudgingPorts(
  ctx: RunContext,
  settings: Settings,
  classify: AiJudgingPorts['classify'],
): AiJudgingPorts {
  return {
    lock: scriptLock(),
    classify,
    ledger: { read: () => readLedger(), write: (table, changes) => writeLedgerChanges(table, changes) },
    usage: scriptStore(),
    http: urlFetchPort(),
    clock: scriptClock(),
    asking: (count) => toast(ctx.fromTrigger, `AIに判定を依頼しています（${count} 件）…`),
    settledTable: (table) => {
      refreshReviewSheet(table, settings.graceMinutes);
    },
  };
}
