import t from 'tap'
import { accountsContractFromText, loadAccountsContract } from '../../../server/shared/accounts-contract.js'

t.test('the repository\'s contract loads, with a version and its operations', async (t) => {
  const contract = loadAccountsContract()
  t.match(contract.version, /^\d+\.\d+\.\d+$/)
  t.ok(contract.operations.some(({ method, path }) => method === 'post' && path === '/v2/login'))
})

t.test('an answer is checked against the response for its status, then its class', async (t) => {
  const contract = loadAccountsContract()
  const ok = contract.answerCheck('post', '/v2/login', 200)!
  t.equal(ok({ auth: 'a', refresh: 'r' }), null)
  t.match(ok({ auth: '' }), /refresh/)
  const refused = contract.answerCheck('post', '/v2/login', 401)!
  t.equal(refused({ error: 'Wrong password.' }), null)
  t.match(refused({ error: 42 }), /\/error must be string/)
  t.equal(contract.answerCheck('post', '/no/such/path', 200), null)
})

t.test('a document that is not OpenAPI 3.1 is refused with a message', async (t) => {
  t.throws(() => accountsContractFromText('swagger: "2.0"\n'), /not an OpenAPI 3.1 document/)
  t.throws(() => accountsContractFromText('- just a list\n'), /not an OpenAPI 3.1 document/)
})
