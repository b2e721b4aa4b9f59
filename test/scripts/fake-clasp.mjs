// A stand-in for clasp in the deploy tests: records each call (arguments, folder, the project file it
// would use) as one JSON line in $FAKE_CLASP_LOG and answers as clasp does, without a network or login.
// Its world, in environment variables (clasp's messages as clasp 3.4.1 and Google print them):
//   FAKE_CLASP_LOGIN=none      no stored credentials: show-authorized-user says loggedIn false, every API
//                              call stops with "No credentials found." (clasp's assertAuthenticated)
//   FAKE_CLASP_API=off         the account's Apps Script API switch is off (script.google.com/home/usersettings)
//   FAKE_CLASP_API=cloud-off   the OAuth client's Cloud project has the API disabled (Google names a URL)
//   FAKE_CLASP_FAIL=id1,id2    no script with these ids: "Requested entity was not found."
//   FAKE_CLASP_DENY=id1        the script exists but this account may not edit it
//   FAKE_CLASP_PUSH_FAIL=id1   the script is there, but the push itself fails (a rejected file)
//   FAKE_CLASP_CREATE=silent   create exits 0 and writes nothing (as clasp does when .clasp.json exists)
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const cwd = process.cwd();
const p = args.indexOf('-P');
const projectPath = path.join(cwd, p === -1 ? '.clasp.json' : args[p + 1]);
const project = existsSync(projectPath) ? JSON.parse(readFileSync(projectPath, 'utf8')) : null;
appendFileSync(process.env.FAKE_CLASP_LOG, `${JSON.stringify({ clasp: args, cwd, project })}\n`);

const list = (name) => (process.env[name] ?? '').split(',').filter(Boolean);
const loggedIn = process.env.FAKE_CLASP_LOGIN !== 'none';
function fail(message) {
  console.error(message);
  process.exit(1);
}
/** What every Apps Script API call checks first: credentials, then the API switches, then the script. */
function apiCall(scriptId) {
  if (!loggedIn) fail('No credentials found.');
  if (process.env.FAKE_CLASP_API === 'off')
    fail(
      'User has not enabled the Apps Script API. Enable it by visiting https://script.google.com/home/usersettings then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.',
    );
  if (process.env.FAKE_CLASP_API === 'cloud-off')
    fail(
      'Apps Script API has not been used in project 1234567890 before or it is disabled. Enable it by visiting https://console.developers.google.com/apis/api/script.googleapis.com/overview?project=1234567890 then retry.',
    );
  if (scriptId === undefined) return;
  if (list('FAKE_CLASP_FAIL').includes(scriptId)) fail('Requested entity was not found.');
  if (list('FAKE_CLASP_DENY').includes(scriptId)) fail('The caller does not have permission');
}

if (args[0] === 'show-authorized-user') {
  console.log(
    JSON.stringify(loggedIn ? { loggedIn: true, email: 'owner@example.com' } : { loggedIn: false }),
  );
  process.exit(0);
}
if (args[0] === 'list-deployments') {
  if (!project) fail('Project settings not found.');
  apiCall(project.scriptId);
  console.log('No deployments.');
  process.exit(0);
}
if (args[0] === 'push') {
  if (!project) fail('Project settings not found.');
  apiCall(project.scriptId);
  if (list('FAKE_CLASP_PUSH_FAIL').includes(project.scriptId))
    fail('Syntax error: SyntaxError: Unexpected token line: 1 file: Code.gs');
  console.log('Pushed 10 files at 12:00:00.');
  process.exit(0);
}
if (args[0] === 'create') {
  if (existsSync(path.join(cwd, '.clasp.json')) || process.env.FAKE_CLASP_CREATE === 'silent') {
    console.log('Project file already exists.');
    process.exit(0);
  }
  apiCall();
  const rootDir = args[args.indexOf('--rootDir') + 1];
  mkdirSync(path.join(cwd, rootDir), { recursive: true });
  writeFileSync(path.join(cwd, rootDir, 'appsscript.json'), '{"timeZone":"America/New_York"}');
  const scriptId = '1FakeScriptIdForTheDeployTestsOnly_abcdefghijklmnop';
  writeFileSync(
    path.join(cwd, '.clasp.json'),
    JSON.stringify({ scriptId, rootDir, parentId: 'fakeSheetId' }),
  );
  console.log(
    `Created new document: https://drive.google.com/open?id=fakeSheetId\nCreated new script: https://script.google.com/d/${scriptId}/edit`,
  );
  process.exit(0);
}
console.error(`fake clasp: unknown command ${args[0]}`);
process.exit(2);
