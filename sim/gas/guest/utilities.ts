/** Utilities and Blob. Byte arrays are signed, as in Apps Script. */
import { call } from './channel';
import { enumOf } from './spreadsheet';

export class Blob {
  constructor(
    private bytes: number[],
    private contentType: string | null = null,
    private name: string | null = null,
  ) {}
  getBytes(): number[] {
    return this.bytes.slice();
  }
  setBytes(bytes: number[]): Blob {
    this.bytes = bytes.slice();
    return this;
  }
  getDataAsString(charset?: string): string {
    return call<string>('utilities', 'decode', this.bytes, charset ?? 'UTF-8');
  }
  setDataFromString(text: string, charset?: string): Blob {
    this.bytes = call<number[]>('utilities', 'encode', text, charset ?? 'UTF-8');
    return this;
  }
  getContentType(): string | null {
    return this.contentType;
  }
  setContentType(type: string): Blob {
    this.contentType = type;
    return this;
  }
  getName(): string | null {
    return this.name;
  }
  setName(name: string): Blob {
    this.name = name;
    return this;
  }
  copyBlob(): Blob {
    return new Blob(this.bytes.slice(), this.contentType, this.name);
  }
  getBlob(): Blob {
    return this;
  }
}

function toBytesArg(data: unknown): unknown {
  return data instanceof Blob ? data.getBytes() : data;
}

export function makeUtilities() {
  return {
    computeDigest: (alg: string, value: unknown, charset?: string) =>
      call<number[]>('utilities', 'computeDigest', alg, toBytesArg(value), charset ?? null),
    computeHmacSignature: (alg: string, value: unknown, key: unknown, charset?: string) =>
      call<number[]>('utilities', 'computeHmac', alg, toBytesArg(value), toBytesArg(key), charset ?? null),
    computeHmacSha256Signature: (value: unknown, key: unknown, charset?: string) =>
      call<number[]>(
        'utilities',
        'computeHmac',
        'HMAC_SHA_256',
        toBytesArg(value),
        toBytesArg(key),
        charset ?? null,
      ),
    base64Encode: (data: unknown, charset?: string) =>
      call<string>('utilities', 'base64Encode', toBytesArg(data), charset ?? null),
    base64EncodeWebSafe: (data: unknown, charset?: string) =>
      call<string>('utilities', 'base64EncodeWebSafe', toBytesArg(data), charset ?? null),
    base64Decode: (text: string, charset?: string) =>
      call<number[]>('utilities', 'base64Decode', text, charset ?? null),
    base64DecodeWebSafe: (text: string, charset?: string) =>
      call<number[]>('utilities', 'base64DecodeWebSafe', text, charset ?? null),
    formatDate: (date: Date, timeZone: string, pattern: string) =>
      call<string>('utilities', 'formatDate', date, timeZone, pattern),
    parseDate: (text: string, timeZone: string, pattern: string) =>
      call<Date>('utilities', 'parseDate', text, timeZone, pattern),
    formatString: (template: string, ...args: unknown[]) => formatString(template, args),
    sleep: (ms: number) => {
      call('utilities', 'sleep', ms);
    },
    getUuid: () => call<string>('utilities', 'uuid'),
    newBlob: (data?: unknown, contentType?: string, name?: string) => {
      const bytes =
        typeof data === 'string'
          ? call<number[]>('utilities', 'encode', data, 'UTF-8')
          : Array.isArray(data)
            ? (data as number[]).slice()
            : [];
      return new Blob(bytes, contentType ?? null, name ?? null);
    },
    DigestAlgorithm: enumOf(['MD2', 'MD5', 'SHA_1', 'SHA_256', 'SHA_384', 'SHA_512']),
    MacAlgorithm: enumOf(['HMAC_MD5', 'HMAC_SHA_1', 'HMAC_SHA_256', 'HMAC_SHA_384', 'HMAC_SHA_512']),
    Charset: { US_ASCII: 'US_ASCII', UTF_8: 'UTF_8' },
  };
}

/** sprintf-style %s %d %f %% as Utilities.formatString supports. */
function formatString(template: string, args: unknown[]): string {
  let i = 0;
  return template.replace(/%(%|s|d|f|\.\d+f)/g, (m) => {
    if (m === '%%') return '%';
    const v = args[i++];
    if (m === '%s') return String(v);
    if (m === '%d') return String(Math.trunc(Number(v)));
    const digits = /\.(\d+)f/.exec(m);
    return Number(v).toFixed(digits ? Number(digits[1]) : 6);
  });
}
