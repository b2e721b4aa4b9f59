/**
 * Last line of defence for DESIGN §9.5: text bound for a sheet, ログ or a dialog loses anything that
 * looks like a credential.
 */
const SECRET_PATTERNS: readonly RegExp[] = [
  /Bearer\s+[^\s"',;]+/gi,
  /mf_api_[A-Za-z0-9_-]+/g,
  /\b(access_token|refresh_token|client_secret|api_key)(["'=:\s]+)[^\s"',;&]+/gi,
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\bAIza[0-9A-Za-z_-]{30,}/g,
];

export function redactSecrets(text: string, known: readonly (string | null | undefined)[] = []): string {
  let out = text;
  for (const secret of known) if (secret && secret.length >= 4) out = out.split(secret).join('***');
  for (const re of SECRET_PATTERNS) {
    // Only the key=value pattern has groups; for the others the callback's 2nd argument is an offset.
    out = out.replace(re, (_match: string, name: unknown, sep: unknown) =>
      typeof name === 'string' && typeof sep === 'string' ? `${name}${sep}***` : '***',
    );
  }
  return out;
}
