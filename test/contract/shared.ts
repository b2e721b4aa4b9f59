/**
 * One contract for a test file and a hook that fails the file when any exchange broke it without a named
 * difference. Test helpers (test/helpers/kicho.ts, test/mf/helpers.ts) route the fake MF through it, so
 * every scenario and client test is also a contract test.
 */
import { after } from 'node:test';
import { Contract, ContractLog } from './contract';

export const contract = await Contract.load();

/** Every exchange of this test file. */
export const fileContract = new ContractLog(contract);

after(() => {
  if (fileContract.violations.length > 0) {
    throw new Error(
      `${fileContract.violations.length} exchange(s) broke MF's OpenAPI document:\n${fileContract.report()}`,
    );
  }
});
