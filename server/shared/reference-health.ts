/**
 * The embedded reference service's health route: the edge's readiness probe
 * asks it on loopback (server/edge/upstream/upstream-probes.ts). It is never proxied:
 * the edge passes on listed paths alone, and this one is not listed.
 */
export const REFERENCE_HEALTH_PATH = '/healthz'
