/** Utilities: digests with signed bytes, base64, charsets, dates with Java patterns, sleep, UUIDs. */
import { GasError } from '../errors';
import {
  base64Decode,
  base64DecodeWebSafe,
  base64Encode,
  base64EncodeWebSafe,
  computeDigest,
  computeHmacSignature,
  decodeBytes,
  encodeString,
  newUuid,
  toSignedBytes,
} from '../lib/bytes';
import { formatDate, parseDate } from '../lib/format-date';
import { method, type ServiceTable } from './method';

/** Utilities.sleep accepts at most 5 minutes (reference/gas-platform.md §5.3). */
const MAX_SLEEP_MS = 300_000;

export const UTILITIES_SERVICE: ServiceTable = {
  computeDigest: method('other', (_ctx, alg, value, charset) =>
    computeDigest(alg, value, charset ?? undefined),
  ),
  computeHmac: method('other', (_ctx, alg, value, key, charset) =>
    computeHmacSignature(alg, value, key, charset ?? undefined),
  ),
  base64Encode: method('other', (_ctx, data, charset) => base64Encode(data, charset ?? undefined)),
  base64EncodeWebSafe: method('other', (_ctx, data, charset) =>
    base64EncodeWebSafe(data, charset ?? undefined),
  ),
  base64Decode: method('other', (_ctx, text, charset) => base64Decode(text, charset ?? undefined)),
  base64DecodeWebSafe: method('other', (_ctx, text, charset) =>
    base64DecodeWebSafe(text, charset ?? undefined),
  ),
  encode: method('other', (_ctx, text: string, charset: string) =>
    toSignedBytes(encodeString(text, charset)),
  ),
  decode: method('other', (_ctx, bytes: number[], charset: string) => decodeBytes(bytes, charset)),
  formatDate: method('other', (_ctx, date: Date, tz: string, pattern: string) =>
    formatDate(date, tz, pattern),
  ),
  parseDate: method('other', (_ctx, text: string, tz: string, pattern: string) =>
    parseDate(text, tz, pattern),
  ),
  sleep: method('other', (ctx, ms: number) => {
    if (typeof ms !== 'number' || ms < 0 || ms > MAX_SLEEP_MS) {
      throw new GasError('Invalid argument: milliseconds. Must be between 0 and 300000.');
    }
    ctx.world.clock.advance(ms);
  }),
  uuid: method('other', (ctx) => newUuid(() => ctx.world.random())),
};
