import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const library = join(root, 'packages', 'typeorm-sharding');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the library (tsc, ~10 s) unless its dist is newer than every source file: for child
 * processes that load `typeorm-sharding` as a user does (`pnpm test` builds it first).
 */
export function ensureLibraryBuilt(): void {
  const index = join(library, 'dist', 'index.js');
  if (existsSync(index) && statSync(index).mtimeMs >= newestSource(join(library, 'src'))) return;
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(library, 'tsconfig.build.json')], { cwd: root, stdio: 'pipe' });
}
