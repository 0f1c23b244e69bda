/**
 * What the mocha runner and the test utilities share inside one run: the backend and mode of
 * the run, the file being run (for the policy log), and whether the running test (not a hook)
 * asked one of our data sources for a QueryRunner or a QueryBuilder — a test that never did ran against no
 * database of this backend (its suite enabled other drivers only) and is counted as skipped.
 */
export type Backend = 'sqlite' | 'mariadb';
export type Mode = 'plain' | 'sharded';

export interface HarnessState {
  readonly backend: Backend;
  readonly mode: Mode;
  /** The test file being run, relative to the checkout's `test/functional`. */
  currentFile: string;
  /** Inside a test body (not a hook). */
  inTest: boolean;
  /** QueryRunners and QueryBuilders our data sources handed out inside the test body. */
  runnersInTest: number;
  /** Where the policy's decisions are appended (JSON lines), if set. */
  readonly decisionsFile: string | undefined;
}

function backendOf(value: string | undefined): Backend {
  if (value === 'sqlite' || value === 'mariadb') return value;
  throw new Error(`TF_BACKEND must be 'sqlite' or 'mariadb', got ${JSON.stringify(value)}`);
}

function modeOf(value: string | undefined): Mode {
  if (value === 'plain' || value === 'sharded') return value;
  throw new Error(`TF_MODE must be 'plain' or 'sharded', got ${JSON.stringify(value)}`);
}

let state: HarnessState | undefined;

/** The run's state, read from TF_BACKEND / TF_MODE / TF_DECISIONS the first time. */
export function harnessState(): HarnessState {
  state ??= {
    backend: backendOf(process.env.TF_BACKEND),
    mode: modeOf(process.env.TF_MODE),
    currentFile: '',
    inTest: false,
    runnersInTest: 0,
    decisionsFile: process.env.TF_DECISIONS || undefined,
  };
  return state;
}
