// The cluster helper lives in its own workspace package so that the demo and the benchmark can
// start replicas too; the tests use its source.
export * from '../../packages/mariadb-cluster/src/index.js';
