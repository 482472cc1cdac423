import { createServer } from 'node:net'

/**
 * A loopback port free at the time of the call, for a process that must be
 * told its port before it starts (the embedded reference services; in tests,
 * Redis and PostgreSQL). Another process may take it first: a caller that
 * cannot tolerate that retries on "address in use".
 */
export function freeLoopbackPort (): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port')))
    })
  })
}
