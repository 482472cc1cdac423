// The accounts backend for npm run load, in a process of its own so that it
// does not compete with the load generator's event loop: answers every call
// with a token pair of realistic size, at once. Prints its URL, then serves
// until it is stopped.
import { createServer } from 'node:http'
import { portOf } from '../tools.mjs'

const answer = JSON.stringify({
  auth: `eyJhbGciOiJFZERTQSIsImtpZCI6ImxvYWQiLCJ0eXAiOiJhdCtqd3QifQ.${'e'.repeat(420)}.${'s'.repeat(86)}`,
  refresh: 'r'.repeat(43)
})

const server = createServer((request, response) => {
  request.resume()
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
    response.end(answer)
  })
})
server.keepAliveTimeout = 75_000
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${portOf(server)}` })}\n`)
})
process.once('SIGTERM', () => {
  server.closeAllConnections()
  server.close(() => process.exit(0))
})
