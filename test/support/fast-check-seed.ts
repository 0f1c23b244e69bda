import fc from 'fast-check';

// fast-check draws a new seed per property unless told otherwise. CI runs one fixed seed, so
// that its verdict is about the change and not about the draw; `FC_SEED=n` reproduces a run
// that failed elsewhere (fast-check prints the seed of a failing property).
const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : process.env.CI === 'true' ? 20261201 : undefined;
if (seed !== undefined) fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
