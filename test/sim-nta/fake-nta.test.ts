/**
 * The fake NTA Web-API follows what is published (src/core/nta.ts has the sources): /1/num with 1–10
 * numbers, JSON (type 21), history 0/1; /1/valid with a 判定基準日; an unknown application ID refused; the
 * answer's fields as the published schema names them. kicho's parser reads what the fake answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FakeNta, TEST_NTA_APP_ID } from '../../sim/nta/fake-nta';
import { ntaRequestUrls, parseNtaAnswer } from '../../src/core/nta';

const A = 'T4010001000011';
const B = 'T9010002000022';
const C = 'T1290001000044';

function nta() {
  return new FakeNta({
    registrations: [
      { number: A, name: '株式会社山田商事', registrationDate: '2023-10-01' },
      {
        number: B,
        name: '有限会社佐藤工業',
        registrationDate: '2024-04-01',
        disposalDate: '2026-06-01',
        history: [{ name: '有限会社佐藤工業', registrationDate: '2024-05-01' }],
      },
    ],
  });
}

const get = (f: FakeNta, path: string) =>
  f.handle({ method: 'GET', url: `https://web-api.invoice-kohyo.nta.go.jp${path}`, headers: {} });

test('/1/num answers the published fields for the numbers it knows, and none for the rest', () => {
  const f = nta();
  const r = get(f, `/1/num?id=${TEST_NTA_APP_ID}&number=${A},${B},${C}&type=21&history=0`);
  assert.equal(r.status, 200);
  const body = JSON.parse(r.body);
  assert.deepEqual(Object.keys(body), [
    'lastUpdateDate',
    'count',
    'divideNumber',
    'divideSize',
    'announcement',
  ]);
  assert.equal(body.count, '2');
  const b = body.announcement.find((x: { registratedNumber: string }) => x.registratedNumber === B);
  assert.equal(b.disposalDate, '2026-06-01');
  assert.equal(b.latest, '1');
  for (const field of [
    'process',
    'correct',
    'kind',
    'country',
    'updateDate',
    'expireDate',
    'address',
    'name',
  ])
    assert.ok(field in b, field);
  const parsed = parseNtaAnswer(r.body, [A, B, C]);
  assert.equal(parsed.get(A)?.registrationDate, '2023-10-01');
  assert.equal(parsed.get(B)?.disposalDate, '2026-06-01');
  assert.equal(parsed.get(C), null);
});

test('/1/num with history lists earlier records; the parser keeps the latest', () => {
  const f = nta();
  const r = get(f, `/1/num?id=${TEST_NTA_APP_ID}&number=${B}&type=21&history=1`);
  const body = JSON.parse(r.body);
  assert.equal(body.announcement.length, 2);
  assert.equal(parseNtaAnswer(r.body, [B]).get(B)?.registrationDate, '2024-04-01');
});

test('the spec’s limits: 10 numbers at most, T + 13 digits, JSON, a known application ID, GET', () => {
  const f = nta();
  const eleven = Array.from({ length: 11 }, () => A).join(',');
  assert.equal(get(f, `/1/num?id=${TEST_NTA_APP_ID}&number=${eleven}&type=21`).status, 400);
  assert.equal(get(f, `/1/num?id=${TEST_NTA_APP_ID}&number=4010001000011&type=21`).status, 400);
  assert.equal(get(f, `/1/num?id=${TEST_NTA_APP_ID}&number=${A}&type=12`).status, 400);
  assert.equal(get(f, `/1/num?id=nobody&number=${A}&type=21`).status, 403);
  assert.equal(get(f, `/1/num?number=${A}&type=21`).status, 403);
  const post = f.handle({
    method: 'POST',
    url: `https://web-api.invoice-kohyo.nta.go.jp/1/num?id=${TEST_NTA_APP_ID}&number=${A}&type=21`,
    headers: {},
  });
  assert.equal(post.status, 405);
  // Every request is recorded, without the ID.
  assert.ok(f.requests.every((q) => !JSON.stringify(q).includes(TEST_NTA_APP_ID)));
});

test('/1/valid answers a number registered by the 判定基準日, and nothing before it', () => {
  const f = nta();
  const before = JSON.parse(get(f, `/1/valid?id=${TEST_NTA_APP_ID}&number=${B}&day=2024-03-31&type=21`).body);
  assert.equal(before.count, '0');
  const after = JSON.parse(get(f, `/1/valid?id=${TEST_NTA_APP_ID}&number=${B}&day=2024-04-01&type=21`).body);
  assert.equal(after.count, '1');
  assert.equal(get(f, `/1/valid?id=${TEST_NTA_APP_ID}&number=${B}&type=21`).status, 400);
});

test('kicho’s requests are ones the fake takes: ten numbers to a request', () => {
  const f = nta();
  const numbers = Array.from({ length: 23 }, () => A);
  const urls = ntaRequestUrls(numbers, TEST_NTA_APP_ID);
  assert.equal(urls.length, 3);
  for (const url of urls) assert.equal(f.handle({ method: 'GET', url, headers: {} }).status, 200);
  assert.deepEqual(
    f.requests.map((q) => q.numbers.length),
    [10, 10, 3],
  );
});
