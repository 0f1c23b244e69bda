import Module from 'node:module';
import path from 'node:path';

/**
 * Makes TypeORM's test files, read from a checkout outside this repository, run against the
 * TypeORM package this workspace installs and against our own test utilities:
 *
 * - `<checkout>/src/…` (the tests import TypeORM's sources by relative path) becomes the same
 *   module of the installed `typeorm` package, so that the ShardedDataSource, the entities and
 *   the tests share one TypeORM (one metadata storage, one `DataSource` class);
 * - `<checkout>/test/utils/test-utils` becomes `./test-utils.ts` (our implementation);
 * - a bare package name the checkout has no `node_modules` for (`chai`, `sinon`, `dayjs` …) is
 *   resolved from this workspace, then from the installed `typeorm`'s own dependencies.
 */
export function installResolveHook(checkout: string): void {
  const srcRoot = path.join(checkout, 'src') + path.sep;
  const testUtils = path.join(checkout, 'test', 'utils', 'test-utils');
  const ourUtils = path.join(__dirname, 'test-utils.ts');
  const typeormRoot = path.dirname(require.resolve('typeorm', { paths: [path.join(__dirname, '..', '..')] }));
  const fallbackPaths = [path.join(__dirname, '..', '..'), path.join(typeormRoot, '..')];

  const hooked = Module as unknown as {
    _resolveFilename: (request: string, parent: { filename?: string } | undefined, ...rest: unknown[]) => string;
  };
  const original = hooked._resolveFilename.bind(Module);
  hooked._resolveFilename = (request, parent, ...rest) => {
    const from = parent?.filename;
    if (from && (request.startsWith('./') || request.startsWith('../'))) {
      const absolute = path.resolve(path.dirname(from), request);
      if (absolute === testUtils) return ourUtils;
      if ((absolute + path.sep).startsWith(srcRoot)) {
        const relative = path.relative(srcRoot, absolute).split(path.sep).join('/');
        const target = relative === '' || relative === 'index' ? typeormRoot : path.join(typeormRoot, relative);
        return original(target, parent, ...rest);
      }
    }
    try {
      return original(request, parent, ...rest);
    } catch (error) {
      if (request.startsWith('.') || path.isAbsolute(request)) throw error;
      return require.resolve(request, { paths: fallbackPaths });
    }
  };
}
