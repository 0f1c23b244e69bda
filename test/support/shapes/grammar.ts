import type { Session } from './ast.js';
import type { GrammarShape } from './classes.js';
import type { Gen } from './context.js';
import { buildCtes } from './ctes.js';
import { buildDistinctGroups } from './distinct-groups.js';
import { buildJson } from './json-paths.js';
import { buildPositions } from './positions.js';
import { buildRowValues } from './row-values.js';
import { buildSelect, type Built } from './selects.js';
import { buildSession } from './session.js';
import { buildSetOps } from './set-operations.js';
import { buildWindows } from './windows.js';

// The builders of the whole-grammar classes (DESIGN.md §8, issue 14 item 6), one per
// construct family; a new family does not compile until it has a builder here.

/** What a grammar builder returns: a query, and perhaps statements of its session. */
export type GrammarBuilt = Built & { readonly session?: Session };

export const GRAMMAR_BUILDERS = {
  ctes: buildCtes,
  windows: buildWindows,
  // Derived tables with every clause, nested: the general select generator under the class's weights.
  derived: (g) => buildSelect(g, 'top'),
  positions: buildPositions,
  setops: buildSetOps,
  rowvalues: buildRowValues,
  json: buildJson,
  session: buildSession,
  distinctGroups: buildDistinctGroups,
} as const satisfies Record<GrammarShape, (g: Gen) => GrammarBuilt>;
