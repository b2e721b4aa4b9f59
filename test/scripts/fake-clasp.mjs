// A stand-in for clasp in the deploy tests: records each call (arguments, folder, the project file it
// would use) as one JSON line in $FAKE_CLASP_LOG and answers as clasp does, without a network or login.
//   FAKE_CLASP_FAIL=id1,id2   push to these script ids fails with clasp's "not found" message
//   FAKE_CLASP_CREATE=silent  create exits 0 and writes nothing (as clasp does when .clasp.json exists)
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const args = process.argv.slice(2);
const cwd = process.cwd();
const p = args.indexOf('-P');
const projectPath = path.join(cwd, p === -1 ? '.clasp.json' : args[p + 1]);
const project = existsSync(projectPath) ? JSON.parse(readFileSync(projectPath, 'utf8')) : null;
appendFileSync(process.env.FAKE_CLASP_LOG, `${JSON.stringify({ clasp: args, cwd, project })}\n`);

const failing = (process.env.FAKE_CLASP_FAIL ?? '').split(',').filter(Boolean);
if (args[0] === 'push') {
  if (!project) {
    console.error('Project settings not found.');
    process.exit(1);
  }
  if (failing.includes(project.scriptId)) {
    console.error('Requested entity was not found.');
    process.exit(1);
  }
  console.log('Pushed 10 files at 12:00:00.');
  process.exit(0);
}
if (args[0] === 'create') {
  if (existsSync(path.join(cwd, '.clasp.json')) || process.env.FAKE_CLASP_CREATE === 'silent') {
    console.log('Project file already exists.');
    process.exit(0);
  }
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
