import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../../../server/shared/env-parsing.js'
import { loadReferenceConfig } from '../../../../server/reference/config.js'
import { connectionDomainOf, parseSsoConnections } from '../../../../server/reference/sso/connections.js'
import { makeKeyAndCertificate, opensslSkip } from '../../../fixtures/sso/sso-certificates.js'

t.test('SSO_CONNECTIONS', { skip: opensslSkip }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'threshold-sso-config-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const idp = makeKeyAndCertificate(dir, 'idp')
  const sp = makeKeyAndCertificate(dir, 'sp')
  const other = makeKeyAndCertificate(dir, 'other')

  const oidc = { domain: 'example.com', type: 'oidc', issuer: 'https://login.example.com', client_id: 'threshold', client_secret: 's3cret-value' }
  const saml = { domain: 'corp.example', type: 'saml', entry_point: 'https://idp.corp.example/sso/saml', idp_cert: idp.certificate, sp_entity_id: 'https://signin.example.com/sp' }

  function errorFor (entries: unknown): ConfigError {
    try {
      parseSsoConnections(typeof entries === 'string' ? entries : JSON.stringify(entries), dir)
    } catch (error) {
      if (error instanceof ConfigError) return error
      throw error
    }
    throw new Error('expected a configuration error')
  }

  t.test('an unset or blank SSO_CONNECTIONS means no connections', async (t) => {
    t.same(parseSsoConnections(null), [])
    t.same(parseSsoConnections('  '), [])
    t.same(loadReferenceConfig({}, 8080).ssoConnections, [])
  })

  t.test('an OIDC and a SAML connection are read and normalised', async (t) => {
    const connections = parseSsoConnections(JSON.stringify([{ ...oidc, domain: 'Example.COM' }, saml]))
    t.same(connections[0], {
      type: 'oidc', domain: 'example.com', issuer: 'https://login.example.com', clientId: 'threshold', clientSecret: 's3cret-value', insecureLoopback: false, required: false
    })
    t.match(connections[1], {
      type: 'saml', domain: 'corp.example', entryPoint: 'https://idp.corp.example/sso/saml', spEntityId: 'https://signin.example.com/sp', idpIssuer: null, requestSigning: null
    })
    t.match(connections[1], { idpCerts: [/^-----BEGIN CERTIFICATE-----/] })
  })

  t.test('a connection may require single sign-on for its domain; by default it does not', async (t) => {
    const [oidcRequired, samlRequired, samlOptional] = parseSsoConnections(JSON.stringify([
      { ...oidc, required: true }, { ...saml, required: true }, { ...saml, domain: 'other.example', required: false }
    ]))
    t.equal(oidcRequired?.required, true)
    t.equal(samlRequired?.required, true)
    t.equal(samlOptional?.required, false)
    t.equal(parseSsoConnections(JSON.stringify([oidc]))[0]?.required, false)
  })

  t.test('SSO_CONNECTIONS may name a JSON file, relative to the working directory', async (t) => {
    writeFileSync(join(dir, 'sso.json'), JSON.stringify([oidc]))
    t.equal(parseSsoConnections('sso.json', dir)[0]?.domain, 'example.com')
    t.equal(parseSsoConnections(join(dir, 'sso.json'))[0]?.domain, 'example.com')
  })

  t.test('the configuration of the reference services carries the parsed connections', async (t) => {
    const config = loadReferenceConfig({ SSO_CONNECTIONS: JSON.stringify([oidc]) }, 8080)
    t.equal(config.ssoConnections[0]?.type, 'oidc')
    t.throws(() => loadReferenceConfig({ SSO_CONNECTIONS: '[{}]' }, 8080), ConfigError)
  })

  t.test('a loopback issuer may be plain http, and is marked so', async (t) => {
    for (const issuer of ['http://127.0.0.1:4000', 'http://localhost:4000/realms/dev', 'http://[::1]:4000']) {
      const [connection] = parseSsoConnections(JSON.stringify([{ ...oidc, issuer }]))
      t.equal(connection?.type === 'oidc' && connection.insecureLoopback, true, issuer)
    }
  })

  t.test('IdP certificates are accepted as PEM, as bare base64, and as a list during a rotation', async (t) => {
    const base64 = idp.certificate.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '')
    const [fromBase64] = parseSsoConnections(JSON.stringify([{ ...saml, idp_cert: base64 }]))
    const [fromList] = parseSsoConnections(JSON.stringify([{ ...saml, idp_cert: [idp.certificate, other.certificate] }]))
    t.equal(fromBase64?.type === 'saml' && fromBase64.idpCerts.length, 1)
    t.equal(fromList?.type === 'saml' && fromList.idpCerts.length, 2)
  })

  t.test('a SAML connection with a key and certificate signs its requests', async (t) => {
    const [connection] = parseSsoConnections(JSON.stringify([{ ...saml, sp_private_key: sp.privateKey, sp_cert: sp.certificate, idp_issuer: 'https://idp.corp.example' }]))
    t.equal(connection?.type === 'saml' && connection.idpIssuer, 'https://idp.corp.example')
    t.match(connection?.type === 'saml' ? connection.requestSigning : null, { privateKey: /PRIVATE KEY/, certificate: /CERTIFICATE/ })
  })

  const invalid: Array<[string, unknown, string]> = [
    ['not JSON', '[oops', 'SSO_CONNECTIONS is not valid JSON'],
    ['a single object instead of an array', JSON.stringify(oidc), 'SSO_CONNECTIONS must be a JSON array of connections'],
    ['a path to a missing file', 'missing.json', 'SSO_CONNECTIONS must be a JSON array, or the path of a JSON file holding one; the file could not be read (ENOENT) (got "missing.json")'],
    ['an entry that is not an object', ['example.com'], 'SSO_CONNECTIONS entry 1: must be an object'],
    ['no domain', [{ ...oidc, domain: undefined }], 'SSO_CONNECTIONS entry 1: domain is required (the email domain, such as example.com)'],
    ['a domain that is not one', [{ ...oidc, domain: 'user@example.com' }], 'SSO_CONNECTIONS entry 1: domain must be an email domain such as example.com (got "user@example.com")'],
    ['a domain without a dot', [{ ...oidc, domain: 'localhost' }], 'SSO_CONNECTIONS entry 1: domain must be an email domain'],
    ['an unknown type', [{ ...oidc, type: 'ldap' }], 'SSO_CONNECTIONS entry 1 (example.com): type must be "oidc" or "saml"'],
    ['an unknown field', [{ ...oidc, clientid: 'x' }], 'SSO_CONNECTIONS entry 1 (example.com): unknown field "clientid" (an OIDC connection has domain, type, issuer, client_id, client_secret, required)'],
    ['a SAML field on an OIDC connection', [{ ...oidc, entry_point: 'https://x.example' }], 'unknown field "entry_point"'],
    ['the same domain twice', [oidc, saml, { ...oidc, domain: 'EXAMPLE.com' }], 'SSO_CONNECTIONS entry 3 (example.com): the domain is already configured by entry 1'],
    ['no issuer', [{ ...oidc, issuer: undefined }], 'SSO_CONNECTIONS entry 1 (example.com): issuer is required'],
    ['an issuer that is not a URL', [{ ...oidc, issuer: 'login.example.com' }], 'SSO_CONNECTIONS entry 1 (example.com): issuer must be an absolute https URL'],
    ['an http issuer on a public host', [{ ...oidc, issuer: 'http://login.example.com' }], 'SSO_CONNECTIONS entry 1 (example.com): issuer must be https (plain http is allowed only for loopback hosts)'],
    ['an http issuer on a private address', [{ ...oidc, issuer: 'http://10.0.0.5:8080' }], 'issuer must be https (plain http is allowed only for loopback hosts)'],
    ['an issuer with another scheme', [{ ...oidc, issuer: 'ftp://login.example.com' }], 'issuer must be an absolute https URL'],
    ['an issuer with credentials', [{ ...oidc, issuer: 'https://user:pw@login.example.com' }], 'issuer must not contain credentials'],
    ['an issuer with a query', [{ ...oidc, issuer: 'https://login.example.com/?tenant=1' }], 'issuer must not have a query string'],
    ['an issuer with a fragment', [{ ...oidc, issuer: 'https://login.example.com/#x' }], 'issuer must not have a fragment'],
    ['no client_id', [{ ...oidc, client_id: undefined }], 'SSO_CONNECTIONS entry 1 (example.com): client_id is required'],
    ['an empty client_secret', [{ ...oidc, client_secret: ' ' }], 'SSO_CONNECTIONS entry 1 (example.com): client_secret must be a non-empty string'],
    ['a client_secret that is not a string', [{ ...oidc, client_secret: 42 }], 'client_secret must be a non-empty string'],
    ['required as a string', [{ ...oidc, required: 'true' }], 'SSO_CONNECTIONS entry 1 (example.com): required must be true or false (a JSON boolean, without quotes)'],
    ['required as a number', [{ ...saml, required: 1 }], 'SSO_CONNECTIONS entry 1 (corp.example): required must be true or false'],
    ['no entry_point', [{ ...saml, entry_point: undefined }], 'SSO_CONNECTIONS entry 1 (corp.example): entry_point is required'],
    ['an http entry_point on a public host', [{ ...saml, entry_point: 'http://idp.corp.example/sso' }], 'SSO_CONNECTIONS entry 1 (corp.example): entry_point must be https (plain http is allowed only for loopback hosts)'],
    ['no idp_cert', [{ ...saml, idp_cert: undefined }], 'SSO_CONNECTIONS entry 1 (corp.example): idp_cert is required'],
    ['an idp_cert that is not a certificate', [{ ...saml, idp_cert: 'not a certificate' }], 'SSO_CONNECTIONS entry 1 (corp.example): idp_cert must be an X.509 certificate, as PEM or base64'],
    ['a list with a bad certificate', [{ ...saml, idp_cert: [idp.certificate, 'bad'] }], 'idp_cert[1] must be an X.509 certificate'],
    ['an empty certificate list', [{ ...saml, idp_cert: [] }], 'idp_cert must name at least one certificate'],
    ['no sp_entity_id', [{ ...saml, sp_entity_id: undefined }], 'SSO_CONNECTIONS entry 1 (corp.example): sp_entity_id is required'],
    ['a signing key without its certificate', [{ ...saml, sp_private_key: sp.privateKey }], 'sp_private_key and sp_cert go together'],
    ['a signing key that is not a key', [{ ...saml, sp_private_key: 'nope', sp_cert: sp.certificate }], 'sp_private_key must be an unencrypted PEM private key'],
    ['a certificate of another key', [{ ...saml, sp_private_key: sp.privateKey, sp_cert: other.certificate }], 'sp_cert does not belong to sp_private_key']
  ]

  for (const [what, entries, message] of invalid) {
    t.test(`SSO_CONNECTIONS with ${what} is refused, naming the entry`, async (t) => {
      const error = errorFor(entries)
      t.equal(error.variable, 'SSO_CONNECTIONS')
      t.match(error.message, message)
    })
  }

  t.test('errors never quote a secret or key', async (t) => {
    const messages = [
      errorFor([{ ...oidc, issuer: 'http://login.example.com' }]).message,
      errorFor([{ ...oidc, client_secret: 's3cret-value', clientsecret: 's3cret-value' }]).message,
      errorFor([{ ...saml, sp_private_key: sp.privateKey, sp_cert: other.certificate }]).message
    ]
    for (const message of messages) {
      t.notMatch(message, 's3cret-value')
      t.notMatch(message, 'PRIVATE KEY')
    }
  })

  t.test('the domain of an address is found the way connections are keyed', async (t) => {
    t.equal(connectionDomainOf('Alice@Example.COM'), 'example.com')
    t.equal(connectionDomainOf('a@bücher.example'), 'xn--bcher-kva.example')
    t.equal(connectionDomainOf('no-at-sign'), null)
    t.equal(connectionDomainOf('a@localhost'), null)
  })
})
