// The ceiling for one Node process, for npm run bench: node:http answering
// every request with one fixed body and fixed headers from memory, no routing,
// no per-request work. Given the page's body and headers as JSON on stdin
// ({ body, headers }); prints its URL, then serves until it is stopped.
import { createServer } from 'node:http'
import { text } from 'node:stream/consumers'
import { portOf } from '../tools.mjs'

const { body, headers } = JSON.parse(await text(process.stdin))
const server = createServer((_request, response) => {
  response.writeHead(200, headers)
  response.end(body)
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${portOf(server)}` })}\n`)
})
process.once('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
