import { validate, compileErrors } from '@readme/openapi-parser'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { parse } from 'yaml'
import { ACCOUNTS_API_VERSION } from '../../../common/http/accounts-paths.js'
import { accountsContractFromText, CONTRACT_PATH, loadAccountsContract } from '../../../server/shared/accounts-contract.js'

const contract = loadAccountsContract()
const document = contract.document as unknown as Record<string, Record<string, unknown>>

t.test('the document is a valid OpenAPI 3.1 document', async (t) => {
  const result = await validate(parse(readFileSync(CONTRACT_PATH, 'utf8')) as Parameters<typeof validate>[0])
  t.ok(result.valid, result.valid ? 'valid' : compileErrors(result))
  t.equal(contract.document.openapi, '3.1.0')
})

t.test('the page and the edge speak the version the document has, and the document says how versions change', async (t) => {
  t.match(contract.version, /^\d+\.\d+\.\d+$/)
  t.equal(ACCOUNTS_API_VERSION, contract.version)
  t.match(document['x-threshold-versioning'], /minor/)
  t.match(document['x-threshold-versioning'], /major/)
})

t.test('every operation has an id and every response says what the page does with it, in the document\'s own words', async (t) => {
  const outcomes = new Set(Object.keys(document['x-threshold-outcomes']!))
  const ids = new Set<string>()
  for (const { method, path, operation } of contract.operations) {
    t.type(operation.operationId, 'string', `${method} ${path} has an operationId`)
    t.notOk(ids.has(operation.operationId!), `${operation.operationId} is used once`)
    ids.add(operation.operationId!)
    for (const key of Object.keys(operation.responses ?? {})) {
      const status = key === 'default' ? 999 : key.endsWith('XX') ? Number(`${key[0]}99`) : Number(key)
      const found = contract.responseFor(method, path, status)
      t.ok(found !== null && found.key === key, `${method} ${path} ${key} resolves`)
      const outcome = found?.response['x-threshold-outcome']
      const named = Array.isArray(outcome) ? outcome : [outcome]
      t.ok(named.length > 0 && named.every((name) => typeof name === 'string' && outcomes.has(name)),
        `${method} ${path} ${key}: x-threshold-outcome ${JSON.stringify(outcome)} is one of x-threshold-outcomes`)
    }
  }
})

