/**
 * Another automation sending events to kicho's web app (issue 17), as senders do it: a small pool of
 * events (an event id always carries the same content, as a resend does), sent in some slots; copies of
 * one request at the same moment (two automations reacting to one event); a request killed mid-way; a
 * request whose answer was not JSON (a kill, a thrown error) or said "retry" sent again in the next
 * slot; an earlier request replayed later (someone re-runs a job by hand). Derived from the scenario's
 * seeds with its own generator, so the fast-check scenario (and every seed's draw) is unchanged; the
 * sender's requests do not shrink with it.
 */
import { answerOf, webAppEvent, webResponse } from '../gas/web-app';
import { mulberry32 } from '../mf/random';
import type { Scenario } from './scenario';

export const SENDER_SOURCE = 'ショップ';
export const SENDER_SECRET = 'sim-webhook-secret-0123456789abcdef0123456789abcdef';
const POOL = 8;

/** What each event id carries (rules approve some; others wait for a person; one looks like a formula). */
const CONTENTS: readonly { description: string; direction: '入金' | '出金'; amount: number }[] = [
  { description: 'AMAZON マーケットプレイス 注文', direction: '出金', amount: 2480 },
  { description: 'ギフト 売上', direction: '入金', amount: 5500 },
  { description: 'JR 回数券', direction: '出金', amount: 1200 },
  { description: '=HYPERLINK("http://example.com","x")', direction: '入金', amount: 3300 },
  { description: 'ヨドバシ 注文', direction: '出金', amount: 8800 },
  { description: '定期便 売上', direction: '入金', amount: 990 },
];

export interface SenderEvent {
  id: string;
  date: string;
  amount: number;
  direction: '入金' | '出金';
  description: string;
}

export interface SenderRequest {
  /** Virtual time it is sent. */
  at: number;
  ids: string[];
  /** Kill the execution at this service call. */
  kill?: number;
  /** Why it is sent: first send, a second automation's copy, a replay by hand, a resend after no answer. */
  why: 'send' | 'copy' | 'replay' | 'resend';
}

/** Ids end in the seed's digits, so a person's one-character slip of a key (people.ts) names no other event. */
export function senderEvent(seed: number, n: number): SenderEvent {
  const c = CONTENTS[n % CONTENTS.length];
  return { id: `ord${n}-${seed}`, date: `2026-05-0${1 + (n % 8)}`, ...c };
}

/** The sender's requests in time order: roughly one slot in two sends something. */
export function senderPlan(s: Scenario, slotStarts: readonly number[]): SenderRequest[] {
  const next = mulberry32((s.data.seed * 0x9e3779b1) ^ s.schedule.seed ^ 0x17);
  const out: SenderRequest[] = [];
  const sent: string[][] = [];
  slotStarts.forEach((base, i) => {
    if (next() < 0.5) return;
    const at = base + Math.floor(next() * 600) * 1000;
    const count = 1 + Math.floor(next() * 3);
    const ids = Array.from({ length: count }, () => senderEvent(s.data.seed, Math.floor(next() * POOL)).id);
    const kill = next() < 0.15 ? 1 + Math.floor(next() * 40) : undefined;
    out.push({ at, ids, kill, why: 'send' });
    if (next() < 0.3) out.push({ at, ids, why: 'copy' });
    if (sent.length > 0 && next() < 0.2)
      out.push({ at: at + 30_000, ids: sent[Math.floor(next() * sent.length)], why: 'replay' });
    sent.push(ids);
    void i;
  });
  return out.sort((a, b) => a.at - b.at);
}

export function senderBody(seed: number, ids: readonly string[]): string {
  const byId = new Map(Array.from({ length: POOL }, (_, n) => senderEvent(seed, n)).map((e) => [e.id, e]));
  return JSON.stringify({ source: SENDER_SOURCE, events: ids.map((id) => byId.get(id)) });
}

export function senderArgs(seed: number, ids: readonly string[]): unknown[] {
  return [webAppEvent({ query: { key: SENDER_SECRET }, body: senderBody(seed, ids) })];
}

/** What the sender learnt from an answer: ids acknowledged (accepted / duplicate) and ids to send again. */
export function readAnswer(
  status: 'ok' | 'error' | 'killed',
  value: unknown,
  ids: readonly string[],
): { acked: string[]; again: string[]; rejected: string[] } {
  const a = answerOf(webResponse(status, value, undefined)) as {
    results?: { id: string; status: string; retry?: boolean }[];
    retry?: boolean;
  } | null;
  if (!a || !Array.isArray(a.results)) return { acked: [], again: [...ids], rejected: [] };
  if (a.results.length === 0)
    return a.retry
      ? { acked: [], again: [...ids], rejected: [] }
      : { acked: [], again: [], rejected: [...ids] };
  const acked: string[] = [];
  const again: string[] = [];
  const rejected: string[] = [];
  for (const r of a.results) {
    if (r.status === 'accepted' || r.status === 'duplicate') acked.push(r.id);
    else if (r.retry) again.push(r.id);
    else rejected.push(r.id);
  }
  return { acked, again, rejected };
}
