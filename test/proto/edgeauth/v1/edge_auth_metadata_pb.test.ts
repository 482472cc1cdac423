import { execFileSync, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import {
  CheckDomainAuthorizationRequest,
  CheckDomainAuthorizationResponse,
  CheckDomainAuthorizationResponse_Authorization as Authorization
} from '../../../../proto/edgeauth/v1/edge_auth_metadata_pb.js'
import { findExecutable, skipUnlessInstalled } from '../../../fixtures/servers/local-services.js'

const protoRoot = fileURLToPath(new URL('../../../../proto/', import.meta.url))
const protoFile = `${protoRoot}edgeauth/v1/edge_auth_metadata.proto`
const protocSkip = skipUnlessInstalled('protoc', findExecutable('protoc'), 'protobuf-compiler')

function protoc (mode: 'encode' | 'decode', type: string, input: Buffer | string): Buffer {
  return execFileSync('protoc', ['-I', protoRoot, `--${mode}=edgeauth.v1.${type}`, protoFile], { input })
}

/** Protocol buffer text format for a string: everything outside printable ASCII as octal escapes. */
function textString (value: string): string {
  return `"${[...Buffer.from(value, 'utf8')].map((byte) =>
    byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c ? String.fromCharCode(byte) : `\\${byte.toString(8).padStart(3, '0')}`).join('')}"`
}

const DOMAINS = [
  '',
  'example.com',
  `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
  'bücher.例え.jp',
  'xn--bcher-kva.example',
  'ÄÖÜ.🙂.test'
]

t.test('the domains the tests use include the edge cases the issue names', async (t) => {
  t.equal(DOMAINS[2]!.length, 253, 'a 253-character domain')
})

t.test('requests encode byte for byte as protoc encodes them, and decode back', { skip: protocSkip }, async (t) => {
  for (const domain of DOMAINS) {
    const ours = Buffer.from(new CheckDomainAuthorizationRequest().setDomain(domain).serializeBinary())
    const theirs = protoc('encode', 'CheckDomainAuthorizationRequest', `domain: ${textString(domain)}\n`)
    t.ok(ours.equals(theirs), `encode ${JSON.stringify(domain.slice(0, 20))}: ${ours.toString('hex').slice(0, 40)}`)
    t.equal(CheckDomainAuthorizationRequest.deserializeBinary(theirs).getDomain(), domain, 'decodes protoc\'s bytes')
    const decodedByProtoc = protoc('decode', 'CheckDomainAuthorizationRequest', ours).toString('utf8')
    t.equal(decodedByProtoc, domain === '' ? '' : `domain: ${textString(domain)}\n`, 'protoc reads ours')
  }
})

t.test('every authorization value, unknown numbers included, round-trips with protoc', { skip: protocSkip }, async (t) => {
  const values: Array<[number, string]> = [
    [Authorization.AUTHORIZATION_UNSPECIFIED, ''],
    [Authorization.AUTHORIZATION_AUTHORIZED, 'authorization: AUTHORIZATION_AUTHORIZED\n'],
    [Authorization.AUTHORIZATION_UNAUTHORIZED, 'authorization: AUTHORIZATION_UNAUTHORIZED\n'],
    [3, 'authorization: 3\n'],
    [127, 'authorization: 127\n'],
    [128, 'authorization: 128\n'],
    [2147483647, 'authorization: 2147483647\n']
  ]
  for (const [value, text] of values) {
    const ours = Buffer.from(new CheckDomainAuthorizationResponse().setAuthorization(value).serializeBinary())
    const theirs = protoc('encode', 'CheckDomainAuthorizationResponse', text)
    t.ok(ours.equals(theirs), `encode ${value}: ${ours.toString('hex')}`)
    t.equal(CheckDomainAuthorizationResponse.deserializeBinary(theirs).getAuthorization(), value, `decode ${value}`)
    t.equal(protoc('decode', 'CheckDomainAuthorizationResponse', ours).toString('utf8'), text, `protoc reads ${value}`)
  }
})

t.test('unknown fields are skipped, and a truncated message is refused', async (t) => {
  // field 1 = "a.b", then an unknown field 9 (varint 5), then field 1 again = "c.d" (last one wins).
  const bytes = Buffer.from('0a03612e6248050a03632e64', 'hex')
  t.equal(CheckDomainAuthorizationRequest.deserializeBinary(bytes).getDomain(), 'c.d')
  t.throws(() => CheckDomainAuthorizationRequest.deserializeBinary(Buffer.from('0a05612e', 'hex')))
})

t.test('the generated code is what proto/generate.mjs makes from the .proto today', { skip: protocSkip }, async (t) => {
  const check = spawnSync(process.execPath, [`${protoRoot}generate.mjs`, '--check'], { encoding: 'utf8' })
  t.equal(check.status, 0, check.stderr || 'up to date')
})
