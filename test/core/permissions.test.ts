/** The permissions kicho explains are exactly the ones appsscript.json asks for. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ALL_SCOPES, missingPermissionMessage, PERMISSIONS } from '../../src/core/permissions';
import { ROOT } from '../helpers/emulator';

test('every manifest scope has a Japanese label and purpose, and no other scope is listed', () => {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, 'appsscript.json'), 'utf8')) as {
    oauthScopes: string[];
  };
  assert.deepEqual([...ALL_SCOPES].sort(), [...manifest.oauthScopes].sort());
  for (const p of PERMISSIONS) assert.ok(p.label && p.purpose, p.scope);
});

test('the message names the permission, its purpose and who must grant it where', () => {
  const external = 'https://www.googleapis.com/auth/script.external_request';
  const menu = missingPermissionMessage({
    action: '登録の実行',
    missing: [external],
    fromTrigger: false,
    who: 'a@example.com',
    url: null,
  });
  assert.match(menu, /「外部サービスへの接続」（MFクラウド会計/);
  assert.match(menu, /登録の実行を止めました/);
  assert.doesNotMatch(menu, /初期設定/);
  const trigger = missingPermissionMessage({
    action: '定期実行',
    missing: [external],
    fromTrigger: true,
    who: 'a@example.com',
    url: 'https://x/authorize',
  });
  assert.match(trigger, /a@example\.com がこのスプレッドシートを開き/);
  assert.match(trigger, /https:\/\/x\/authorize/);
});
