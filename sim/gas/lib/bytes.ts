// Apps Script byte semantics: Byte[] values are Java bytes, i.e. SIGNED integers -128..127. Strings become
// bytes through a Java charset (Utilities.newBlob(s).getBytes(), computeDigest(alg, s, charset), ...).

import { createHash, createHmac, randomBytes } from 'node:crypto';
import iconv from 'iconv-lite';

export type DigestAlgorithm = 'MD2' | 'MD5' | 'SHA_1' | 'SHA_256' | 'SHA_384' | 'SHA_512';
export type MacAlgorithm = 'HMAC_MD5' | 'HMAC_SHA_1' | 'HMAC_SHA_256' | 'HMAC_SHA_384' | 'HMAC_SHA_512';
/** Utilities.Charset values; other Java charset names are accepted where Apps Script takes a string. */
export type GasCharset = 'UTF_8' | 'US_ASCII';

export function toSignedBytes(buf: Uint8Array): number[] {
  const out = new Array<number>(buf.length);
  for (let i = 0; i < buf.length; i++) out[i] = buf[i] > 127 ? buf[i] - 256 : buf[i];
  return out;
}

/** Accepts signed (-128..127) or unsigned (0..255) values; each is taken modulo 256 like a Java cast. */
export function fromSignedBytes(bytes: ArrayLike<number>): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (typeof b !== 'number' || !Number.isInteger(b)) throw new Error(`Invalid byte value: ${String(b)}`);
    out[i] = b & 0xff;
  }
  return out;
}

function toUint8(data: Uint8Array | ArrayLike<number>): Uint8Array {
  return data instanceof Uint8Array ? data : fromSignedBytes(data);
}

// ---------------------------------------------------------------------------------------------------------
// Charsets

type CharsetId = 'utf8' | 'ascii' | 'latin1' | 'sjis' | 'cp932' | 'eucjp' | 'utf16' | 'utf16be' | 'utf16le';

const CHARSET_ALIASES: Record<string, CharsetId> = {
  'utf-8': 'utf8',
  utf8: 'utf8',
  utf_8: 'utf8',
  'us-ascii': 'ascii',
  us_ascii: 'ascii',
  ascii: 'ascii',
  'iso-8859-1': 'latin1',
  iso_8859_1: 'latin1',
  'iso8859-1': 'latin1',
  iso8859_1: 'latin1',
  latin1: 'latin1',
  shift_jis: 'sjis',
  'shift-jis': 'sjis',
  sjis: 'sjis',
  'windows-31j': 'cp932',
  windows_31j: 'cp932',
  cp932: 'cp932',
  ms932: 'cp932',
  'euc-jp': 'eucjp',
  euc_jp: 'eucjp',
  eucjp: 'eucjp',
  'utf-16': 'utf16',
  utf_16: 'utf16',
  utf16: 'utf16',
  'utf-16be': 'utf16be',
  utf_16be: 'utf16be',
  'utf-16le': 'utf16le',
  utf_16le: 'utf16le',
};

function charsetId(name: string | undefined): CharsetId {
  if (name === undefined || name === null) return 'utf8';
  const id = CHARSET_ALIASES[String(name).toLowerCase()];
  if (!id) throw new Error(`Unsupported charset: ${name}`);
  return id;
}

/** Java's replacement for a character a charset cannot encode. */
const QUESTION = 0x3f;

// Java's "Shift_JIS" is JIS X 0208 only, and maps seven code points differently from Windows-31J (MS932),
// which is what iconv-lite implements under both names. Pairs are [byte code, Shift_JIS char, MS932 char].
const SJIS_DIFF: Array<[number, number, number]> = [
  [0x815c, 0x2014, 0x2015], // EM DASH vs HORIZONTAL BAR
  [0x8160, 0x301c, 0xff5e], // WAVE DASH vs FULLWIDTH TILDE
  [0x8161, 0x2016, 0x2225], // DOUBLE VERTICAL LINE vs PARALLEL TO
  [0x817c, 0x2212, 0xff0d], // MINUS SIGN vs FULLWIDTH HYPHEN-MINUS
  [0x8191, 0x00a2, 0xffe0], // CENT SIGN vs FULLWIDTH CENT SIGN
  [0x8192, 0x00a3, 0xffe1], // POUND SIGN vs FULLWIDTH POUND SIGN
  [0x81ca, 0x00ac, 0xffe2], // NOT SIGN vs FULLWIDTH NOT SIGN
];
const SJIS_ENCODE_OVERRIDE = new Map(SJIS_DIFF.map(([code, sjis]) => [sjis, code]));
const SJIS_DECODE_OVERRIDE = new Map(SJIS_DIFF.map(([code, sjis]) => [code, sjis]));
const MS932_ONLY_CHARS = new Set(SJIS_DIFF.map(([, , ms]) => ms));

