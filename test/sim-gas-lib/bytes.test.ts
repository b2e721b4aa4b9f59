import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  base64Decode,
  base64DecodeWebSafe,
  base64Encode,
  base64EncodeBytes,
  base64EncodeWebSafe,
  bytesToHex,
  computeDigest,
  computeHmacSignature,
  decodeBytes,
  encodeString,
  fromSignedBytes,
  newUuid,
  toSignedBytes,
} from '../../sim/gas/lib/bytes';

const hex = (h: string): number[] => toSignedBytes(Buffer.from(h.replace(/\s/g, ''), 'hex'));
const enc = (s: string, cs: string): string => Buffer.from(encodeString(s, cs)).toString('hex');

describe('signed bytes', () => {
  it('maps 0..255 to Java bytes and back', () => {
    assert.deepEqual(toSignedBytes(Uint8Array.from([0, 1, 127, 128, 200, 255])), [0, 1, 127, -128, -56, -1]);
    assert.deepEqual([...fromSignedBytes([0, 1, 127, -128, -56, -1])], [0, 1, 127, 128, 200, 255]);
    // Unsigned input is accepted too, as a Java (byte) cast would.
    assert.deepEqual([...fromSignedBytes([255, 128])], [255, 128]);
    assert.throws(() => fromSignedBytes([1.5]), /Invalid byte value/);
  });

  it('round-trips any byte array (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (buf) => {
        const signed = toSignedBytes(buf);
        assert.ok(signed.every((b) => b >= -128 && b <= 127));
        assert.deepEqual(fromSignedBytes(signed), buf);
      }),
    );
  });
});

describe('computeDigest', () => {
  it('returns signed bytes for the standard test vectors', () => {
    const vectors: Array<[Parameters<typeof computeDigest>[0], string, string]> = [
      ['MD2', '', '8350e5a3e24c153df2275c9f80692773'],
      ['MD2', 'abc', 'da853b0d3f88d99b30283a69e6ded6bb'],
      ['MD2', 'abcdefghijklmnopqrstuvwxyz', '4e8ddff3650292ab5a4108c3aa47940b'],
      ['MD5', 'abc', '900150983cd24fb0d6963f7d28e17f72'],
      ['SHA_1', 'abc', 'a9993e364706816aba3e25717850c26c9cd0d89d'],
      ['SHA_256', 'abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
      [
        'SHA_384',
        'abc',
        'cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7',
      ],
      [
        'SHA_512',
        'abc',
        'ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f',
      ],
    ];
    for (const [alg, input, want] of vectors) {
      const got = computeDigest(alg, input);
      assert.deepEqual(got, hex(want), `${alg}(${input})`);
      assert.equal(bytesToHex(got), want);
    }
    assert.equal(computeDigest('SHA_256', 'abc')[0], -70);
  });

  it('encodes string input in the charset (UTF-8 by default), takes byte input as is', () => {
    const utf8 = computeDigest('MD5', '日本語');
    assert.deepEqual(utf8, computeDigest('MD5', toSignedBytes(Buffer.from('日本語', 'utf8'))));
    assert.deepEqual(computeDigest('MD5', '日本語', 'UTF_8'), utf8);
    // US-ASCII turns each non-ASCII character into '?'.
    assert.deepEqual(computeDigest('MD5', '日本語', 'US_ASCII'), computeDigest('MD5', '???'));
    assert.throws(() => computeDigest('SHA_3' as never, 'x'), /Invalid argument: algorithm/);
  });
});

describe('computeHmacSignature', () => {
  it('matches the RFC/Wikipedia examples', () => {
    const msg = 'The quick brown fox jumps over the lazy dog';
    assert.equal(
      bytesToHex(computeHmacSignature('HMAC_MD5', msg, 'key')),
      '80070713463e7749b90c2dc24911e275',
    );
    assert.equal(
      bytesToHex(computeHmacSignature('HMAC_SHA_1', msg, 'key')),
      'de7c9b85b8b78aa6bc8a7a36f70a90701c9db4d9',
    );
    assert.equal(
      bytesToHex(computeHmacSignature('HMAC_SHA_256', msg, 'key')),
      'f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8',
    );
    assert.equal(computeHmacSignature('HMAC_SHA_384', msg, 'key').length, 48);
    assert.equal(computeHmacSignature('HMAC_SHA_512', msg, 'key').length, 64);
  });

  it('accepts byte arrays for value and key', () => {
    const bytes = (s: string): number[] => toSignedBytes(Buffer.from(s, 'utf8'));
    assert.deepEqual(
      computeHmacSignature('HMAC_SHA_256', bytes('payload'), bytes('秘密')),
      computeHmacSignature('HMAC_SHA_256', 'payload', '秘密'),
    );
  });
});

describe('base64', () => {
  it('encodes strings in a charset and bytes as they are', () => {
    assert.equal(base64Encode('日本語'), '5pel5pys6Kqe');
    assert.equal(base64Encode('日本語', 'Shift_JIS'), 'k/qWe4zq');
    assert.equal(base64EncodeWebSafe('日本語', 'Shift_JIS'), 'k_qWe4zq');
    assert.equal(base64Encode([-1, -2, -3]), '//79');
    assert.equal(base64EncodeWebSafe([-1, -2, -3]), '__79');
    assert.equal(base64EncodeWebSafe('a'), 'YQ==');
    assert.equal(base64EncodeBytes(Uint8Array.from([104, 105])), 'aGk=');
  });

  it('decodes to signed bytes and rejects text outside the alphabet', () => {
    assert.deepEqual(base64Decode('//79'), [-1, -2, -3]);
    assert.deepEqual(base64DecodeWebSafe('__79'), [-1, -2, -3]);
    assert.deepEqual(base64Decode('YQ'), [97]);
    assert.deepEqual(base64Decode('YQ==\r\n'), [97]);
    assert.deepEqual(base64Decode(''), []);
    for (const bad of ['__79', 'YQ=a', 'Y', 'Y===', '!!!!', 'YQ== ']) {
      assert.throws(() => base64Decode(bad), { message: 'Could not decode string.' }, bad);
    }
    assert.throws(() => base64DecodeWebSafe('//79'), { message: 'Could not decode string.' });
  });

  it('round-trips any bytes, plain and web-safe (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (buf) => {
        const signed = toSignedBytes(buf);
        assert.deepEqual(base64Decode(base64Encode(signed)), signed);
        assert.deepEqual(base64DecodeWebSafe(base64EncodeWebSafe(signed)), signed);
        assert.match(base64EncodeWebSafe(signed), /^[A-Za-z0-9\-_]*={0,2}$/);
      }),
    );
  });
});

