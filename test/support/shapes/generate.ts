import type { ShapeCase } from './ast.js';
import type { Gen } from './context.js';
import { tagsOf } from './features.js';
import { GRAMMAR_BUILDERS, type GrammarBuilt } from './grammar.js';
import { buildSelect } from './selects.js';
import { buildUnion } from './union.js';

/** One generated query of class `g.cls`. */
export function generateCase(g: Gen): ShapeCase {
  const built: GrammarBuilt = g.cls.shape ? GRAMMAR_BUILDERS[g.cls.shape](g) : g.c.chance(g.cls.union) ? buildUnion(g) : buildSelect(g, 'top');
  const tags = tagsOf(built.query, g.dialect);
  return { shapeClass: g.cls.name, query: built.query, outputs: built.outputs, ordered: built.ordered, tags, ...(built.session ? { session: built.session } : {}) };
}
