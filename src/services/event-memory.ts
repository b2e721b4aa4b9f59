/**
 * The memory of event contents (core/event-memory.ts) in script properties: one read per request that
 * resends an id already on the 台帳 or records one, and at most one write, under the script lock.
 */
import {
  formatEventMemory,
  parseEventMemory,
  type RememberedEvent,
  rememberEvents,
} from '../core/event-memory';
import { scriptProperties } from '../gas/properties';

const PREFIX = 'KICHO_EVENT_CONTENT';

export interface EventMemory {
  entries: RememberedEvent[];
  names: string[];
}

export function readEventMemory(): EventMemory {
  const all = scriptProperties().getProperties();
  const names = Object.keys(all)
    .filter((k) => k === PREFIX || k.startsWith(`${PREFIX}_`))
    .sort();
  return { entries: names.flatMap((n) => parseEventMemory(all[n])), names };
}

/** Remembers each key's digest (before the rows are written: a kill after it leaves nothing wrong). */
export function writeEventMemory(memory: EventMemory, digests: ReadonlyMap<string, string>): void {
  if (digests.size === 0) return;
  const props = scriptProperties();
  const values = formatEventMemory(rememberEvents(memory.entries, digests));
  const next: Record<string, string> = {};
  values.forEach((v, i) => {
    next[i === 0 ? PREFIX : `${PREFIX}_${i}`] = v;
  });
  if (values.length > 0) props.setProperties(next);
  for (const n of memory.names) if (!(n in next)) props.deleteProperty(n);
}
