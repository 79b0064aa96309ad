import Module from 'node:module';
import { join } from 'node:path';

/**
 * Imported first by the `walletd` command (main.ts): Node's module compile cache, V8's code cache
 * of every module kept on disk, so each later start skips compiling what it loads. `walletd --help`
 * (which loads what `serve` loads) went from 565 to 479 ms of CPU and 471 to 385 ms of wall time
 * (median of 10, 2-core VM, Node 24); every CLI command and every restart pays that start.
 *
 * Kept beside the code (`server/.compile-cache`), not in the shared temp directory Node defaults to:
 * code cache read from a directory another local user can write would be code of their choosing,
 * and this folder can be written only by whoever can change the code itself. Where the process may
 * not write there (an image run as another user than the one that built it), Node keeps nothing
 * and says nothing. `NODE_COMPILE_CACHE=dir` puts it elsewhere, `NODE_DISABLE_COMPILE_CACHE=1`
 * turns it off. The directory is passed on in the environment, so the detect pool's worker threads
 * and child processes use it too.
 */
type WithCache = typeof Module & { enableCompileCache?: (dir?: string) => { directory?: string } };

const enable = (Module as WithCache).enableCompileCache;
if (enable && !process.env.NODE_DISABLE_COMPILE_CACHE) {
  const { directory } = enable(process.env.NODE_COMPILE_CACHE || join(__dirname, '..', '..', '.compile-cache'));
  if (directory) process.env.NODE_COMPILE_CACHE = directory;
}