/** Two-byte codes that exist in Windows-31J but not in JIS X 0208 (so not in Java's Shift_JIS): NEC row
 * 13 (①, ㈱, Ⅰ...), NEC-selected IBM extensions, user-defined area, IBM extensions. */
function isMs932Extension(lead: number): boolean {
  return lead === 0x87 || (lead >= 0xed && lead <= 0xee) || (lead >= 0xf0 && lead <= 0xfc);
}

function encodeSjisStrict(s: string): Uint8Array {
  const out: number[] = [];
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    const override = SJIS_ENCODE_OVERRIDE.get(cp);
    if (override !== undefined) {
      out.push(override >> 8, override & 0xff);
      continue;
    }
    if (MS932_ONLY_CHARS.has(cp)) {
      out.push(QUESTION);
      continue;
    }
    const b = iconv.encode(ch, 'cp932');
    if (b.length === 2 && isMs932Extension(b[0])) out.push(QUESTION);
    else out.push(...b);
  }
  return Uint8Array.from(out);
}

function decodeSjisStrict(buf: Uint8Array): string {
  let out = '';
  let start = 0;
  const flush = (end: number): void => {
    if (end > start) out += iconv.decode(Buffer.from(buf.subarray(start, end)), 'cp932');
  };
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i];
    const isLead = (b >= 0x81 && b <= 0x9f) || (b >= 0xe0 && b <= 0xfc);
    if (!isLead || i + 1 >= buf.length) continue;
    const code = (b << 8) | buf[i + 1];
    const override = SJIS_DECODE_OVERRIDE.get(code);
    if (override !== undefined || isMs932Extension(b)) {
      flush(i);
      out += override !== undefined ? String.fromCodePoint(override) : '\ufffd';
      start = i + 2;
    }
    i++;
  }
  flush(buf.length);
  return out;
}

function encodeSingleByte(s: string, max: number): Uint8Array {
  const out: number[] = [];
  // Iterate by code point: a surrogate pair becomes one '?', as in Java.
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    out.push(cp <= max ? cp : QUESTION);
  }
  return Uint8Array.from(out);
}

function encodeUtf8(s: string): Uint8Array {
  // Java replaces a lone surrogate with '?', where TextEncoder would write U+FFFD.
  return new Uint8Array(
    Buffer.from(
      s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '?'),
      'utf8',
    ),
  );
}

function encodeUtf16(s: string, order: 'be' | 'le', bom: boolean): Uint8Array {
  const out = new Uint8Array(s.length * 2 + (bom ? 2 : 0));
  let o = 0;
  if (bom) {
    out[o++] = 0xfe;
    out[o++] = 0xff;
  }
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (order === 'be') {
      out[o++] = c >> 8;
      out[o++] = c & 0xff;
    } else {
      out[o++] = c & 0xff;
      out[o++] = c >> 8;
    }
  }
  return out;
}

function decodeUtf16(buf: Uint8Array, order: 'be' | 'le' | 'bom'): string {
  let start = 0;
  let be = order !== 'le';
  if (order === 'bom' && buf.length >= 2) {
    // Java's UTF-16 decoder honours a BOM and defaults to big-endian without one.
    if (buf[0] === 0xfe && buf[1] === 0xff) start = 2;
    else if (buf[0] === 0xff && buf[1] === 0xfe) {
      start = 2;
      be = false;
    }
  }
  // ignoreBOM keeps any (further) BOM as U+FEFF, as Java's decoders do.
  return new TextDecoder(be ? 'utf-16be' : 'utf-16le', { ignoreBOM: true }).decode(buf.subarray(start));
}

/**
 * A string's bytes in a Java charset (names case-insensitive: UTF-8, US-ASCII, ISO-8859-1, Shift_JIS,
 * Windows-31J/CP932/MS932, EUC-JP, UTF-16[BE|LE]). Unmappable characters become `?` as in
 * String.getBytes. `Shift_JIS` is Java's strict JIS X 0208 table: ①, ㈱, Ⅰ, 髙 and the other Windows-31J
 * extensions are not in it; ask for `MS932`/`Windows-31J` for those, as Japanese GAS code must.
 */
