import { readFileSync } from 'node:fs'
import t from 'tap'
import { OLDEST_SUPPORTED_NODE, unsupportedNodeReason } from '../../../server/shared/supported-node.js'

t.test('Node 20, 21 and 22 before 22.14 are refused with the version needed', async (t) => {
  for (const version of ['20.20.2', '21.7.3', '22.13.1', '18.20.0']) {
    t.match(unsupportedNodeReason(version), new RegExp(`^Node ${version.replace(/\./g, '\\.')} is too old: the server needs Node 22\\.14 or later`), version)
  }
})

t.test('Node 22.14 and later run it', async (t) => {
  for (const version of ['22.14.0', '22.23.2', '24.21.0', '26.1.0']) t.equal(unsupportedNodeReason(version), null, version)
  t.equal(unsupportedNodeReason(), null, 'the Node running this suite')
})

t.test('package.json engines names the same oldest Node', async (t) => {
  const engines = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } }).engines
  t.equal(engines.node, `>=${OLDEST_SUPPORTED_NODE.major}.${OLDEST_SUPPORTED_NODE.minor}`)
})