t.test('every page call (a JSON POST) describes its body, and the statuses the page tells apart', async (t) => {
  for (const { method, path, operation } of contract.operations) {
    // The providers' form posts (the SAML ACS, Apple's form_post) are no page calls.
    const formPost = (operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content?.['application/x-www-form-urlencoded'] !== undefined
    if (method !== 'post' || path.startsWith('/edgeauth.') || formPost) continue
    t.not(contract.requestCheck(method, path), null, `${path}: a JSON request schema`)
    t.not(contract.answerCheck(method, path, 200), null, `${path}: a JSON answer for 200`)
    t.not(contract.answerCheck(method, path, 400), null, `${path}: a JSON answer for a refusal`)
    t.not(contract.answerCheck(method, path, 500), null, `${path}: a JSON answer for a failure`)
    t.ok(operation.responses?.['4XX'] !== undefined && operation.responses['5XX'] !== undefined, `${path}: 4XX and 5XX described`)
  }
})

t.test('an answer is checked against the response for its status, then its class, following references', async (t) => {
  const ok = contract.answerCheck('post', '/v2/login', 200)!
  t.equal(ok({ auth: 'a', refresh: 'r' }), null)
  t.equal(ok({ second_factor: 'code', challenge: 'c', expires_in: 300 }), null)
  t.not(ok({ auth: '' }), null)
  t.not(ok({ auth: 'a', refresh: 'r', second_factor: 'code', challenge: 'c', expires_in: 300 }), null, 'tokens and a challenge at once')
  t.not(ok({ auth: 'a', refresh: 'r', error: 'no' }), null, 'a success never carries error')
  t.equal(contract.answerCheck('post', '/v2/login', 201)!({ auth: 'a', refresh: 'r' }), null, '201 reads as a success')
  const refused = contract.answerCheck('post', '/v2/login', 401)!
  t.equal(refused({ error: 'Wrong password.' }), null)
  t.match(refused({ error: 42 }), /\/error must be string/)
  t.match(contract.answerCheck('post', '/v2/login', 418)!({}), /must have required property 'error'/, 'any other 4xx through 4XX')
  t.equal(contract.answerCheck('post', '/v2/login', 503)!({}), null, 'a 503 may come without error')
  t.equal(contract.answerCheck('post', '/v2/login', 302), null, 'a 3xx has no JSON answer')
  t.equal(contract.answerCheck('post', '/no/such/path', 200), null)
  t.same(contract.responseFor('post', '/v2/login', 302)?.response['x-threshold-outcome'], ['failure', 'error'], 'a 3xx is never a success')
  const ssoStart = contract.answerCheck('post', '/auth/login/sso', 200)!
  for (const url of ['https://idp.example.test/sso?SAMLRequest=x', 'http://idp.example.test', 'https://idp.example.test?login_hint=a@b.test']) {
    t.equal(ssoStart({ sso_url: url }), null, `${url} is a URL the page follows`)
  }
  for (const url of ['javascript:alert(1)', 'https://user:pass@idp.example.test/', '//idp.example.test/', 'data:text/html,x']) {
    t.not(ssoStart({ sso_url: url }), null, `${url} is no URL the page follows`)
  }
})

t.test('a request body is checked against the operation\'s request schema, with null, [] and absent as the document says', async (t) => {
  const login = contract.requestCheck('post', '/v2/login')!
  const context = { insecure_allowed_orgs: [], resource_type: null, cluster_name: null }
  t.equal(login({ email: 'a@b.test', password: 'pw', ...context }), null)
  t.match(login({ email: 'a@b.test', password: 'pw', ...context, resource_type: '' }), /resource_type/, 'an empty context value is sent as null')
  t.match(login({ email: 'a@b.test', password: 'pw', insecure_allowed_orgs: [], resource_type: null }), /cluster_name/, 'a context field is never left out')
  t.match(login({ email: 'a@b.test', password: 'pw', ...context, extra: 1 }), /unevaluated/, 'no field beyond the document')
  const google = contract.requestCheck('post', '/v2/auth/login')!
  t.equal(google({ email: 'a@b.test', login_method: 'GOOGLE', ...context }), null, 'the nonce secret may be absent')
  t.not(google({ email: 'a@b.test', login_method: 'GOOGLE', google_nonce_secret: null, ...context }), null, 'but never null')
  t.not(google({ email: 'a@b.test', login_method: 'FACEBOOK', ...context }), null)
  t.equal(contract.requestCheck('get', '/.well-known/jwks.json'), null, 'a GET has no body')
})

t.test('a document that is not OpenAPI 3.1 is refused with a message', async (t) => {
  t.throws(() => accountsContractFromText('swagger: "2.0"\n'), /not an OpenAPI 3.1 document/)
  t.throws(() => accountsContractFromText('- just a list\n'), /not an OpenAPI 3.1 document/)
})

t.test('a reference outside the document, or one that goes round in circles, is refused with a message', async (t) => {
  const text = 'openapi: 3.1.0\ninfo: { title: t, version: 1.0.0 }\npaths:\n  /a:\n    post:\n      responses:\n        \'200\': { $ref: \'other.yaml#/x\' }\n'
  t.throws(() => accountsContractFromText(text).answerCheck('post', '/a', 200), /refers outside itself: other\.yaml/)
  const cycle = 'openapi: 3.1.0\ninfo: { title: t, version: 1.0.0 }\npaths:\n  /a:\n    post:\n      responses:\n        \'200\': { $ref: \'#/components/responses/A\' }\ncomponents:\n  responses:\n    A: { $ref: \'#/components/responses/B\' }\n    B: { $ref: \'#/components/responses/A\' }\n'
  t.throws(() => accountsContractFromText(cycle).answerCheck('post', '/a', 200), /go round in circles/)
})

t.test('the domain check is described by reference to the proto, whose names it uses', async (t) => {
  const operation = contract.document.paths['/edgeauth.v1.EdgeAuthMetadataService/CheckDomainAuthorization']?.post
  const proto = operation?.['x-threshold-proto'] as Record<string, string>
  const source = readFileSync(proto.file!, 'utf8')
  t.match(source, new RegExp(`package ${proto.package!.replace('.', '\\.')};`))
  t.match(source, new RegExp(`service ${proto.service} \\{`))
  t.match(source, new RegExp(`rpc ${proto.rpc}\\(${proto.request}\\) returns \\(${proto.response}\\)`))
})

t.test('every example in the document fits the schema it illustrates: request bodies and answers alike', async (t) => {
  type Examples = Record<string, { value?: unknown }> | undefined
  type Media = { content?: Record<string, { examples?: Examples }> }
  let checked = 0
  for (const { method, path, operation } of contract.operations) {
    const requestCheck = contract.requestCheck(method, path)
    for (const [name, example] of Object.entries((operation.requestBody as Media | undefined)?.content?.['application/json']?.examples ?? {})) {
      t.equal(requestCheck === null ? 'no request schema' : requestCheck(example.value), null, `${method} ${path} request example ${name}`)
      checked++
    }
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (!/^\d{3}$/.test(status)) continue
      const answerCheck = contract.answerCheck(method, path, Number(status))
      for (const [name, example] of Object.entries((response as Media).content?.['application/json']?.examples ?? {})) {
        t.equal(answerCheck === null ? 'no answer schema' : answerCheck(example.value as Record<string, unknown>), null, `${method} ${path} ${status} example ${name}`)
        checked++
      }
    }
  }
  t.ok(checked >= 12, `the examples were found (${checked})`)
})

