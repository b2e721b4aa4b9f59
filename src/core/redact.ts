/**
 * Last line of defence for DESIGN §9.5: text bound for a sheet, ログ or a dialog loses anything that
 * looks like a credential — and any piece of a known secret, also in the shapes an error body may
 * echo it in (a prefix, a base64 or percent-encoded copy).
 */
import { utf8Bytes } from './sha256';

const SECRET_PATTERNS: readonly RegExp[] = [
  /Bearer\s+[^\s"',;]+/gi,
  /mf_api_[A-Za-z0-9_-]+/g,
  /\b(access_token|refresh_token|client_secret|api_key)(["'=:\s]+)[^\s"',;&]+/gi,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
];

/**
 * The shortest piece of a secret that is redacted. A shorter piece of a random token tells nothing
 * useful; a shorter window would start to hide ordinary words.
 */
export const SECRET_PIECE = 8;

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(bytes: readonly number[]): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63];
    out += i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? B64[n & 63] : '=';
  }
  return out;
}

/**
 * The secret as it may appear in a body: as is, percent-encoded, and base64 (standard and URL-safe)
 * at each of the three alignments it can have inside a longer encoded blob — only the characters that
 * depend on the secret alone are kept (the edges depend on the bytes around it).
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>([secret]);
  try {
    forms.add(encodeURIComponent(secret));
  } catch (_e) {
    // A lone surrogate cannot be percent-encoded: the raw form is enough.
  }
  const bytes = utf8Bytes(secret);
  [0, 2, 3].forEach((drop, shift) => {
    const encoded = base64([...new Array(shift).fill(0), ...bytes]);
    const stable = encoded.slice(drop, Math.max(drop, encoded.length - 4));
    forms.add(stable);
    forms.add(stable.replace(/\+/g, '-').replace(/\//g, '_'));
  });
  return [...forms].filter((f) => f.length >= SECRET_PIECE);
}

/** Every run of `text` made of pieces (≥ SECRET_PIECE characters) of one of `forms`, replaced by ***. */
function redactPieces(text: string, forms: readonly string[]): string {
  if (forms.length === 0 || text.length < SECRET_PIECE) return text;
  const pieces = new Set<string>();
  for (const f of forms)
    for (let i = 0; i + SECRET_PIECE <= f.length; i++) pieces.add(f.slice(i, i + SECRET_PIECE));
  const hidden = new Array<boolean>(text.length).fill(false);
  let any = false;
  for (let i = 0; i + SECRET_PIECE <= text.length; i++) {
    if (!pieces.has(text.slice(i, i + SECRET_PIECE))) continue;
    any = true;
    for (let j = i; j < i + SECRET_PIECE; j++) hidden[j] = true;
  }
  if (!any) return text;
  let out = '';
  for (let i = 0; i < text.length; i++) {
    if (!hidden[i]) out += text[i];
    else if (i === 0 || !hidden[i - 1]) out += '***';
  }
  return out;
}

export function redactSecrets(text: string, known: readonly (string | null | undefined)[] = []): string {
  let out = text;
  const secrets = known.filter((s): s is string => typeof s === 'string' && s.length >= 4);
  for (const secret of secrets) out = out.split(secret).join('***');
  out = redactPieces(out, secrets.filter((s) => s.length >= SECRET_PIECE).flatMap(secretForms));
  for (const re of SECRET_PATTERNS) {
    // Only the key=value pattern has groups; for the others the callback's 2nd argument is an offset.
    out = out.replace(re, (_match: string, name: unknown, sep: unknown) =>
      typeof name === 'string' && typeof sep === 'string' ? `${name}${sep}***` : '***',
    );
  }
  return out;
}
