/** The google.script.run shim and the dialog server, in headless Chromium over the real bundle. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DialogServer } from '../../sim/ui/dialog-server';
import { newPage, settled, sharedBrowser } from '../helpers/browser';
import { kichoWorld, OWNER } from '../helpers/kicho';

const browser = sharedBrowser();

const PAGE = `<!doctype html><html><head><title>t</title></head><body>
<form id="f"><input name="apiKey" value="k1"><input name="officeCode" value="c1">
<input type="checkbox" name="off"><input type="checkbox" name="on" checked value="yes"></form>
<pre id="out"></pre>
<script>
  var out = [];
  function log(x) { out.push(x); document.getElementById('out').textContent = JSON.stringify(out); }
  google.script.run.withSuccessHandler(function (v, u) { log(['ok', typeof v, u]); })
    .withUserObject('u1').connectionStatus();
  google.script.run.withFailureHandler(function (e, u) { log(['fail', e.name, e.message, u]); })
    .withUserObject('u2').noSuchFunction();
  google.script.run.withFailureHandler(function (e) { log(['private', e.message]); }).secret_();
  var base = google.script.run.withSuccessHandler(function () {});
  log(['runner', base !== google.script.run]);
  google.script.run.withSuccessHandler(function (r) { log(['form', r.ok]); }).connectWithApiKey(document.getElementById('f'));
</script></body></html>`;

test('handlers get (value, userObject); failures carry the server message; private functions are hidden; forms arrive as fields', async () => {
  const w = kichoWorld();
  const server = await new DialogServer(w.emu, OWNER).start();
  try {
    const page = await newPage(browser(), { width: 400, height: 300 });
    await page.goto(server.serve(PAGE));
    await settled(page);
    const out = JSON.parse(await page.locator('#out').innerText()) as unknown[][];
    assert.deepEqual(
      out.find((x) => x[0] === 'ok'),
      ['ok', 'object', 'u1'],
    );
    const fail = out.find((x) => x[0] === 'fail');
    assert.ok(fail);
    assert.equal(fail[3], 'u2');
    assert.match(String(fail[2]), /noSuchFunction/);
    assert.deepEqual(
      out.find((x) => x[0] === 'private'),
      ['private', 'Script function not found: secret_'],
    );
    assert.deepEqual(
      out.find((x) => x[0] === 'runner'),
      ['runner', true],
      'with* returns a new runner',
    );
    const form = server.calls.find((c) => c.fn === 'connectWithApiKey');
    assert.deepEqual(form?.args, [{ apiKey: 'k1', officeCode: 'c1', on: 'yes' }]);
    assert.ok(server.calls.every((c) => c.result.user === OWNER));
  } finally {
    await server.close();
  }
});
