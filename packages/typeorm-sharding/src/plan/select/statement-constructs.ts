/**
 * Constructs a statement on sharded or broadcast tables may hold that no route makes right:
 * select options the planner does not know, and the ones whose meaning is the state of one
 * connection (`SQL_CALC_FOUND_ROWS` with `FOUND_ROWS()`, `ROW_COUNT()`): a sharded statement
 * runs on several connections (of several servers), and a later `FOUND_ROWS()` reaches yet
 * another one. Refused wherever they occur, whatever the values route to.
 */
import type { SelectNode } from '../nodes/sql-node.js';
import { allSelectsOf, clauseExpressionsOf, forEachNode } from '../nodes/sql-tree.js';

/**
 * Select options that change how one server computes a result, not the result: each shard may
 * apply them to its own statement.
 */
const SHARD_LOCAL_OPTIONS = new Set(['SQL_NO_CACHE', 'SQL_CACHE', 'SQL_BUFFER_RESULT', 'SQL_SMALL_RESULT', 'SQL_BIG_RESULT', 'HIGH_PRIORITY', 'STRAIGHT_JOIN']);

/** Functions that read the state the previous statement left on its connection. */
const SESSION_STATE_FUNCTIONS = new Set(['FOUND_ROWS', 'ROW_COUNT']);

/** The construct of `root` (any SELECT of it) that no route answers, named with its fix; undefined when there is none. */
export function statementConstructProblem(root: SelectNode): string | undefined {
  for (const select of allSelectsOf(root)) {
    for (const option of select.options) {
      if (option === 'SQL_CALC_FOUND_ROWS') {
        return 'SQL_CALC_FOUND_ROWS (FOUND_ROWS() would answer for one shard\'s statement on one connection); run a COUNT(*) with the same WHERE instead (TypeORM: findAndCount / getManyAndCount)';
      }
      if (!SHARD_LOCAL_OPTIONS.has(option)) return `the select option ${option}`;
    }
    let found: string | undefined;
    for (const expr of clauseExpressionsOf(select)) {
      forEachNode(expr, (n) => {
        if (n.kind === 'function' && SESSION_STATE_FUNCTIONS.has(n.name)) found ??= n.name;
      });
    }
    if (found) return `${found}() (it reads the state one connection kept of its previous statement; a sharded statement runs on several): count the rows with COUNT(*) instead`;
  }
  return undefined;
}
