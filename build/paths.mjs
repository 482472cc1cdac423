// Where the build reads and writes: the repository's root and the folders of dist/.
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The repository's root (build/ is one of its folders). */
export const root = fileURLToPath(new URL('../', import.meta.url))
export const dist = join(root, 'dist')
export const publicDir = join(dist, 'public')
export const assetsDir = join(publicDir, 'assets')
/** The client's source maps, for an error tracker; the edge serves them only with SOURCE_MAPS=public. */
export const clientSourceMapsDir = join(dist, 'client-sourcemaps')