export function encodeString(s: string, charset?: string): Uint8Array {
  const str = String(s);
  switch (charsetId(charset)) {
    case 'utf8':
      return encodeUtf8(str);
    case 'ascii':
      return encodeSingleByte(str, 0x7f);
    case 'latin1':
      return encodeSingleByte(str, 0xff);
    case 'sjis':
      return encodeSjisStrict(str);
    case 'cp932':
      return new Uint8Array(iconv.encode(str, 'cp932'));
    case 'eucjp':
      return new Uint8Array(iconv.encode(str, 'euc-jp'));
    case 'utf16':
      return encodeUtf16(str, 'be', true);
    case 'utf16be':
      return encodeUtf16(str, 'be', false);
    case 'utf16le':
      return encodeUtf16(str, 'le', false);
  }
}

/** Bytes (signed or unsigned values, or a Uint8Array) to a string; malformed input becomes U+FFFD. */
export function decodeBytes(bytes: Uint8Array | ArrayLike<number>, charset?: string): string {
  const buf = toUint8(bytes);
  switch (charsetId(charset)) {
    case 'utf8':
      // Java's UTF-8 decoder keeps a leading BOM as U+FEFF; TextDecoder would silently drop it.
      return new TextDecoder('utf-8', { ignoreBOM: true }).decode(buf);
    case 'ascii': {
      let out = '';
      for (const b of buf) out += b < 0x80 ? String.fromCharCode(b) : '\ufffd';
      return out;
    }
    case 'latin1':
      return Buffer.from(buf).toString('latin1');
    case 'sjis':
      return decodeSjisStrict(buf);
    case 'cp932':
      return iconv.decode(Buffer.from(buf), 'cp932');
    case 'eucjp':
      return iconv.decode(Buffer.from(buf), 'euc-jp');
    case 'utf16':
      return decodeUtf16(buf, 'bom');
    case 'utf16be':
      return decodeUtf16(buf, 'be');
    case 'utf16le':
      return decodeUtf16(buf, 'le');
  }
}

// Utilities.Charset enum values use underscores; they name the same charsets.
function valueBytes(value: string | ArrayLike<number> | Uint8Array, charset?: string): Uint8Array {
  if (typeof value === 'string') return encodeString(value, charset);
  return toUint8(value);
}

// ---------------------------------------------------------------------------------------------------------
// Digests and MACs

// RFC 1319's substitution table (digits of pi). Node's OpenSSL 3 no longer ships MD2, but Apps Script does.
const MD2_S = [
  41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199, 115, 140,
  152, 147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229,
  18, 190, 78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122, 169, 104, 121, 145, 21,
  178, 7, 63, 148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191,
  247, 151, 3, 255, 25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210,
  150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207,
  101, 230, 45, 168, 2, 27, 96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163,
  35, 221, 81, 175, 58, 195, 92, 249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205,
  244, 65, 129, 77, 82, 106, 220, 55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74, 120, 136,
  149, 139, 227, 99, 232, 109, 233, 203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14, 102, 88, 208, 228, 166,
  119, 114, 248, 235, 117, 75, 10, 49, 68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20,
];

function md2(data: Uint8Array): Uint8Array {
  const padLen = 16 - (data.length % 16);
  const msg = new Uint8Array(data.length + padLen + 16);
  msg.set(data);
  msg.fill(padLen, data.length, data.length + padLen);
  const body = data.length + padLen;
  // Checksum block.
  const c = new Uint8Array(16);
  let l = 0;
  for (let i = 0; i < body; i += 16) {
    for (let j = 0; j < 16; j++) {
      c[j] ^= MD2_S[msg[i + j] ^ l];
      l = c[j];
    }
  }
  msg.set(c, body);
  const x = new Uint8Array(48);
  for (let i = 0; i < msg.length; i += 16) {
    for (let j = 0; j < 16; j++) {
      x[16 + j] = msg[i + j];
      x[32 + j] = x[16 + j] ^ x[j];
    }
    let t = 0;
    for (let j = 0; j < 18; j++) {
      for (let k = 0; k < 48; k++) {
        x[k] ^= MD2_S[t];
        t = x[k];
      }
      t = (t + j) & 0xff;
    }
  }
  return x.slice(0, 16);
}

const NODE_DIGEST: Record<Exclude<DigestAlgorithm, 'MD2'>, string> = {
  MD5: 'md5',
  SHA_1: 'sha1',
  SHA_256: 'sha256',
  SHA_384: 'sha384',
  SHA_512: 'sha512',
};

