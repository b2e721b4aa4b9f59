// A node:test reporter that prints nothing but the run's own summary counts, as JSON: the lines the test
// runner ends every run with ("tests 16", "pass 16", "fail 0", …), read from its diagnostic events at the
// top level. scripts/run-tests.mjs adds them up over every level into one line.
export default async function* countReporter(source) {
  const counts = {};
  for await (const event of source) {
    if (event.type !== 'test:diagnostic' || event.data.nesting !== 0) continue;
    const m = /^(tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$/.exec(String(event.data.message));
    if (m) counts[m[1]] = Number(m[2]);
  }
  yield `${JSON.stringify(counts)}\n`;
}
