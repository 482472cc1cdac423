import t from 'tap'
import { PasskeyBrowser } from '../../../fixtures/passkeys/passkey-browser.js'
import { registerAccount } from '../../../fixtures/registration/registration.js'
import { startBuiltServer } from '../../../fixtures/servers/built-server.js'

/*
 * A log collector reads the built server's output one JSON object a line:
 * the edge's and the embedded reference process's alike. A line Node prints
 * itself (a warning, in plain text) is one the collector cannot read.
 */

t.test('the built server writes only JSON lines, from its start through a passkey\'s registration options', async (t) => {
  const server = await startBuiltServer(t, { LOG_LEVEL: 'info' })
  await registerAccount(server.base, 'ida@example.test')
  const browser = new PasskeyBrowser(server.base)
  const { authorization } = await browser.bearerAfterSignIn('ida@example.test')
  // The options name the key algorithms the service accepts: choosing them once asked Node's experimental Web Crypto `supports`.
  const options = await browser.registerOptions(authorization.slice('Bearer '.length), true)
  t.ok(options.pubKeyCredParams.length > 0, 'the options name key algorithms')
  // The reference process logs its request after its answer: wait for that line, so that anything printed with it is read too.
  const deadline = Date.now() + 5000
  while (!/"url":"\/passkeys\/register\/options".*"service":"reference"|"service":"reference".*"url":"\/passkeys\/register\/options"/.test(server.output()) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const lines = server.output().split('\n').filter((line) => line !== '')
  t.ok(lines.length > 3, `the server logged (${lines.length} lines)`)
  const notJson = lines.filter((line) => {
    try {
      return typeof JSON.parse(line) !== 'object'
    } catch {
      return true
    }
  })
  t.same(notJson, [], 'every line of stdout and stderr is a JSON object')
})
