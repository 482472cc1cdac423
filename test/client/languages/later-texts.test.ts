import '../../fixtures/page/dom.js'
import t from 'tap'
import { fetchLaterTexts } from '../../../client/languages/later-texts.js'
import { CHUNK_RETRIES } from '../../../client/page/load-chunk.js'
import { setPageUrl } from '../../fixtures/page/dom.js'
import { startUpstream } from '../../fixtures/servers/edge.js'

t.test('a failed fetch of the later texts is tried again as a chunk is, and a last failure rejects: no keys, no other language', async (t) => {
  let failuresLeft = 1
  const server = await startUpstream(t, (_request, response) => {
    if (failuresLeft-- > 0) {
      response.writeHead(503).end()
      return
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ 'secondFactor.verify': 'Prüfen', 'secondFactor.copyKey': 7 }))
  })
  setPageUrl(`${server.url}/`)
  t.same(await fetchLaterTexts('/assets/messages/de-ABC.json'), { 'secondFactor.verify': 'Prüfen' }, 'the retry\'s texts, strings only')
  t.equal(server.requests.length, 2)

  failuresLeft = CHUNK_RETRIES + 1
  await t.rejects(fetchLaterTexts('/assets/messages/de-ABC.json'), /could not be loaded from \/assets\/messages\/de-ABC\.json/)
  t.equal(server.requests.length, 2 + CHUNK_RETRIES + 1, 'a try and CHUNK_RETRIES more, no more')
})

t.test('an answer that is not a JSON object is a failure too', async (t) => {
  const server = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('["secondFactor.verify"]')
  })
  setPageUrl(`${server.url}/`)
  await t.rejects(fetchLaterTexts('/assets/messages/de-ABC.json'))
  t.equal(server.requests.length, CHUNK_RETRIES + 1)
})
