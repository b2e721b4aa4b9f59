/**
 * Keys and remote tags (DESIGN §2). A key identifies a statement line for ever; the tag carries a
 * digest of it to MF, because MF rewrites memo and has no idempotency key of its own.
 */
import { sha256Hex } from './sha256';

export type LedgerKey = string & { readonly __ledgerKey?: never };
export type RemoteTag = string & { readonly __remoteTag?: never };

/** An MF line: the id exactly as MF returned it (already percent-encoded; never decoded). */
export function mfKey(transactionId: string): LedgerKey {
  return `mf:${transactionId}`;
}

export function isMfKey(key: string): boolean {
  return key.startsWith('mf:');
}

/** The MF transaction id inside an `mf:` key. */
export function transactionIdOf(key: string): string {
  return key.slice(3);
}

/** `kc-` + 16 hex chars = 19 characters; MF allows 20 per tag. */
export function remoteTag(key: string): RemoteTag {
  return `kc-${sha256Hex(key).slice(0, 16)}`;
}
