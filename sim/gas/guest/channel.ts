/**
 * The guest's only way out: every service call is encoded, handed to the host function the
 * runner installed, and answered synchronously. Runs inside the execution's vm context.
 */
import { decode, encode, type Reply } from '../protocol';

type HostFn = (request: string) => string;

let host: HostFn | undefined;
let lastNow = 0;

/** Called once by the guest bootstrap with the host function (then removed from the global). */
export function connect(fn: HostFn, now: number): void {
  host = fn;
  lastNow = now;
}

/** Virtual time as of the last reply. */
export function now(): number {
  return lastNow;
}

/** Apps Script's exception type: `String(e)` is `Exception: <message>`. */
export class GasException extends Error {
  constructor(message: string, name = 'Exception') {
    super(message);
    this.name = name;
  }
}

export function call<T = unknown>(service: string, methodName: string, ...args: unknown[]): T {
  if (!host) throw new Error('kicho emulator: guest not connected');
  const reply = decode(host(encode({ s: service, m: methodName, a: args }))) as Reply;
  lastNow = reply.t;
  if (!reply.ok) throw new GasException(reply.message, reply.name ?? 'Exception');
  return reply.v as T;
}
