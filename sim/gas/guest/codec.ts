/** Base64 and UTF-8 in plain ECMAScript: the guest context has no Buffer or TextDecoder. */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

export function base64ToBytes(text: string): number[] {
  const clean = text.replace(/[^A-Za-z0-9+/]/g, '');
  const out: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const ch of clean) {
    buffer = (buffer << 6) | ALPHABET.indexOf(ch);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((buffer >> bits) & 0xff);
    }
  }
  return out;
}

/** Unsigned bytes → Apps Script's signed bytes. */
export function signed(bytes: number[]): number[] {
  return bytes.map((b) => (b > 127 ? b - 256 : b));
}

export function utf8Decode(bytes: number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i] & 0xff;
    let cp: number;
    let n: number;
    if (b < 0x80) [cp, n] = [b, 1];
    else if (b >= 0xf0) [cp, n] = [b & 0x07, 4];
    else if (b >= 0xe0) [cp, n] = [b & 0x0f, 3];
    else if (b >= 0xc0) [cp, n] = [b & 0x1f, 2];
    else [cp, n] = [0xfffd, 1];
    for (let k = 1; k < n; k++) cp = (cp << 6) | ((bytes[i + k] ?? 0) & 0x3f);
    out += String.fromCodePoint(cp);
    i += n;
  }
  return out;
}
