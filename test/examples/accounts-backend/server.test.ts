import { spawn } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { contractFor } from '../../../conformance/contract-file.js'
import type { ProbeOptions, Row } from '../../../conformance/rows.js'
import { runSuite } from '../../../conformance/suite.js'
import { createAccountsBackend, optionsFromEnv } from '../../../examples/accounts-backend/server.js'
import { buildEdge, listen } from '../../fixtures/servers/edge.js'
import { startGoogleStandIn, TEST_GOOGLE_CLIENT_ID } from '../../fixtures/google/google-identity.js'
import { postJson } from '../../fixtures/http/post-json.js'

const { contract } = contractFor(null)
const failed = (rows: readonly Row[]): Row[] => rows.filter((row) => row.result === 'fail')
const resultOf = (rows: readonly Row[], check: string): string | undefined => rows.find((row) => row.check.startsWith(check))?.result

async function startExample (t: Test, env: Record<string, string>): Promise<string> {
  const server = createAccountsBackend(optionsFromEnv(env))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

t.test('the example backend passes every row, Google and a blocked domain included', async (t) => {
  const google = await startGoogleStandIn(t)
  const base = await startExample(t, { GOOGLE_CLIENT_ID: TEST_GOOGLE_CLIENT_ID, GOOGLE_JWKS_URL: google.jwksUrl, BLOCKED_DOMAINS: 'blocked.example' })
  // A Google account, registered as the page would, and a password account in a blocked domain.
  const googleEmail = 'google-person@example.com'
  const registration = await postJson(base, '/auth/register', { register_method: 'GOOGLE' }, { authorization: `Bearer ${await google.credential({ email: googleEmail, sub: '1001' })}` })
  t.equal(registration.status, 200)
  const blocked = { email: 'someone@blocked.example', password: 'Blocked domain password 1' }
  t.equal((await postJson(base, '/register', { email: blocked.email, password: blocked.password, confirm_password: blocked.password })).status, 200)
  const nonceSecret = randomBytes(16).toString('base64url')
  const googleToken = await google.credential({ email: googleEmail, sub: '1001', nonce: createHash('sha256').update(nonceSecret).digest('base64url') })

  const probe: ProbeOptions = {
    googleToken, googleEmail, googleNonceSecret: nonceSecret, googleClientId: TEST_GOOGLE_CLIENT_ID, ssoEmail: null, blockedAccount: blocked
  }
  const report = await runSuite({ accountsUrl: new URL(base), timeoutMs: 20_000, account: null, contract, probe })
  t.same(failed(report.rows), [], 'no row fails')
  // The login timing row times one call of each kind: a machine busy with other work can make it an
  // advisory, and a timing never fails a test (docs/development.md); its numbers are in the report.
  const timingRow = 'an unknown address takes about as long as a wrong password'
  t.same(report.rows.filter((row) => row.result === 'advisory' && row.check !== timingRow), [], 'no other advisory either: registration answers alike')
  t.equal(resultOf(report.rows, 'a real Google ID token signs in'), 'pass')
  t.equal(resultOf(report.rows, 'an account in a blocked domain is refused'), 'pass')
  t.equal(resultOf(report.rows, 'a Google ID token signed by a key that is not Google\'s is refused'), 'pass')
})

t.test('the example keeps its accounts in DATA_FILE across a restart', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'example-backend-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const dataFile = join(folder, 'accounts.json')
  const account = { email: 'kept@example.com', password: 'Kept across restarts 1' }
  const first = await startExample(t, { DATA_FILE: dataFile })
  await postJson(first, '/register', { ...account, confirm_password: account.password })
  t.notMatch(readFileSync(dataFile, 'utf8'), account.password, 'the password is stored hashed')
  const second = await startExample(t, { DATA_FILE: dataFile })
  const login = await postJson(second, '/v2/login', { ...account, insecure_allowed_orgs: [], resource_type: null, cluster_name: null })
  t.equal(login.status, 200)
  t.type(login.body.auth, 'string')
})

t.test('the example passes behind the real edge too (ACCOUNTS_URL pointing at it)', async (t) => {
  const backend = await startExample(t, {})
  const edge = await buildEdge(t, { accountsUpstream: backend, env: { RATE_LIMIT_PER_MINUTE: '1000' } })
  const report = await runSuite({ accountsUrl: new URL(`${await listen(edge)}/accounts`), timeoutMs: 20_000, account: null, contract, probe: {
    googleToken: null, googleEmail: null, googleNonceSecret: null, googleClientId: null, ssoEmail: null, blockedAccount: null
  } })
  t.same(failed(report.rows), [])
})

t.test('a member of an organisation signs in naming it, and the token names only the organisations allowed', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'example-backend-'))
  t.teardown(() => rmSync(folder, { recursive: true, force: true }))
  const dataFile = join(folder, 'accounts.json')
  const account = { email: 'member@example.com', password: 'Member of acme 1' }
  await postJson(await startExample(t, { DATA_FILE: dataFile }), '/register', { ...account, confirm_password: account.password })
  // The README's way: edit the account's organisations in the data file.
  const accounts = JSON.parse(readFileSync(dataFile, 'utf8')) as Array<{ organizations: string[] }>
  accounts[0]!.organizations.push('acme')
  writeFileSync(dataFile, JSON.stringify(accounts))
  const base = await startExample(t, { DATA_FILE: dataFile })
  const login = await postJson(base, '/v2/login', { ...account, insecure_allowed_orgs: ['other', 'acme'], resource_type: null, cluster_name: null })
  t.equal(login.status, 200)
  const claims = JSON.parse(Buffer.from(String(login.body.auth).split('.')[1]!, 'base64url').toString()) as { orgs: string[], email: string }
  t.same(claims.orgs, ['acme'])
  t.equal(claims.email, account.email)
  const refused = await postJson(base, '/v2/login', { ...account, insecure_allowed_orgs: ['other'], resource_type: null, cluster_name: null })
  t.same({ status: refused.status, body: refused.body }, { status: 403, body: { error: 'Your account is not a member of an organisation allowed here.' } })
})

t.test('a short TOKEN_SECRET stops the start with a message naming it', async (t) => {
  t.throws(() => optionsFromEnv({ TOKEN_SECRET: 'short' }), /TOKEN_SECRET must have at least 32 bytes/)
})

t.test('the example runs with Node as it is, without a build', async (t) => {
  const child = spawn(process.execPath, ['examples/accounts-backend/server.ts'], { env: { PATH: process.env.PATH, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(() => { child.kill() })
  const line = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('\n')) resolve(out)
    })
    child.once('exit', (code) => reject(new Error(`exited with ${code}`)))
  })
  const base = /accounts backend on (http:\/\/[\d.]+:\d+)/.exec(line)?.[1]
  t.ok(base, 'it says where it listens')
  const answer = await postJson(base!, '/resetPasswordRequest', { email: 'anyone@example.com' })
  t.equal(answer.status, 200)
})
