import '../../fixtures/page/dom.js'
import t from 'tap'
import { login } from '../../../client/sign-in/login-calls.js'
import { checkDomainAuthorization } from '../../../client/domain-check/check-domain-authorization.js'
import { encodeFrame, encodeTrailers } from '../../../server/shared/domain-check/grpc-web-frames.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { buildEdge, jsonAnswer, listen, startUpstream } from '../../fixtures/servers/edge.js'
import { startBackend } from '../../fixtures/page/page.js'

t.afterEach(() => { document.documentElement.lang = '' })

t.test('the page\'s accounts calls say the page\'s language in Accept-Language, through the edge to the backend', async (t) => {
  const { base, upstream } = await startBackend(t, jsonAnswer(200, { success: 'ok' }))
  setPageUrl(`${base}/?ui_locales=de`)
  document.documentElement.lang = 'de'
  await login({ email: 'a@b.test', password: 'pw', insecure_allowed_orgs: [], resource_type: null, cluster_name: null })
  t.equal(upstream.requests.at(-1)!.headers['accept-language'], 'de')
  document.documentElement.lang = 'ar'
  await login({ email: 'a@b.test', password: 'pw', insecure_allowed_orgs: [], resource_type: null, cluster_name: null })
  t.equal(upstream.requests.at(-1)!.headers['accept-language'], 'ar')
})

t.test('the domain check says it too, to the edge auth service', async (t) => {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/grpc-web+proto' })
    response.end(Buffer.concat([encodeFrame(0, Buffer.from([0x08, 0x01])), encodeTrailers(0)]))
  })
  const origin = await listen(await buildEdge(t, { edgeAuthUpstream: upstream.url }))
  setPageUrl(`${origin}/?supports_domain_auth_check=true&ui_locales=ja`)
  document.documentElement.lang = 'ja'
  await checkDomainAuthorization('x.test', { origin, timeoutMs: null })
  t.equal(upstream.requests.at(-1)!.headers['accept-language'], 'ja')
})
