/** Small Apps Script facts and utilities with no sheet, store or dialog of their own. */

/** This script project's id (the OAuth callback URL names it). */
export function scriptId(): string {
  return ScriptApp.getScriptId();
}

/** A random UUID from Utilities. */
export function uuid(): string {
  return Utilities.getUuid();
}

/** Bytes of `text` in UTF-8, counted by a blob as Apps Script counts property sizes. */
export function utf8Bytes(text: string): number {
  return Utilities.newBlob(text).getBytes().length;
}
