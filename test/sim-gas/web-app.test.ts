/**
 * The emulator's web-app executions (sim/gas/web-app.ts) against the web-apps guide and the Content
 * service reference: the event object, TextOutput and its MIME type, the redirect to the output, what a
 * sender sees when doPost throws or is killed, 30 simultaneous executions, interleaving under the lock.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { seededPick } from '../../sim/gas/interleave';
import {
  answerOf,
  postConcurrently,
  postToWebApp,
  TOO_MANY_SIMULTANEOUS,
  webAppEvent,
} from '../../sim/gas/web-app';
import { fixtureEmulator } from '../helpers/emulator';

const CODE = `
function doPost(e) {
  if (e.parameter.mode === 'throw') throw new Error('boom');
  if (e.parameter.mode === 'nothing') return undefined;
  if (e.parameter.mode === 'text') return ContentService.createTextOutput('plain');
  if (e.parameter.mode === 'count') {
    var lock = LockService.getScriptLock();
    if (!lock.tryLock(60000)) return ContentService.createTextOutput('{"busy":true}').setMimeType(ContentService.MimeType.JSON);
    var p = PropertiesService.getScriptProperties();
    var n = Number(p.getProperty('n') || '0');
    Utilities.sleep(100);
    p.setProperty('n', String(n + 1));
    lock.releaseLock();
    return ContentService.createTextOutput(JSON.stringify({ n: n + 1 })).setMimeType(ContentService.MimeType.JSON);
  }
  if (e.parameter.mode === 'slow') { for (var i = 0; i < 400; i++) Utilities.sleep(1000); }
  var out = ContentService.createTextOutput();
  out.append(JSON.stringify({ e: e, user: Session.getEffectiveUser().getEmail(), url: ScriptApp.getService().getUrl() }));
  return out.setMimeType(ContentService.MimeType.JSON);
}
`;

describe('the event object and the answer', () => {
  test('doPost(e) gets the documented fields; a JSON TextOutput is served after the redirect', () => {
    const emu = fixtureEmulator(CODE, { owner: 'owner@example.com' });
    const res = postToWebApp(emu, {
      query: { key: 'k1', n: ['1', '2'] },
      body: '{"a":1}',
      contentType: 'application/json',
    });
    assert.equal(res.status, 200);
    assert.match(res.contentType, /^application\/json/);
    const { e, user, url } = answerOf(res) as { e: Record<string, unknown>; user: string; url: string };
    assert.deepEqual(e.parameter, { key: 'k1', n: '1' });
    assert.deepEqual(e.parameters, { key: ['k1'], n: ['1', '2'] });
    assert.equal(e.queryString, 'key=k1&n=1&n=2');
    assert.equal(e.contextPath, '');
    assert.equal(e.contentLength, 7);
    assert.deepEqual(e.postData, {
      length: 7,
      type: 'application/json',
      contents: '{"a":1}',
      name: 'postData',
    });
    // executeAs USER_DEPLOYING: the execution is the owner's.
    assert.equal(user, 'owner@example.com');
    assert.match(url, /^https:\/\/script\.google\.com\/macros\/s\/.+\/exec$/);
  });

  test('a form-encoded body is request parameters too', () => {
    const e = webAppEvent({
      query: {},
      body: 'a=1&b=x%20y',
      contentType: 'application/x-www-form-urlencoded',
    });
    assert.deepEqual(e.parameter, { a: '1', b: 'x y' });
    assert.equal(e.queryString, null);
  });

  test('without following redirects a sender gets a 302 to googleusercontent and no JSON', () => {
    const emu = fixtureEmulator(CODE);
    const res = postToWebApp(emu, { body: '{}' }, { followRedirects: false });
    assert.equal(res.status, 302);
    assert.match(String(res.location), /^https:\/\/script\.googleusercontent\.com\/macros\/echo\?/);
    assert.equal(answerOf(res), null);
  });

  test('the default MIME type is text; a throw, nothing returned, or a kill at 6 minutes give an HTML page', () => {
    const emu = fixtureEmulator(CODE);
    const text = postToWebApp(emu, { query: { mode: 'text' }, body: '' });
    assert.match(text.contentType, /^text\/plain/);
    assert.equal(text.body, 'plain');
    const thrown = postToWebApp(emu, { query: { mode: 'throw' }, body: '' });
    assert.match(thrown.contentType, /^text\/html/);
    assert.match(thrown.body, /boom/);
    assert.equal(thrown.execution, 'error');
    assert.match(postToWebApp(emu, { query: { mode: 'nothing' }, body: '' }).body, /did not return anything/);
    const slow = postToWebApp(emu, { query: { mode: 'slow' }, body: '' });
    assert.equal(slow.execution, 'killed');
    assert.match(slow.body, /Exceeded maximum execution time/);
    assert.equal(answerOf(slow), null);
  });

  test('not deployed: getService().getUrl() is null', () => {
    const emu = fixtureEmulator(CODE);
    emu.world.webAppDeployment = null;
    const { url } = answerOf(postToWebApp(emu, { body: '' })) as { url: string | null };
    assert.equal(url, null);
  });
});

describe('simultaneous executions', () => {
  test('30 run at once, interleaved under the script lock; a 31st in the same wave is refused', () => {
    const emu = fixtureEmulator(CODE);
    const wave = postConcurrently(
      emu.world,
      Array.from({ length: 31 }, () => ({ query: { mode: 'count' }, body: '' })),
      seededPick(3),
    );
    const ns = wave.responses
      .slice(0, 30)
      .map((r) => (answerOf(r) as { n: number }).n)
      .sort((a, b) => a - b);
    assert.deepEqual(
      ns,
      Array.from({ length: 30 }, (_, i) => i + 1),
    );
    assert.equal(wave.responses[30].execution, 'refused');
    assert.ok(wave.responses[30].body.includes(TOO_MANY_SIMULTANEOUS));
    assert.equal(emu.world.properties.script.get('n'), '30');
  });

  test('a request killed mid-way gets no JSON, and its unflushed writes are lost', () => {
    const emu = fixtureEmulator(CODE);
    const wave = postConcurrently(
      emu.world,
      [{ query: { mode: 'count' }, body: '', killAtCall: 4 }],
      seededPick(1),
    );
    assert.equal(wave.responses[0].execution, 'killed');
    assert.equal(answerOf(wave.responses[0]), null);
  });
});
