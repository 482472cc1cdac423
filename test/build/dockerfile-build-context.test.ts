import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

// The image's build stage copies files one by one (Dockerfile): a module that
// build.mjs imports and the Dockerfile does not copy breaks `docker build`,
// which CI cannot run here (no engine). build/first-load-chunk.mjs went missing so.

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const read = (path: string): string => readFileSync(`${ROOT}${path}`, 'utf8')

/** The paths the Dockerfile's COPY lines take from the build context (not from another stage). */
function copiedPaths (dockerfile: string): Set<string> {
  const paths = new Set<string>()
  for (const line of dockerfile.split('\n')) {
    const words = line.trim().split(/\s+/)
    if (words[0] !== 'COPY' || words.some((word) => word.startsWith('--from='))) continue
    for (const source of words.slice(1, -1)) paths.add(source.replace(/^\.\//, '').replace(/\/$/, ''))
  }
  return paths
}

/** The files build.mjs imports by a relative path, and those they import in turn (repository-relative). */
function localImports (file: string, seen = new Set<string>()): Set<string> {
  for (const match of read(file).matchAll(/^import [^'"]*['"](\.\.?\/[^'"]+)['"]/gm)) {
    const path = posix.join(posix.dirname(file), match[1]!)
    if (seen.has(path)) continue
    seen.add(path)
    localImports(path, seen)
  }
  return seen
}

t.test('the Dockerfile copies every module build.mjs needs', async (t) => {
  const copied = copiedPaths(read('Dockerfile'))
  t.ok(copied.has('build.mjs'), 'build.mjs itself')
  const needed = [...localImports('build.mjs')]
  t.ok(needed.length >= 2, `build.mjs imports modules of its own: ${needed.join(', ')}`)
  const missing = needed.filter((path) => !copied.has(path) && !copied.has(path.split('/')[0]!))
  t.same(missing, [], 'each is copied into the build stage')
})
