/**
 * Someone clicking 古い行をアーカイブ (issue 18) at random moments: in about one slot in four, by the owner
 * or a second editor, sometimes killed at a call, sometimes twice at once. The world sets
 * アーカイブまでの月数 to 0, so every 完了・除外 row is old enough and there are rows to move. Derived from
 * the scenario's seeds with its own generator (like sender.ts), so the fast-check scenario and every
 * seed's draw stay as they were; these clicks do not shrink with it.
 */
import { mulberry32 } from '../mf/random';
import type { Scenario } from './scenario';

export interface ArchiveClick {
  at: number;
  /** 0: the owner, 1: the second editor. */
  user: 0 | 1;
  /** Kill the execution at this service call. */
  kill?: number;
}

export function archivePlan(s: Scenario, slotStarts: readonly number[]): ArchiveClick[] {
  const next = mulberry32((s.data.seed * 0x85ebca6b) ^ s.schedule.seed ^ 0x18);
  const out: ArchiveClick[] = [];
  for (const base of slotStarts) {
    if (next() >= 0.25) continue;
    const at = base + Math.floor(next() * 600) * 1000;
    const user = next() < 0.7 ? 0 : 1;
    // A kill anywhere in the run (about 90 calls with a few rows to move).
    const kill = next() < 0.3 ? 1 + Math.floor(next() * 90) : undefined;
    out.push({ at, user, ...(kill ? { kill } : {}) });
    // Sometimes a double click: two archive runs at once (one waits for the lock).
    if (next() < 0.15) out.push({ at: at + Math.floor(next() * 5) * 1000, user });
  }
  return out;
}
