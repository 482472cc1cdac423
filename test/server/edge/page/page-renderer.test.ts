import t from 'tap'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseRuntimeConfig } from '../../../../common/page/runtime-config.js'
import { loadPageRenderer } from '../../../../server/edge/page/page-renderer.js'
import { createServer } from '../../../../server/edge/server.js'
import { loadServerConfig } from '../../../../server/edge/config.js'
import { SPEC_ACCOUNTS_ROUTES } from '../../../../server/shared/accounts-routes.js'
import { DEAD_UPSTREAM, PUBLIC_DIR } from '../../../fixtures/servers/edge.js'

const config = parseRuntimeConfig('{}')

t.test('a missing renderer stops the start with a message saying to build', async (t) => {
  const dir = t.testdir({})
  t.throws(() => loadPageRenderer(join(dir, 'page-renderer.cjs'), config), /page-renderer\.cjs is missing: .*run the build again/)
  // The edge's start, with a public folder that has no dist/server beside it.
  await t.rejects(createServer({
    config: loadServerConfig({ PORT: '0', HOST: '127.0.0.1' }),
    publicDir: join(dir, 'public'),
    accountsUpstream: DEAD_UPSTREAM,
    accountsRoutes: SPEC_ACCOUNTS_ROUTES,
    edgeAuthUpstream: DEAD_UPSTREAM,
    passwordResetCompletion: false,
    logger: false
  }), /page-renderer\.cjs is missing/)
  t.ok(PUBLIC_DIR)
})

t.test('a file that is not the renderer is refused by name', async (t) => {
  const dir = t.testdir({})
  const path = join(dir, 'page-renderer.cjs')
  writeFileSync(path, 'module.exports = { somethingElse: 1 }')
  t.throws(() => loadPageRenderer(path, config), /is not a Threshold page renderer \(no createPageRenderer\)/)
})
