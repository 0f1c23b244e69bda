import type { ShapeCase } from './ast.js';
import type { Gen } from './context.js';
import { tagsOf } from './features.js';
import { buildSelect } from './selects.js';
import { buildUnion } from './union.js';

/** One generated query of class `g.cls`. */
export function generateCase(g: Gen): ShapeCase {
  const built = g.c.chance(g.cls.union) ? buildUnion(g) : buildSelect(g, 'top');
  return { shapeClass: g.cls.name, query: built.query, outputs: built.outputs, ordered: built.ordered, tags: tagsOf(built.query, g.dialect) };
}
