import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { PageRenderer } from '../../../common/page/page-render.js'
import type { RuntimeConfig } from '../../../common/page/runtime-config.js'

/** What dist/server/page-renderer.cjs exports (client/server-render.tsx). */
interface RendererModule {
  readonly createPageRenderer?: (config: RuntimeConfig) => PageRenderer
}

/**
 * Loads the page renderer the build makes from the client room
 * (dist/server/page-renderer.cjs) and builds it for the page's runtime
 * configuration. The edge never imports the client's components: it loads
 * the built file by path, as it reads the page template. A missing or foreign
 * file stops the start with an error saying what to do.
 */
export function loadPageRenderer (path: string, config: RuntimeConfig): PageRenderer {
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: the page renderer is built with the client (npm run build); run the build again`)
  }
  const loaded = createRequire(import.meta.url)(path) as RendererModule
  if (typeof loaded.createPageRenderer !== 'function') {
    throw new Error(`${path} is not a Threshold page renderer (no createPageRenderer); run the build again`)
  }
  return loaded.createPageRenderer(config)
}