t.test('the emailed code\'s calls (1.4.0): a refusal names one of the listed reasons, a send answers the same shape for every address', async (t) => {
  const refused = contract.answerCheck('post', '/email-code/login', 401)!
  for (const reason of ['code_wrong', 'code_expired', 'code_other_browser']) t.equal(refused({ error: 'No.', reason }), null, reason)
  t.not(refused({ error: 'No.', reason: 'no_account' }), null, 'no reason that would tell an address has no account')
  t.not(refused({ error: 'No.' }), null, 'the reason is required')
  const sent = contract.answerCheck('post', '/email-code/send', 200)!
  t.equal(sent({ success: 'On its way.', expires_in: 600 }), null)
  t.not(sent({ success: 'On its way.' }), null, 'expires_in is required')
  t.equal(contract.answerCheck('post', '/email-code/login', 200)!({ auth: 'a', refresh: 'r', registered: true }), null, 'a sign-up says so')
  const send = contract.requestCheck('post', '/email-code/send')!
  t.equal(send({ email: 'a@b.test' }), null)
  t.equal(send({ purpose: 'reauthenticate' }), null)
  t.not(send({ email: 'a@b.test', purpose: 'reauthenticate' }), null, 'one or the other')
  t.not(send({ purpose: 'other' }), null)
  const login = contract.requestCheck('post', '/email-code/login')!
  t.equal(login({ email: 'a@b.test', code: 'ABCD-EFGH', insecure_allowed_orgs: [], resource_type: null, cluster_name: null }), null)
  t.not(login({ email: 'a@b.test', insecure_allowed_orgs: [], resource_type: null, cluster_name: null }), null, 'the code is required')
  t.equal(contract.requestCheck('post', '/reauthenticate')!({ email_code: 'ABCDEFGH' }), null, 'reauthenticate takes an emailed code')
})
