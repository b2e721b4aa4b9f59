/**
 * Keys and remote tags (DESIGN §2). A key identifies a statement line for ever; the tag carries a
 * digest of it to MF, because MF rewrites memo and has no idempotency key of its own.
 */
import { sha256Hex } from './sha256';

/**
 * A key that may go to MF: made by mfKey / csvKey / evtKey, or by key-check's checkedKey from a キー cell that
 * fits its row. A cell's text is a plain string (a person may have edited it): it cannot become a tag on a
 * journal without that check.
 */
export type LedgerKey = string & { readonly __ledgerKey: true };
export type RemoteTag = string & { readonly __remoteTag: true };

/** An MF line: the id exactly as MF returned it (already percent-encoded; never decoded). */
export function mfKey(transactionId: string): LedgerKey {
  return `mf:${transactionId}` as LedgerKey;
}

export function isMfKey(key: string): boolean {
  return key.startsWith('mf:');
}

/** The MF transaction id inside an `mf:` key. */
export function transactionIdOf(key: string): string {
  return key.slice(3);
}

/** `kc-` + 16 hex chars = 19 characters; MF allows 20 per tag. The tag a journal kicho sends carries. */
export function remoteTag(key: LedgerKey): RemoteTag {
  return remoteTagOf(key);
}

/** The 16 hex digits of a key's tag (without `kc-`): the compact form the archive index and the sent-rows mark keep. */
export function tagDigits(keyText: string): string {
  return remoteTagOf(keyText).slice(3);
}

/** The tag a row's key text would carry: for looking journals up by tag, never for sending. */
export function remoteTagOf(keyText: string): RemoteTag {
  return `kc-${sha256Hex(keyText).slice(0, 16)}` as RemoteTag;
}

/** A tag kicho wrote (`kc-` + 16 hex), as opposed to tags people put on journals in MF. */
export function isRemoteTag(tag: string): boolean {
  return /^kc-[0-9a-f]{16}$/.test(tag);
}

/** Each kicho tag on `journals` → the id of the journal carrying it (CSV rows are found by their tag). */
export function journalIdsByRemoteTag(
  journals: readonly { id: string; tags: readonly string[] }[],
): Map<string, string> {
  const byTag = new Map<string, string>();
  for (const j of journals) for (const t of j.tags) if (isRemoteTag(t)) byTag.set(t, j.id);
  return byTag;
}

/** Occurrence-counting form of a CSV description: NFKC, trimmed (DESIGN §2). */
export function csvDescriptionForm(description: string): string {
  return description.normalize('NFKC').trim();
}

/**
 * A CSV line (DESIGN §2): `csv:` + 32 hex of SHA-256 over `source|date|amount|NFKC(description)|n`,
 * where n is the 1-based occurrence of the same source|date|amount|description inside the import.
 */
export function csvKey(
  source: string,
  date: string,
  amount: number,
  description: string,
  n: number,
): LedgerKey {
  return `csv:${sha256Hex(`${source}|${date}|${amount}|${csvDescriptionForm(description)}|${n}`).slice(0, 32)}` as LedgerKey;
}

export function isCsvKey(key: string): boolean {
  return key.startsWith('csv:');
}