const NODE_MAC: Record<MacAlgorithm, string> = {
  HMAC_MD5: 'md5',
  HMAC_SHA_1: 'sha1',
  HMAC_SHA_256: 'sha256',
  HMAC_SHA_384: 'sha384',
  HMAC_SHA_512: 'sha512',
};

/** Utilities.computeDigest: the digest as signed bytes. A string value is encoded in `charset` (UTF-8). */
export function computeDigest(
  algorithm: DigestAlgorithm,
  value: string | ArrayLike<number> | Uint8Array,
  charset?: string,
): number[] {
  const data = valueBytes(value, charset);
  if (algorithm === 'MD2') return toSignedBytes(md2(data));
  const name = NODE_DIGEST[algorithm];
  if (!name) throw new Error(`Invalid argument: algorithm (${String(algorithm)})`);
  return toSignedBytes(createHash(name).update(data).digest());
}

/**
 * Utilities.computeHmacSignature (and the computeHmacSha256Signature shorthand): value and key are both
 * strings in `charset` (UTF-8) or both byte arrays; mixing is accepted too.
 */
export function computeHmacSignature(
  algorithm: MacAlgorithm,
  value: string | ArrayLike<number> | Uint8Array,
  key: string | ArrayLike<number> | Uint8Array,
  charset?: string,
): number[] {
  const name = NODE_MAC[algorithm];
  if (!name) throw new Error(`Invalid argument: algorithm (${String(algorithm)})`);
  const mac = createHmac(name, valueBytes(key, charset)).update(valueBytes(value, charset)).digest();
  return toSignedBytes(mac);
}

// ---------------------------------------------------------------------------------------------------------
// Base64

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;
const B64_WEBSAFE_RE = /^[A-Za-z0-9\-_]*={0,2}$/;
const COULD_NOT_DECODE = 'Could not decode string.';

/** Standard base64 with padding, of raw bytes. */
export function base64EncodeBytes(bytes: Uint8Array | ArrayLike<number>): string {
  return Buffer.from(toUint8(bytes)).toString('base64');
}

/** Utilities.base64Encode: a string is first encoded in `charset` (UTF-8), bytes are taken as they are. */
export function base64Encode(data: string | ArrayLike<number> | Uint8Array, charset?: string): string {
  return base64EncodeBytes(valueBytes(data, charset));
}

/** Utilities.base64EncodeWebSafe: `-` and `_` instead of `+` and `/`; Apps Script keeps the `=` padding. */
export function base64EncodeWebSafe(data: string | ArrayLike<number> | Uint8Array, charset?: string): string {
  return base64Encode(data, charset).replace(/\+/g, '-').replace(/\//g, '_');
}

function strictDecode(s: string, re: RegExp, webSafe: boolean): number[] {
  // Line breaks are tolerated (MIME-style input); any other character outside the alphabet is an error,
  // which is what Apps Script reports as "Could not decode string."
  const text = String(s).replace(/[\r\n]/g, '');
  if (!re.test(text) || text.replace(/=+$/, '').length % 4 === 1) throw new Error(COULD_NOT_DECODE);
  const std = webSafe ? text.replace(/-/g, '+').replace(/_/g, '/') : text;
  return toSignedBytes(new Uint8Array(Buffer.from(std, 'base64')));
}

/** Utilities.base64Decode → signed bytes. `charset` is accepted for signature parity; it has no effect on
 * the bytes (the encoded text is ASCII). */
export function base64Decode(s: string, charset?: string): number[] {
  if (charset !== undefined) charsetId(charset);
  return strictDecode(s, B64_RE, false);
}

export function base64DecodeWebSafe(s: string, charset?: string): number[] {
  if (charset !== undefined) charsetId(charset);
  return strictDecode(s, B64_WEBSAFE_RE, true);
}

// ---------------------------------------------------------------------------------------------------------
// UUID

/**
 * Utilities.getUuid: a lowercase RFC 4122 version-4 UUID. `random` is a Math.random-style source
 * ([0, 1)) so a simulation can be replayed; without it the bytes come from node:crypto.
 */
export function newUuid(random?: () => number): string {
  const b = new Uint8Array(16);
  if (random) for (let i = 0; i < 16; i++) b[i] = Math.floor(random() * 256) & 0xff;
  else b.set(randomBytes(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Buffer.from(b).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Lowercase hex of (signed or unsigned) bytes, the usual way GAS code prints a digest. */
export function bytesToHex(bytes: ArrayLike<number> | Uint8Array): string {
  return Buffer.from(toUint8(bytes)).toString('hex');
}
