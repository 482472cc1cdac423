import Fastify from 'fastify'
import t from 'tap'
import { CheckDomainAuthorizationRequest, CheckDomainAuthorizationResponse } from '../../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { CHECK_DOMAIN_AUTHORIZATION_PATH } from '../../../../proto/edgeauth/v1/edge_auth_metadata_service.js'
import { authorizationFor, canonicalDomain, edgeAuthResponder } from '../../../../server/reference/domain-check/edge-auth-responder.js'
import { decodeFrames, encodeFrame, encodeTrailers } from '../../../../server/shared/domain-check/grpc-web-frames.js'

async function responder (t: import('tap').Test) {
  const app = Fastify({ logger: false })
  await app.register(edgeAuthResponder, { authorizedDomains: ['good.test', 'BÜCHER.example'], unauthorizedDomains: ['bad.test'] })
  t.teardown(() => app.close())
  return app
}

const requestFrame = (domain: string) => encodeFrame(0, new CheckDomainAuthorizationRequest().setDomain(domain).serializeBinary())

function answerOf (t: import('tap').Test, body: Buffer): { authorization: number, trailers: string } {
  const frames = decodeFrames(body)
  t.equal(frames.length, 2, 'a data frame and a trailer frame')
  return {
    authorization: CheckDomainAuthorizationResponse.deserializeBinary(frames[0]!.payload).getAuthorization(),
    trailers: frames[1]!.payload.toString()
  }
}

t.test('the binary format answers with a data frame and an OK trailer frame', async (t) => {
  const app = await responder(t)
  for (const [domain, expected] of [['good.test', 1], ['bad.test', 2], ['other.test', 0], ['xn--bcher-kva.example', 1]] as const) {
    const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: { 'content-type': 'application/grpc-web+proto' }, payload: requestFrame(domain) })
    t.equal(response.statusCode, 200)
    t.equal(response.headers['content-type'], 'application/grpc-web+proto')
    const answer = answerOf(t, response.rawPayload)
    t.equal(answer.authorization, expected, domain)
    t.equal(answer.trailers, 'grpc-status:0\r\ngrpc-message:\r\n')
  }
})

t.test('the text format is the same frames in base64, including padded chunks sent one after another', async (t) => {
  const app = await responder(t)
  const frame = requestFrame('bad.test')
  const chunked = frame.subarray(0, 4).toString('base64') + frame.subarray(4).toString('base64')
  for (const payload of [frame.toString('base64'), chunked]) {
    const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: { 'content-type': 'application/grpc-web-text' }, payload })
    t.equal(response.headers['content-type'], 'application/grpc-web-text+proto')
    t.equal(answerOf(t, Buffer.from(response.body, 'base64')).authorization, 2)
  }
})

t.test('malformed requests get INVALID_ARGUMENT, compressed ones UNIMPLEMENTED; nothing crashes', async (t) => {
  const app = await responder(t)
  const cases: Array<[string, string | Buffer, string, string]> = [
    ['a truncated header', Buffer.from('0000'), 'application/grpc-web', '3'],
    ['a frame longer than the body', Buffer.from('00000000ff0a', 'hex'), 'application/grpc-web', '3'],
    ['no data frame', encodeTrailers(0), 'application/grpc-web', '3'],
    ['two data frames', Buffer.concat([requestFrame('a.test'), requestFrame('b.test')]), 'application/grpc-web', '3'],
    ['a message that is not protobuf', encodeFrame(0, Buffer.from('0aff', 'hex')), 'application/grpc-web', '3'],
    ['a compressed message', encodeFrame(1, Buffer.from('0a00', 'hex')), 'application/grpc-web', '12'],
    ['text that is not base64', '!!!not base64!!!', 'application/grpc-web-text', '3'],
    ['an empty body', Buffer.alloc(0), 'application/grpc-web', '3']
  ]
  for (const [what, payload, contentType, status] of cases) {
    const response = await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: { 'content-type': contentType }, payload })
    t.equal(response.statusCode, 200, what)
    t.equal(response.headers['grpc-status'], status, `${what}: grpc-status ${status}`)
  }
})

t.test('a wrong content type and an oversized body are refused', async (t) => {
  const app = await responder(t)
  t.equal((await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: { 'content-type': 'application/json' }, payload: '{}' })).statusCode, 415)
  t.equal((await app.inject({ method: 'POST', url: CHECK_DOMAIN_AUTHORIZATION_PATH, headers: { 'content-type': 'application/grpc-web' }, payload: Buffer.alloc(20_000) })).statusCode, 413)
})

t.test('domains compare in lower-case ASCII without a trailing dot', async (t) => {
  t.equal(canonicalDomain(' Bücher.Example. '), 'xn--bcher-kva.example')
  t.equal(authorizationFor('GOOD.TEST.', { authorizedDomains: ['good.test'], unauthorizedDomains: [] }), 1)
  t.equal(authorizationFor('good.test', { authorizedDomains: ['good.test'], unauthorizedDomains: ['good.test'] }), 2, 'unauthorized wins when listed twice')
  t.equal(authorizationFor('sub.good.test', { authorizedDomains: ['good.test'], unauthorizedDomains: [] }), 0, 'subdomains are not implied')
})
