/**
 * The web app's secret (DESIGN §7 KICHO_WEBHOOK_SECRET) and the count of wrong secrets. The secret lives
 * only in script properties: it is shown once when made, and never written to a sheet or ログ.
 */
import { FAILURE_WINDOW_MS, type FailureCount } from '../core/events';

export const WEBHOOK_SECRET_PROPERTY = 'KICHO_WEBHOOK_SECRET';
const FAILURES_CACHE_KEY = 'KICHO_WEBHOOK_FAILURES';

export function webhookSecret(): string {
  return PropertiesService.getScriptProperties().getProperty(WEBHOOK_SECRET_PROPERTY) ?? '';
}

/** A new secret: two random UUIDs, 244 random bits, only [0-9a-f] (safe in a URL as it is). */
export function newWebhookSecret(): string {
  const secret = (Utilities.getUuid() + Utilities.getUuid()).replace(/-/g, '').toLowerCase();
  PropertiesService.getScriptProperties().setProperty(WEBHOOK_SECRET_PROPERTY, secret);
  return secret;
}

export function removeWebhookSecret(): void {
  PropertiesService.getScriptProperties().deleteProperty(WEBHOOK_SECRET_PROPERTY);
}

/**
 * The web app's /exec URL, or '' when the script is not deployed as a web app. CacheService holds the
 * failure count: it has no compare-and-set, so concurrent failures may be counted a little low, which
 * only delays the quiet mode — the count limits ログ lines, it guards nothing else.
 */
export function webAppUrl(): string {
  try {
    return ScriptApp.getService().getUrl() ?? '';
  } catch (_e) {
    return '';
  }
}

export function readFailures(): FailureCount | null {
  try {
    const v = JSON.parse(CacheService.getScriptCache().get(FAILURES_CACHE_KEY) ?? 'null');
    return v && typeof v.since === 'number' && typeof v.count === 'number' ? v : null;
  } catch (_e) {
    return null;
  }
}

export function writeFailures(c: FailureCount): void {
  try {
    CacheService.getScriptCache().put(
      FAILURES_CACHE_KEY,
      JSON.stringify(c),
      Math.ceil(FAILURE_WINDOW_MS / 1000),
    );
  } catch (_e) {
    // A cache that cannot be written only means every failure is logged.
  }
}
