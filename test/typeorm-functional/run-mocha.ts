import path from 'node:path';
import { appendFileSync } from 'node:fs';
import Mocha from 'mocha';
import { installResolveHook } from './resolve-hook';
import { harnessState } from './harness-state';

/**
 * One mocha run of TypeORM test files in one mode on one backend (see run.mjs, which starts
 * it): `node -r ./register-ts.cjs run-mocha.ts <file>…` with TYPEORM_SRC, TF_BACKEND, TF_MODE
 * and TF_OUT set. Each test's outcome is appended to TF_OUT as a JSON line; a failing hook
 * gives its error to every test under it that had not finished.
 */

/** The codes of the library's typed refusals: the statement or configuration is declined, by design. */
const REFUSAL_CODES = new Set(['SHARDING_UNSUPPORTED', 'SHARDING_CONFIG', 'SHARDING_INVALID_KEY', 'SHARDING_MISSING_KEY', 'SHARDING_CROSS_SERVER_TRANSACTION']);
const REFUSAL_NAMES = /\b(UnsupportedShardingError|UnreadableStatementError|ShardingConfigError|InvalidShardKeyError|MissingShardKeyError|CrossServerTransactionError)\b/;

export interface TestOutcome {
  readonly file: string;
  readonly title: string;
  readonly state: 'passed' | 'failed' | 'pending';
  /** A test body asked one of the harness's data sources for a QueryRunner. */
  readonly exercised: boolean;
  readonly error?: { readonly name: string; readonly code?: string; readonly message: string; readonly kind: 'refusal' | 'assertion' | 'error'; readonly stack?: string };
}

function describeError(error: unknown): TestOutcome['error'] {
  const e = error as { name?: string; constructor?: { name?: string }; message?: string; shardingCode?: string; code?: unknown; stack?: string; actual?: unknown };
  const name = e?.constructor?.name && e.constructor.name !== 'Object' ? e.constructor.name : (e?.name ?? typeof error);
  const message = String(e?.message ?? error).split('\n').slice(0, 6).join(' ').slice(0, 600);
  const code = e?.shardingCode ?? (typeof e?.code === 'string' ? e.code : undefined);
  const actual = e?.actual as { shardingCode?: string; constructor?: { name?: string } } | undefined;
  const isAssertion = name === 'AssertionError';
  const refusal = (code !== undefined && REFUSAL_CODES.has(code)) || (isAssertion && ((actual?.shardingCode !== undefined && REFUSAL_CODES.has(actual.shardingCode)) || REFUSAL_NAMES.test(message)));
  const stack = e?.stack?.split('\n').slice(1, 9).map((l) => l.trim()).join(' | ');
  return { name, code, message, kind: refusal ? 'refusal' : isAssertion ? 'assertion' : 'error', stack };
}

function main(): void {
  const checkout = process.env.TYPEORM_SRC;
  const out = process.env.TF_OUT;
  if (!checkout || !out) throw new Error('run-mocha: TYPEORM_SRC and TF_OUT must be set');
  installResolveHook(checkout);
  const state = harnessState();
  const functional = path.join(checkout, 'test', 'functional');
  const mocha = new Mocha({ timeout: Number(process.env.TF_TIMEOUT_MS ?? 30_000), reporter: 'dot' });
  for (const file of process.argv.slice(2)) mocha.addFile(path.resolve(file));

  const written = new Set<Mocha.Test>();
  const write = (test: Mocha.Test, outcome: Omit<TestOutcome, 'file' | 'title'>) => {
    if (written.has(test)) return;
    written.add(test);
    const file = path.relative(functional, test.file ?? test.parent?.file ?? '');
    appendFileSync(out, JSON.stringify({ file, title: test.fullTitle(), ...outcome } satisfies TestOutcome) + '\n');
  };
  const allTests = (suite: Mocha.Suite): Mocha.Test[] => [...suite.tests, ...suite.suites.flatMap(allTests)];

  const runner = mocha.run(() => undefined);
  runner.on('suite', (suite: Mocha.Suite) => {
    if (suite.file) state.currentFile = path.relative(functional, suite.file);
  });
  runner.on('test', () => {
    state.inTest = true;
    state.runnersInTest = 0;
  });
  runner.on('hook', () => {
    state.inTest = false;
  });
  runner.on('hook end', (hook: Mocha.Hook) => {
    state.inTest = hook.type === 'hook' && /before each/.test(hook.title) && hook.ctx?.currentTest !== undefined;
  });
  runner.on('pass', (test: Mocha.Test) => write(test, { state: 'passed', exercised: state.runnersInTest > 0 }));
  runner.on('pending', (test: Mocha.Test) => write(test, { state: 'pending', exercised: false }));
  runner.on('fail', (runnable: Mocha.Runnable, error: unknown) => {
    const described = describeError(error);
    if (runnable instanceof Mocha.Test) {
      write(runnable, { state: 'failed', exercised: true, error: described });
      return;
    }
    // A hook failed: mocha runs no further test of its suite, so each test under it that has
    // not reported yet gets the hook's error (the ones that reported keep their outcome).
    for (const t of allTests(runnable.parent!)) write(t, { state: 'failed', exercised: true, error: { ...described!, message: `${runnable.title}: ${described!.message}` } });
  });
}

main();