describe('charsets', () => {
  it('accepts Java names case-insensitively and rejects unknown ones', () => {
    for (const cs of [
      'UTF-8',
      'utf-8',
      'UTF_8',
      'us-ascii',
      'US_ASCII',
      'ISO-8859-1',
      'Shift_JIS',
      'SJIS',
      'windows-31j',
      'CP932',
      'MS932',
      'EUC-JP',
      'UTF-16',
    ]) {
      assert.equal(decodeBytes(encodeString('A', cs), cs), 'A', cs);
    }
    assert.throws(() => encodeString('x', 'KOI8-R'), { message: 'Unsupported charset: KOI8-R' });
    assert.throws(() => decodeBytes([65], 'EBCDIC'), { message: 'Unsupported charset: EBCDIC' });
    assert.throws(() => base64Decode('YQ==', 'nope'), { message: 'Unsupported charset: nope' });
  });

  it('replaces unmappable characters with ? like String.getBytes', () => {
    assert.equal(enc('aé日😀', 'US-ASCII'), '613f3f3f');
    assert.equal(enc('aé日😀', 'ISO-8859-1'), '61e93f3f');
    assert.equal(enc('a\ud800b', 'UTF-8'), '613f62');
    assert.equal(decodeBytes([0x61, -0x17], 'US-ASCII'), 'a\ufffd');
    assert.equal(decodeBytes([0x61, -0x17], 'ISO-8859-1'), 'aé');
    assert.equal(decodeBytes([0x61, -1], 'UTF-8'), 'a\ufffd');
  });

  it('writes UTF-16 big-endian with a BOM and honours a BOM when reading', () => {
    assert.equal(enc('A日', 'UTF-16'), 'feff004165e5');
    assert.equal(enc('A', 'UTF-16LE'), '4100');
    assert.equal(decodeBytes(hex('fffe4100'), 'UTF-16'), 'A');
    assert.equal(decodeBytes(hex('0041'), 'UTF-16'), 'A');
    assert.equal(decodeBytes(hex('feff0041'), 'UTF-16'), 'A');
    assert.equal(decodeBytes(hex('feff0041'), 'UTF-16BE'), '\ufeffA');
    // UTF-8 keeps a BOM as a character, like Java (a CSV read this way starts with U+FEFF).
    assert.equal(decodeBytes(hex('efbbbf41'), 'UTF-8'), '\ufeffA');
  });

  it('encodes Japanese in Shift_JIS, Windows-31J and EUC-JP', () => {
    assert.equal(enc('日本ｱ', 'Shift_JIS'), '93fa967bb1');
    assert.equal(enc('日本ｱ', 'MS932'), '93fa967bb1');
    assert.equal(enc('日本', 'EUC-JP'), 'c6fccbdc');
    assert.equal(decodeBytes(hex('c6fccbdc'), 'EUC-JP'), '日本');
  });

  it("keeps Java's Shift_JIS strict: Windows-31J extensions are not in it", () => {
    // NEC special characters, NEC-selected and IBM extensions.
    for (const ch of ['①', '㈱', 'Ⅰ', 'ⅰ', '髙', '﨑', '№']) {
      assert.equal(enc(ch, 'Shift_JIS'), '3f', ch);
      assert.notEqual(enc(ch, 'MS932'), '3f', ch);
      assert.equal(decodeBytes(encodeString(ch, 'Windows-31J'), 'Windows-31J'), ch);
      assert.equal(decodeBytes(encodeString(ch, 'Windows-31J'), 'Shift_JIS'), '\ufffd', ch);
    }
    assert.equal(enc('①', 'CP932'), '8740');
  });

  it('maps the seven JIS/Microsoft differences per charset', () => {
    // [bytes, Shift_JIS char, Windows-31J char]
    const diff: Array<[string, string, string]> = [
      ['815c', '\u2014', '\u2015'],
      ['8160', '\u301c', '\uff5e'],
      ['8161', '\u2016', '\u2225'],
      ['817c', '\u2212', '\uff0d'],
      ['8191', '\u00a2', '\uffe0'],
      ['8192', '\u00a3', '\uffe1'],
      ['81ca', '\u00ac', '\uffe2'],
    ];
    for (const [bytes, sjis, ms] of diff) {
      assert.equal(decodeBytes(hex(bytes), 'Shift_JIS'), sjis, bytes);
      assert.equal(decodeBytes(hex(bytes), 'MS932'), ms, bytes);
      assert.equal(enc(sjis, 'Shift_JIS'), bytes);
      assert.equal(enc(ms, 'MS932'), bytes);
      // The other charset's character is unmappable (the "wave dash problem").
      assert.equal(enc(ms, 'Shift_JIS'), '3f');
      assert.equal(enc(sjis, 'MS932'), '3f');
    }
  });

  it('round-trips kana, kanji and ASCII through every Japanese charset (property)', () => {
    const chars = [...'あいうえおアイウエオｱｲｳ漢字日本語東京都千代田区丸の内ー・「」、。ABCxyz0189 -_/'];
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...chars), maxLength: 40 }), (s) => {
        for (const cs of ['Shift_JIS', 'Windows-31J', 'EUC-JP', 'UTF-8', 'UTF-16']) {
          assert.equal(decodeBytes(encodeString(s, cs), cs), s, cs);
        }
        assert.equal(decodeBytes(toSignedBytes(encodeString(s, 'MS932')), 'MS932'), s);
      }),
    );
  });

  it('round-trips any well-formed string through UTF-8 and UTF-16 (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (s) => {
        assert.equal(decodeBytes(encodeString(s, 'UTF-8'), 'UTF-8'), s);
        assert.equal(decodeBytes(encodeString(s, 'UTF-16'), 'UTF-16'), s);
      }),
    );
  });
});

describe('newUuid', () => {
  it('is a lowercase version-4 UUID', () => {
    for (let i = 0; i < 50; i++)
      assert.match(newUuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('is deterministic with an injected random source', () => {
    const seq = (): (() => number) => {
      let i = 0;
      return () => ((i++ * 37) % 256) / 256;
    };
    const a = newUuid(seq());
    assert.equal(a, newUuid(seq()));
    assert.equal(a, '00254a6f-94b9-4e03-a84d-7297bce1062b');
    assert.equal(
      newUuid(() => 0),
      '00000000-0000-4000-8000-000000000000',
    );
    assert.equal(
      newUuid(() => 0.9999999),
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
    );
  });
});
