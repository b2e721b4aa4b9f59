/**
 * The service boundary between an execution (guest code in its own vm context) and the world.
 * Every call is a plain, serialisable message so that an execution can later live in a worker
 * thread with the world answering synchronously (Atomics + receiveMessageOnPort).
 * This file is bundled into the guest too: it must only use ECMAScript built-ins.
 */

/** A service call: service name, method name, JSON-able arguments. */
export interface Call {
  s: string;
  m: string;
  a: unknown[];
}

/** The world's answer. `t` is the virtual clock after the call, so guest `Date` needs no extra call. */
export type Reply =
  | { ok: true; v: unknown; t: number }
  | { ok: false; message: string; name?: string; killed?: boolean; t: number };

const DATE_TAG = '$date';

function isDate(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]';
}

/** JSON with Dates preserved as {"$date": ms} (realm-independent: works for guest and host Dates). */
export function encode(value: unknown): string {
  return JSON.stringify(value, function (this: Record<string, unknown>, key: string, v: unknown) {
    const raw = this[key];
    if (isDate(raw)) return { [DATE_TAG]: raw.getTime() };
    return v === undefined ? null : v;
  });
}

/** Inverse of encode; Dates are built with the caller's realm `Date`. */
export function decode(text: string): unknown {
  // A reviver makes parsing ~3x slower; most messages carry no Date at all.
  if (text.indexOf(`"${DATE_TAG}"`) < 0) return JSON.parse(text);
  return JSON.parse(text, (_key, v) => {
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === DATE_TAG && typeof v[DATE_TAG] === 'number') {
        return new Date(v[DATE_TAG]);
      }
    }
    return v;
  });
}
