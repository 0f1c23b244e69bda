/** Transaction control is decided by the plan (`plan/transaction-control.ts`); the session carries it out. */
export type { TransactionControl } from '../plan/transaction-control.js';
