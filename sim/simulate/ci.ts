/** The fixed seed set CI runs (npm test: test/sim/seeds.test.ts and the mutant tests). */
export const CI_SEEDS: readonly number[] = Array.from({ length: 200 }, (_, i) => i + 1);
